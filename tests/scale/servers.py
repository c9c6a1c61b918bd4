"""Real redis-server and PostgreSQL for the scale tests, each on a free port in a temporary folder, always stopped."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.needs import missing


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} in 60 s")


@contextmanager
def redis_server() -> Iterator[str]:
    """redis://127.0.0.1:PORT/0 of a fresh redis-server (no persistence), stopped afterwards."""
    binary = shutil.which("redis-server")
    if binary is None:
        missing("redis-server is not installed (apt-get install -y redis-server)")
    assert binary is not None
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="practice-redis-") as folder:
        log = Path(folder) / "redis.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
                + ["--dir", folder],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            _wait_port(port, proc, "redis-server", log)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or (
        [found for found in [shutil.which(name)] if found]
    )
    if not found:
        missing("PostgreSQL is not installed (apt-get install -y postgresql)")
    return str(found[-1])


def _as_postgres(command: list[str]) -> list[str]:
    """initdb and pg_ctl refuse root: run them as the postgres user there."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """postgresql+psycopg://postgres@127.0.0.1:PORT/postgres of a fresh cluster (trust auth), stopped afterwards."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="practice-pg-")
    data, sockets, log = Path(folder) / "data", Path(folder) / "run", Path(folder) / "pg.log"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(sockets, "postgres")
    os.chmod(folder, 0o755)
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    try:
        subprocess.run(
            _as_postgres([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]),
            check=True,
            timeout=120,
            **quiet,
        )
        options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(
            _as_postgres([pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start"]),
            check=True,
            timeout=90,
            **quiet,
        )
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                _as_postgres([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]), timeout=60, **quiet
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
