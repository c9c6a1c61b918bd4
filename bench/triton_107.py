"""Exercise 107's time on the CPU tier (Triton's interpreter): a valid kernel with BLOCK=16 (the slowest valid choice)
against the reference (BLOCK=1024) in the same run, both as a fraction of the exercise's wall limit (target: < 1/2).

Run: python bench/triton_107.py [runs]   (needs the triton extra)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from judge import Judge

SOLUTIONS = Path(__file__).resolve().parent.parent / "problems" / "107-triton-silu-and-mul" / "solutions"
FILES = {"reference (BLOCK=1024)": SOLUTIONS / "reference.py", "BLOCK=16": SOLUTIONS / "valid" / "block_16.py"}


def main(runs: int = 2) -> int:
    with Judge() as judge:
        limit = judge.problem("107").meta.limits.wall_s
        judge.grade("107", FILES["reference (BLOCK=1024)"].read_text(encoding="utf-8"), "run")  # warm the zygotes
        seconds: dict[str, float] = {}
        for label, path in FILES.items():
            samples = []
            for _ in range(runs):
                report = judge.grade("107", path.read_text(encoding="utf-8"), "submit")
                if report.verdict.value != "accepted":
                    print(f"{label}: {report.verdict.value} ({report.message.en})")
                    return 1
                samples.append(report.run.wall_s)  # the worker's wall time: what the limit counts
            seconds[label] = statistics.median(samples)
    base = seconds["reference (BLOCK=1024)"]
    for label, value in seconds.items():
        share, against = value / limit, value / base
        print(f"{label}: {value:.1f} s of the worker's {limit:g} s limit = {share:.2f}; {against:.2f}x the reference")
    worst = max(seconds.values()) / limit
    print(f"largest fraction of the limit: {worst:.2f} (target < 0.50)")
    return 0 if worst < 0.5 else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2))
