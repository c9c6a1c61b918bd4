"""Session-wide real servers for the scale-out tests (tests/scale): one redis-server, one PostgreSQL cluster."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from tests.scale.servers import postgres_server, redis_server

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def postgres_root() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture()
def postgres_url(postgres_root: str) -> str:
    """A new empty database in the session's cluster (unmigrated)."""
    name = f"practice_{next(_databases)}"
    engine = create_engine(postgres_root, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return postgres_root.rsplit("/", 1)[0] + "/" + name
