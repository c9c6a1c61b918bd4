"""Settings of the submission store and the judging queue, read from the environment (prefix PRACTICE_).

Shared by the web service (whose QueueSettings extend them) and by the queue's own processes (`judge worker`,
`judge db upgrade`, `judge status`, `judge grade --queue`), which run without the web package.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class QueueSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRACTICE_", extra="ignore")

    database_url: str | None = Field(None, description="Any SQLAlchemy URL; default: a SQLite file under data_dir.")
    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("practice-judge")),
        description="Where the default SQLite database lives.",
    )
    workers: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=1,
        description="Submissions judged at once by the in-process pool.",
    )
    queue_limit: int = Field(64, ge=1, description="Submissions waiting (not yet running); more get 503.")
    learner_queue_limit: int = Field(4, ge=1, description="Unfinished submissions per learner; more get 429.")
    address_queue_limit: int = Field(
        4,
        ge=1,
        description="Unfinished submissions per client address from requests without a valid learner cookie; "
        "more get 429. The address is the peer's, or the forwarded one from proxies uvicorn trusts.",
    )
    queue_url: str | None = Field(
        None, description="A Celery broker (redis://host:6379/0): judge on queue workers instead of in-process."
    )
    queue_visibility_timeout: float | None = Field(
        None,
        gt=0,
        description="Seconds before Redis gives a dead worker's task to another; default twice the largest hard "
        "limit of any problem.",
    )
    queue_hard_margin_s: float = Field(
        60, gt=0, description="A task's hard time limit is its problem's wall_s plus this (zygotes, collection)."
    )

    def hard_limit_s(self, wall_s: float) -> float:
        """How long one judgement may hold a queue worker before it is given up on (above the problem's own limit)."""
        return wall_s + self.queue_hard_margin_s

    def database(self) -> str:
        if self.database_url:
            return self.database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.data_dir / 'practice.sqlite3'}"
