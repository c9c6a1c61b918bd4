"""The fault table of docs/deploy.md, for larger bursts: each fault injected during a burst through the public API.

Starts what tests/faults starts (PostgreSQL and Redis on a small tmpfs, one web process, two workers; root only),
then for each fault: submissions taken, 503 answers, other 5xx, lost, wrong, duplicate verdicts, and the seconds
from the fault's end to the last verdict. One extra row the tests do not have: a worker killed and left dead
(its submissions come back through the heartbeat and the other worker's reaper). Asserts nothing, prints the table.

    python bench/faults.py [--burst 40]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import redis

from judge.queue.names import WORKER
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults import burst as fault_burst
from tests.faults.deployment import Deployment, data_disk, wait_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--burst", type=int, default=40, help="submissions per fault (default 40)")
    args = parser.parse_args()
    codes = [fault_burst.ACCEPTED, fault_burst.WRONG, fault_burst.SLOW, fault_burst.ACCEPTED] * (args.burst // 4)
    rows = []
    with data_disk() as disk, tempfile.TemporaryDirectory(prefix="practice-bench-faults-") as folder:
        root = Path(folder)
        problems = root / "problems"
        problems.mkdir()
        shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
        began = time.monotonic()
        deploy = Deployment(root, disk, problems)
        print(f"deployment up in {time.monotonic() - began:.0f} s; {len(codes)} submissions per fault", flush=True)
        broker = redis.Redis.from_url(deploy.redis.url)

        def kill_w1() -> None:
            wait_for(lambda: json.loads(broker.get(WORKER + "w1") or b'{"busy": 0}')["busy"] >= 1, 120, "w1 busy")
            deploy.workers["w1"].kill()

        faults = [
            ("database stopped 10 s", deploy.pg.stop, deploy.pg.start, 10),
            ("worker SIGKILLed and restarted", kill_w1, lambda: deploy.restart_worker("w1"), 1),
            ("worker SIGKILLed, left dead", kill_w1, lambda: None, 1),
            ("data disk full 20 s", deploy.filler.fill, deploy.filler.free, 20),
            ("broker stopped 10 s", deploy.redis.stop, deploy.redis.start, 10),
            ("web process SIGKILLed", deploy.web.kill, deploy.restart_web, 2),
        ]
        try:
            for name, inject, heal, outage in faults:
                if name.startswith("web"):
                    inject = deploy.web.kill  # the web process of now
                try:
                    seen, recovered = fault_burst.run_fault(deploy, inject, heal, outage, list(codes))
                    other = [s for s in seen.statuses if s >= 500 and s != 503]
                    taken, refusals = len(seen.accepted), seen.statuses.count(503)
                    rows.append((name, taken, refusals, len(other), "0", f"{recovered:.1f}"))
                except AssertionError as exc:
                    rows.append((name, "-", "-", "-", str(exc).splitlines()[0][:60], "-"))
                print(f"  {rows[-1]}", flush=True)
                if name.endswith("left dead"):
                    deploy.restart_worker("w1")
        finally:
            deploy.close()
    header = ("fault", "taken", "503s", "other 5xx", "lost/wrong/dup", "recovery s")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    print("\nrecovery: from the fault's end (a restart, where there is one) to the burst's last verdict; lost, wrong")
    print("and duplicate verdicts and other 5xx make a row fail (its reason shown instead).")


if __name__ == "__main__":
    main()
