"""Syntax-error round trip: a warm Judge.grade and the cold CLI, against a no-op interpreter start in the same run."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judge import Judge

BROKEN = "import torch\n\ndef kv_write(k_cache, v_cache, slots, k, v)\n    pass\n"
REPO = Path(__file__).resolve().parent.parent


def timed(fn, runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "broken.py"
        path.write_text(BROKEN, encoding="utf-8")
        cli = [sys.executable, str(REPO / "practice" / "judge.py"), "100", str(path)]
        lines = subprocess.run(cli, capture_output=True, text=True).stdout.count("\n")
        bare = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
        cold = timed(lambda: subprocess.run(cli, capture_output=True))
        with Judge() as judge:
            warm = timed(lambda: judge.grade("100", BROKEN))
            verdict = judge.grade("100", BROKEN).verdict.value
    print(f"verdict: {verdict}; CLI output: {lines} lines (target <= 8)")
    print(f"warm Judge.grade: {warm * 1000:.1f} ms (target < 1000 ms)")
    print(f"cold CLI: {cold:.2f} s (target < 1 s); bare interpreter start: {bare:.2f} s; ratio {cold / bare:.1f}x")
    return 0 if verdict == "compile_error" else 1


if __name__ == "__main__":
    sys.exit(main())
