"""The LTI tables' database: the service's own (PRACTICE_DATABASE_URL or the SQLite default), sessions on it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker

from judge.queue.store import aware, make_engine, migrate, now, require_migrated
from web.lti.tables import ValueRow


class LtiDb:
    """Sessions on the service's database. engine: the store's (shared pool); url: open one (the CLI)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.session = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str) -> LtiDb:
        """The CLI's way in: the SQLite default migrates itself, as `judge serve` does; others must be at head."""
        engine = make_engine(url)
        if url.startswith("sqlite"):
            migrate(engine)
        else:
            require_migrated(engine)
        return cls(engine)

    # -- expiring values: PyLTI1p3's launch data, and OIDC states and nonces --

    def put(self, key: str, value: Any, lifetime_s: int) -> None:
        with self.session.begin() as s:
            s.merge(ValueRow(key=key, value=json.dumps(value), expires_at=now() + timedelta(seconds=lifetime_s)))

    def get(self, key: str) -> Any:
        with self.session() as s:
            row = s.get(ValueRow, key)
            return json.loads(row.value) if row is not None and _alive(row.expires_at) else None

    def take(self, key: str) -> bool:
        """Use a value once: True only for the one caller whose DELETE removed it unexpired (a replay finds none)."""
        with self.session.begin() as s:
            row = s.get(ValueRow, key)
            if row is None:
                return False
            alive = _alive(row.expires_at)
            gone = s.execute(delete(ValueRow).where(ValueRow.key == key))
            return alive and getattr(gone, "rowcount", 0) == 1

    def sweep(self) -> None:
        """Drop what has expired (called now and then by the passback loop)."""
        with self.session.begin() as s:
            s.execute(delete(ValueRow).where(ValueRow.expires_at < now()))

    def close(self) -> None:
        self.engine.dispose()


def _alive(expires_at: datetime) -> bool:
    moment = aware(expires_at)
    return moment is not None and moment > now()
