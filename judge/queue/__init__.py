"""The judging queue under the web and `judge grade --queue` (store, Celery, reaper); imports service and below."""
