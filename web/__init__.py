"""Web front end (FastAPI); built in its own issue. Only `judge serve` imports it."""
