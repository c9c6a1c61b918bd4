"""A scaled-out deployment the fault tests can hurt: PostgreSQL and Redis (AOF on) with their data on one small
tmpfs (the data disk), one web process and two queue workers, each a real process that can be stopped, killed,
restarted or starved of disk space."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Self

from sqlalchemy.exc import OperationalError

from judge.queue.store import FINISHED, SqlStore, now
from tests.needs import missing
from tests.scale.processes import Process, Web, judge_cli, worker
from tests.scale.servers import _as_postgres, _pg_bin, _wait_port, free_port

DISK_MIB = 160  # the data disk: PostgreSQL's cluster (about 40 MB) and Redis's AOF


@contextlib.contextmanager
def data_disk() -> Iterator[Path]:
    """A small tmpfs mounted for this deployment's data, unmounted afterwards (root only)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        missing("the fault tests mount a small tmpfs as the data disk: run as root (CI does)")
    folder = Path(tempfile.mkdtemp(prefix="practice-disk-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MIB}m,mode=0755", "tmpfs", str(folder)])
    if done.returncode != 0:
        folder.rmdir()
        missing("could not mount a tmpfs (no CAP_SYS_ADMIN here)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)])
        shutil.rmtree(folder, ignore_errors=True)


class Filler:
    """Fills the data disk to the last byte, and frees it again."""

    def __init__(self, disk: Path):
        self.path = disk / "filler"

    def fill(self) -> int:
        written = 0
        block = b"\0" * (1 << 20)
        with open(self.path, "wb", buffering=0) as out:
            try:
                while True:
                    written += out.write(block)
            except OSError:
                pass
            for size in (4096, 512, 1):  # the last partial blocks too: nothing is left for anyone
                try:
                    while True:
                        written += out.write(block[:size])
                except OSError:
                    continue
        return written

    def free(self) -> None:
        self.path.unlink(missing_ok=True)


class Redis:
    """redis-server with its AOF on the data disk (fsync every second, the usual setting), on a fixed port so that
    it can be stopped and started again. Like Postgres, supervised: restarted when it exits on its own."""

    def __init__(self, disk: Path, log_dir: Path):
        binary = shutil.which("redis-server")
        if binary is None:
            missing("redis-server is not installed (apt-get install -y redis-server)")
        self.binary, self.port = str(binary), free_port()
        self.dir, self.log = disk / "redis", log_dir / "redis.log"
        self.dir.mkdir()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.wanted, self.restarts = False, 0
        self._stop = threading.Event()
        threading.Thread(target=self._supervise, name="redis-supervisor", daemon=True).start()

    def _spawn(self) -> subprocess.Popen[bytes]:
        with open(self.log, "ab") as out:
            return subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir)]
                + ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def start(self) -> Redis:
        self.proc = self._spawn()
        _wait_port(self.port, self.proc, "redis-server", self.log)
        self.wanted = True
        return self

    def _supervise(self) -> None:
        while not self._stop.wait(2.0):
            if self.wanted and self.proc is not None and self.proc.poll() is not None:
                self.restarts += 1
                self.proc = self._spawn()  # on a full disk it may exit again: the next look starts it again

    def stop(self) -> None:
        self.wanted = False
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Postgres:
    """A PostgreSQL cluster on the data disk, started and stopped with pg_ctl as the postgres user. A supervisor
    thread restarts it when it exits on its own (a PANIC when its WAL cannot be written), as a host's service
    manager would; a stop() asked for here is not restarted until start()."""

    def __init__(self, disk: Path, log_dir: Path):
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.port = free_port()
        self.data, self.sockets, self.log = disk / "pg", log_dir / "pg-run", log_dir / "pg.log"
        for folder in (self.data, self.sockets):
            folder.mkdir()
            shutil.chown(folder, "postgres")
        shutil.chown(log_dir, "postgres")
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self.wanted = False
        self.restarts = 0
        self._stop = threading.Event()
        self._supervisor = threading.Thread(target=self._supervise, name="pg-supervisor", daemon=True)

    def _ctl(self, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            _as_postgres([self.pg_ctl, "-D", str(self.data), *args]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )

    def init(self) -> Postgres:
        subprocess.run(
            _as_postgres(
                [self.initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]
            ),
            check=True,
            timeout=120,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        self._supervisor.start()
        return self.start()

    def start(self) -> Postgres:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._ctl("-l", str(self.log), "-o", options, "-w", "-t", "60", "start")
        self.wanted = True
        return self

    def stop(self) -> None:
        self.wanted = False
        self._ctl("-m", "fast", "-w", "stop", timeout=60)

    def running(self) -> bool:
        return self._ctl("status", timeout=20).returncode == 0

    def _supervise(self) -> None:
        while not self._stop.wait(2.0):
            if self.wanted and not self.running():
                self.restarts += 1
                self.start()

    def close(self) -> None:
        self._stop.set()
        self.wanted = False
        self._ctl("-m", "immediate", "-w", "stop", timeout=60)


class Deployment:
    """PostgreSQL, Redis, one web process and two workers (w1, w2) over them, judging the fixture problems."""

    def __init__(self, root: Path, disk: Path, problems: Path):
        self.root, self.disk = root, disk
        self.pg = Postgres(disk, root).init()
        self.redis = Redis(disk, root).start()
        self.filler = Filler(disk)
        self.env = {
            **os.environ,
            "PRACTICE_QUEUE_URL": self.redis.url,
            "PRACTICE_DATABASE_URL": self.pg.url,
            "PRACTICE_PROBLEMS_DIR": str(problems),
            "PRACTICE_QUEUE_LIMIT": "200",
            "PRACTICE_LEARNER_QUEUE_LIMIT": "200",
            "PRACTICE_ADDRESS_QUEUE_LIMIT": "200",
            "PRACTICE_COOKIE_SECRET": "fault-tests",
        }
        upgraded = judge_cli(self.env, "db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
        self.workers = {name: worker(self.env, root / f"{name}.log", name).start() for name in ("w1", "w2")}
        self.web = Web(self.env, root / "web.log")
        self.web.start()
        self.web.wait_healthy(240)

    def restart_worker(self, name: str) -> Process:
        self.workers[name] = worker(self.env, self.root / f"{name}.log", name).start()
        return self.workers[name]

    def restart_web(self) -> Web:
        self.web = Web(self.env, self.root / "web.log", port=self.web.port)
        self.web.start()
        return self.web

    def logs(self) -> str:
        return "\n".join(f"--- {p.args[:2]}\n{p.tail()}" for p in (self.web, *self.workers.values()))

    def close(self) -> None:
        for process in (self.web, *self.workers.values()):
            process.stop()
        self.filler.free()
        self.redis._stop.set()
        self.redis.stop()
        self.pg.close()


def wait_for(check, seconds: float, what: str, every: float = 0.25) -> float:
    """Poll check() until it is true; the seconds it took. Fails naming `what` after `seconds`."""
    began = time.monotonic()
    while not check():
        assert time.monotonic() - began < seconds, f"{what}: not within {seconds:.0f} s"
        time.sleep(every)
    return time.monotonic() - began


class Kill:
    """Kills the worker judging a submission (the first running one it sees), mid-judgement, and remembers which,
    when, and what waited in the queue at the moment that submission was queued again."""

    def __init__(self, deploy: Deployment, restart: bool):
        self.deploy, self.restart = deploy, restart
        self.sid: str | None = None
        self.name: str | None = None
        self.at = 0.0  # time.time() of the kill
        self.waiting: list[str] | None = None

    def __call__(self) -> None:
        store = SqlStore(self.deploy.pg.url)
        began = time.monotonic()
        while not (rows := [s for s in store.running_since(now()) if s.worker in self.deploy.workers]):
            assert time.monotonic() - began < 120, "no submission was running in 120 s"
            time.sleep(0.1)
        self.sid, self.name = rows[0].id, str(rows[0].worker)
        self.deploy.workers[self.name].kill()
        self.at = time.time()
        threading.Thread(target=self._watch, args=(store,), name="kill-watch", daemon=True).start()

    def _watch(self, store: SqlStore) -> None:
        """Until the killed submission is queued again (or started again already): then, what waits beside it."""
        assert self.sid is not None
        began = time.monotonic()
        try:
            while time.monotonic() - began < 300:
                try:
                    row = store.get(self.sid)
                    if row is None or row.status == "queued" or row.attempts >= 2 or row.status in FINISHED:
                        everything = now() + timedelta(days=1)
                        self.waiting = [sid for sid in store.waiting_since(everything) if sid != self.sid]
                        return
                except OperationalError:
                    pass  # the database is down (a fault of its own): look again
                time.sleep(0.05)
        finally:
            store.close()

    def heal(self) -> None:
        if self.restart and self.name is not None:
            self.deploy.restart_worker(self.name)


class Beside:
    """A thread that runs _loop() beside a burst, from `with` to its end (then _stop is set and it is joined)."""

    JOIN_S = 30.0

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=type(self).__name__, daemon=True)

    def _loop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.JOIN_S)


class StatusRuns(Beside):
    """`judge status`, run again and again beside a fault: (when it began, its exit status, what it printed)."""

    JOIN_S = 90.0

    def __init__(self, deploy: Deployment):
        super().__init__()
        self.deploy = deploy
        self.runs: list[tuple[float, int, str]] = []

    def _loop(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                done = judge_cli(self.deploy.env, "status", timeout=60)
                self.runs.append((began, done.returncode, done.stdout + done.stderr))
            except subprocess.TimeoutExpired as exc:
                self.runs.append((began, -1, f"hung: {exc}"))

    def finished_after(self, moment: float) -> int:
        return sum(1 for began, _, _ in self.runs if began > moment)
