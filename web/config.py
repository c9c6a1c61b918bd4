"""Settings of the web service, read from the environment (prefix PRACTICE_) when the app is built."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class WebSettings(BaseSettings):
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
    max_body_bytes: int = Field(2 << 20, ge=1024, description="Largest request body accepted (bytes); more get 413.")
    cookie_secret: SecretStr | None = Field(
        None,
        description="The key that signs learner cookies; default: a random key kept in data_dir/cookie-secret. Give "
        "every web process of one deployment the same key.",
    )

    def cookie_key(self) -> bytes:
        """The learner cookie's signing key: the configured one, else this host's own (created once, mode 0600)."""
        if self.cookie_secret is not None:
            return self.cookie_secret.get_secret_value().encode()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "cookie-secret"
        if not path.exists():  # written whole under another name, then linked: a process starting beside this one
            draft = self.data_dir / f".cookie-secret.{os.getpid()}.{secrets.token_hex(4)}"  # reads all or nothing
            fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(secrets.token_hex(32).encode())
            try:
                os.link(draft, path)
            except FileExistsError:
                pass
            finally:
                draft.unlink()
        return path.read_bytes()

    def hard_limit_s(self, wall_s: float) -> float:
        """How long one judgement may hold a queue worker before it is given up on (above the problem's own limit)."""
        return wall_s + self.queue_hard_margin_s

    def database(self) -> str:
        if self.database_url:
            return self.database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.data_dir / 'practice.sqlite3'}"
