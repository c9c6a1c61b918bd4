"""Queue throughput: two `judge worker`s against one, and the Celery path against the in-process pool at equal
concurrency (aim: within 10% a submission).

Starts its own redis-server and PostgreSQL (as tests/scale does), migrates with `judge db upgrade`, and judges
--count submissions of the fixture problem 900 (a mix of accepted and wrong) in each setting, timing from the
first send to the last stored report, with the workers already warm (start-up is left out of every setting):
  1. one worker, --concurrency C;  2. two workers, --concurrency C each;
  3. the in-process pool (LocalPool, C threads) over SQLite with one warm Judge, as `judge serve` runs it.
Prints seconds per submission in each, the two-vs-one throughput ratio and the Celery/in-process ratio, then the
deadline simulation's table (bench/deadline_sim.py) with the service-time distribution measured here: the mean and
lognormal spread of the reports' judging times on one warm worker (pass --problem 100 for a real exercise's).
Run: python bench/queue_throughput.py [--count 30] [--concurrency 1] [--problem 900]
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import redis
from deadline_sim import print_table

from judge import Judge
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.names import WORKER
from judge.queue.store import SqlStore, Submission, now
from judge.report.models import Report
from judge.settings import Settings
from tests.scale.processes import judge_cli, worker
from tests.scale.servers import postgres_server, redis_server
from web.config import WebSettings
from web.service import WebService

FIXTURES = REPO / "tests" / "fixtures" / "problems"
CODES = ["def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"]  # 900: accepted, wrong


def codes(problem: str) -> list[str]:
    """Half accepted, half wrong: the fixture's pair, or a real exercise's reference and its first wrong file."""
    if problem == "900":
        return CODES
    folder = next((REPO / "problems").glob(f"{problem}-*")) / "solutions"
    wrong = sorted((folder / "wrong").glob("*.py"))
    return [(folder / "reference.py").read_text(), next(p for p in wrong if "syntax" not in p.name).read_text()]


def batch(store, send, problem: str, count: int, durations: list[float] | None = None) -> float:
    """Seconds a submission over `count` sent at once; each report's judging time appended to `durations`."""
    ids, sources = [], codes(problem)
    started = time.monotonic()
    for n in range(count):
        sid = secrets.token_urlsafe(12)
        store.create(Submission(sid, "bench", problem, "submit", sources[n % 2], "queued", now()), {"position": n})
        send(sid)
        ids.append(sid)
    while any(store.get(sid).status != "done" for sid in ids):
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    if durations is not None:
        durations += [Report.model_validate_json(store.get(sid).report).duration_s for sid in ids]
    return elapsed / count


def wait_workers(client: redis.Redis, names: list[str]) -> None:
    deadline = time.monotonic() + 300
    while not all(client.exists(WORKER + n) for n in names):
        assert time.monotonic() < deadline, "workers did not start"
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--problem", default="900")
    args = parser.parse_args()
    problems_dir = FIXTURES if args.problem == "900" else REPO / "problems"
    with tempfile.TemporaryDirectory() as tmp, redis_server() as redis_url, postgres_server() as pg_url:
        env = {
            **os.environ,
            "PRACTICE_QUEUE_URL": redis_url,
            "PRACTICE_DATABASE_URL": pg_url,
            "PRACTICE_PROBLEMS_DIR": str(problems_dir),
        }
        assert judge_cli(env, "db", "upgrade").returncode == 0
        os.environ.update(env)
        settings = WebSettings()
        client = redis.Redis.from_url(redis_url)
        store = SqlStore(pg_url)
        with Judge(Settings(problems_dir=problems_dir)) as local:
            dispatcher = CeleryDispatcher(settings, store, local)
            results = {}
            measured: list[float] = []  # judging times on one warm worker: the simulation's service times
            workers = []
            try:
                for n_workers in (1, 2):
                    while len(workers) < n_workers:
                        name = f"bench-{len(workers) + 1}"
                        workers.append(worker(env, Path(tmp) / f"{name}.log", name, "cpu", args.concurrency).start())
                    wait_workers(client, [f"bench-{i + 1}" for i in range(n_workers)])
                    batch(store, dispatcher.submit, args.problem, 2 * n_workers * args.concurrency)  # warm each
                    results[n_workers] = batch(
                        store, dispatcher.submit, args.problem, args.count, measured if n_workers == 1 else None
                    )
                    print(f"celery, {n_workers} worker(s) x {args.concurrency}: {results[n_workers]:.2f} s/submission")
            finally:
                for w in workers:
                    w.stop()
                dispatcher.close()
            local.warm()
            web = WebSettings(data_dir=Path(tmp) / "sqlite", workers=args.concurrency, database_url=None)
            service = WebService(web, local)
            try:
                batch(service.store, service.dispatcher.submit, args.problem, 2 * args.concurrency)
                pool = batch(service.store, service.dispatcher.submit, args.problem, args.count)
            finally:
                service.close()
            print(f"in-process pool x {args.concurrency}: {pool:.2f} s/submission")
        store.close()
        shutil.rmtree(Path(tmp) / "sqlite", ignore_errors=True)
    print(f"two workers / one, throughput: {results[1] / results[2]:.2f}x")
    print(f"celery (one worker x {args.concurrency}) / in-process pool x {args.concurrency}: {results[1] / pool:.2f}")
    logs = [math.log(max(d, 1e-3)) for d in measured]
    mean, sigma = statistics.fmean(measured), statistics.pstdev(logs)
    print(f"measured service time on one warm worker: mean {mean:.2f} s, lognormal sigma {sigma:.2f} ({len(measured)})")
    print_table([1, 2, 4, 8, 16], service_s=mean, sigma=sigma)


if __name__ == "__main__":
    main()
