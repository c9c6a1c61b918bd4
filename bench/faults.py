"""The fault table of docs/deploy.md: bursts through the public API on two slots (two workers), each burst through one
fault, beside a fault-free burst of the same size in the same run.

Starts what tests/faults starts (PostgreSQL and Redis on a small tmpfs, one web process, two workers; root only).
For each fault: submissions taken, 503 answers, other 5xx, lost/wrong/duplicate verdicts, the burst's time (first
submission sent to last verdict) and its extra time over the fault-free burst, the last verdict after the fault's
end, the killed submission's own wait (from the kill to its verdict) and how many that waited went before it, and
the task messages the broker received per submission (every send, re-send and put-back: its MONITOR counts them).
A row that broke a promise (lost, wrong, duplicate, a 5xx but 503, health lying) shows why instead. Prints the table.

    python bench/faults.py [--burst 40] [--only database ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import httpx

from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.burst import Outcome, codes, run_fault
from tests.faults.deployment import Deployment, Kill, data_disk, wait_for

Fault = tuple[str, Callable[[], object], Callable[[], object], float, Kill | None]
HEADER = ("fault", "taken", "503s", "5xx", "burst s", "extra s", "after fault s", "killed's wait s", "msgs/sub")


def faults(deploy: Deployment) -> list[Fault]:
    """(name, inject, heal, seconds between them, the Kill whose submission's wait is reported)."""

    def twice() -> None:
        deploy.pg.start()
        time.sleep(10)
        deploy.pg.stop()
        time.sleep(10)
        deploy.pg.start()

    def redis_restarts() -> None:  # SIGKILL: its supervisor starts it again (and again, while the disk is full)
        deploy.filler.fill()
        assert deploy.redis.proc is not None
        deploy.redis.proc.kill()

    restarted, dead, while_down = Kill(deploy, restart=True), Kill(deploy, restart=False), Kill(deploy, restart=True)

    def down_while_restarting() -> None:
        while_down()
        deploy.pg.stop()
        while_down.heal()  # the worker starts again while the database is down: it waits for it

    none = (lambda: None, lambda: None, 0.0, None)
    return [
        ("no fault", *none),
        ("database stopped 10 s", deploy.pg.stop, deploy.pg.start, 10, None),
        ("database stopped 60 s", deploy.pg.stop, deploy.pg.start, 60, None),
        ("database stopped twice, 10 s each", deploy.pg.stop, twice, 10, None),
        ("broker stopped 10 s", deploy.redis.stop, deploy.redis.start, 10, None),
        ("worker SIGKILLed mid-judgement, restarted", restarted, restarted.heal, 1, restarted),
        ("worker SIGKILLed mid-judgement, left dead", dead, dead.heal, 1, dead),
        ("web process SIGKILLed, restarted", lambda: deploy.web.kill(), lambda: deploy.restart_web(), 2, None),
        ("data disk full 20 s", deploy.filler.fill, deploy.filler.free, 20, None),
        ("data disk full 20 s, Redis restarting", redis_restarts, deploy.filler.free, 20, None),
        ("database down while a worker restarts", down_while_restarting, deploy.pg.start, 10, while_down),
    ]


def row(name: str, outcome: Outcome, baseline: float | None, kill: Kill | None) -> tuple[str, ...]:
    seen = outcome.seen
    other = [s for s in seen.statuses if s >= 500 and s != 503]
    killed = "-"
    if kill is not None and kill.sid in outcome.finished:
        wait = outcome.finished[kill.sid].timestamp() - kill.at
        ahead = sum(1 for sid in kill.waiting or [] if outcome.started[sid] < outcome.started[kill.sid])
        killed = f"{wait:.1f} ({ahead} of {len(kill.waiting or [])} ahead)"
    extra = "-" if baseline is None else f"{outcome.duration_s - baseline:+.1f}"
    return (name, str(len(seen.accepted)), str(seen.statuses.count(503)), str(len(other)), f"{outcome.duration_s:.1f}",
            extra, f"{outcome.recovered_s:.1f}", killed, f"{outcome.per_submission():.2f}")  # fmt: skip


def settle(deploy: Deployment) -> None:
    """Before the next fault: health ok again (every part back, nothing stranded)."""
    try:
        wait_for(lambda: healthy(deploy), 180, "health ok again")
    except AssertionError as exc:
        print(f"  (not settled: {exc})", flush=True)


def healthy(deploy: Deployment) -> bool:
    try:
        return httpx.get(deploy.web.url + "/api/health", timeout=10).status_code == 200
    except httpx.HTTPError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--burst", type=int, default=40, help="submissions per fault (default 40)")
    parser.add_argument("--only", nargs="*", default=[], help="run only the faults whose names hold one of these")
    parser.add_argument("--large", type=int, default=80, help="a fault-free burst of this size first (0: none)")
    args = parser.parse_args()
    rows: list[tuple[str, ...]] = []
    with data_disk() as disk, tempfile.TemporaryDirectory(prefix="practice-bench-faults-") as folder:
        root = Path(folder)
        problems = root / "problems"
        problems.mkdir()
        shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
        began = time.monotonic()
        deploy = Deployment(root, disk, problems)
        print(f"deployment up in {time.monotonic() - began:.0f} s; {args.burst} submissions per fault", flush=True)
        try:
            if args.large:
                large = run_fault(deploy, lambda: None, lambda: None, 0, codes(args.large), bound_s=900)
                rows.append(row(f"no fault, a burst of {args.large}", large, None, None))
                print(f"  {rows[-1]}", flush=True)
            baseline = None
            for name, inject, heal, outage, kill in faults(deploy):
                if name != "no fault" and args.only and not any(word in name for word in args.only):
                    continue
                try:
                    outcome = run_fault(deploy, inject, heal, outage, codes(args.burst), bound_s=900)
                    baseline = outcome.duration_s if name == "no fault" else baseline
                    rows.append(row(name, outcome, baseline if name != "no fault" else None, kill))
                except AssertionError as exc:
                    rows.append((name, *["-"] * 7, str(exc).splitlines()[0][:80]))
                print(f"  {rows[-1]}", flush=True)
                for process_name, process in list(deploy.workers.items()):
                    if not process.alive():
                        deploy.restart_worker(process_name)  # a worker left dead, for the next fault
                settle(deploy)
        finally:
            deploy.close()
    widths = [max(len(str(r[i])) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    print()
    for line in [HEADER, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)))
    print("\nburst s: the first submission sent to the last verdict; extra s: over the fault-free burst of the same")
    print("size in this run; after fault s: the fault's end (a restart, where there is one) to the last verdict;")
    print("killed's wait: the kill to that submission's verdict, and how many that waited when it was put back went")
    print("first; msgs/sub: task messages the broker received per submission (sends, re-sends, put-backs).")


if __name__ == "__main__":
    main()
