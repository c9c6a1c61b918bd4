"""Settings of the web service, read from the environment (prefix PRACTICE_) when the app is built."""

from __future__ import annotations

import os
import secrets

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from judge.queue.settings import QueueSettings


class WebSettings(QueueSettings):
    """The store's and the queue's settings (judge.queue.settings), and the web service's own."""

    model_config = SettingsConfigDict(env_prefix="PRACTICE_", extra="ignore")

    max_body_bytes: int = Field(2 << 20, ge=1024, description="Largest request body accepted (bytes); more get 413.")
    try_slots: int = Field(
        2, ge=0, description="Tries (POST /api/try) this web process runs at once; more get 503; 0: no Try here."
    )
    share_progress: bool | None = Field(
        None,
        description="Show the terminal's progress on the page and record the page's for the terminal's --list, in "
        "data_dir/progress.json (judge.queue.progress). Default: on for the learner's own `judge serve` (the "
        "in-process pool over the SQLite default), off for a deployment (a queue or another database).",
    )
    cookie_secret: SecretStr | None = Field(
        None,
        description="The key that signs learner cookies; default: a random key kept in data_dir/cookie-secret. Give "
        "every web process of one deployment the same key.",
    )

    def shares_progress(self) -> bool:
        if self.share_progress is not None:
            return self.share_progress
        return not self.queue_url and not self.database_url

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
