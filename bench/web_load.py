"""Load on the web service: N concurrent submissions (half reference, half wrong) from N clients.

Prints p50/p95 time to verdict and the throughput, against the same N judged one after another through
Judge.grade in this process, in one run:  python bench/web_load.py [--n 20] [--mode submit|run] [--workers W]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge.cli.server_client import follow, submit

EX100 = REPO / "problems" / "100-custom-op" / "solutions"
CASES = [
    ("accepted", (EX100 / "reference.py").read_text()),
    ("wrong_answer", (EX100 / "wrong" / "rms_ignores_eps.py").read_text()),
]
SERVE = "import sys; from judge.cli.subcommands import dispatch; sys.exit(dispatch(sys.argv[1:]))"


def start_server(data_dir: str, workers: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PRACTICE_DATA_DIR": data_dir, "PRACTICE_QUEUE_LIMIT": "64"}
    if workers:
        env["PRACTICE_WORKERS"] = str(workers)
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--port", str(port), "--log-level", "warning"],
        cwd=REPO,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(url + "/api/problems", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def one_client(url: str, code: str, mode: str, barrier: threading.Barrier, out: list, index: int) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:  # its own cookie: its own learner
        barrier.wait()
        started = time.monotonic()
        sid = submit(client, {"problem_id": "100", "code": code, "mode": mode})
        report = follow(client, sid, "en", lambda event: None)
        out[index] = (time.monotonic() - started, report.verdict.value)


def through_web(url: str, n: int, mode: str) -> tuple[list[float], list[str], float]:
    with httpx.Client(base_url=url, timeout=120) as warm:  # the server's warm parents start on first use
        follow(warm, submit(warm, {"problem_id": "100", "code": CASES[0][1], "mode": "run"}), "en", lambda e: None)
    out: list = [None] * n
    barrier = threading.Barrier(n)
    threads = [
        threading.Thread(target=one_client, args=(url, CASES[i % 2][1], mode, barrier, out, i)) for i in range(n)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    return [t for t, _ in out], [v for _, v in out], wall


def one_after_another(n: int, mode: str) -> tuple[list[str], float]:
    from judge import Judge

    with Judge() as judge:
        judge.grade("100", CASES[0][1], "run")  # warm, as the server was
        started = time.monotonic()
        verdicts = [judge.grade("100", CASES[i % 2][1], mode).verdict.value for i in range(n)]
        return verdicts, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--mode", choices=["submit", "run"], default="submit")
    parser.add_argument("--workers", type=int, default=0, help="PRACTICE_WORKERS for the server (default: cores)")
    args = parser.parse_args()
    expected = [CASES[i % 2][0] for i in range(args.n)]
    with tempfile.TemporaryDirectory(prefix="web-load-") as data:
        proc, url = start_server(data, args.workers)
        try:
            latencies, verdicts, wall = through_web(url, args.n, args.mode)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    serial_verdicts, serial_wall = one_after_another(args.n, args.mode)
    wrong = sum(v != e for v, e in zip(verdicts, expected))
    q = statistics.quantiles(latencies, n=20)
    print(f"{args.n} concurrent {args.mode}s of exercise 100 (half reference, half wrong), {os.cpu_count()} cores")
    print(
        f"  web:    all verdicts in {wall:6.1f} s   p50 {statistics.median(latencies):5.1f} s   p95 {q[18]:5.1f} s   "
        f"throughput {args.n / wall:.2f}/s   wrong verdicts {wrong}/{args.n}"
    )
    print(
        f"  serial: all verdicts in {serial_wall:6.1f} s   (Judge.grade one after another)        "
        f"throughput {args.n / serial_wall:.2f}/s   wrong verdicts "
        f"{sum(v != e for v, e in zip(serial_verdicts, expected))}/{args.n}"
    )
    print(f"  ratio:  web throughput / serial = {serial_wall / wall:.2f}x")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
