"""What the op trace costs a failing Run: exercise 100's wrong kv_write (rebinds instead of writing), judged warm with
the trace (the reference's traces cached, then cold) and without it (ProblemMeta.op_trace emptied).

Prints medians and ratios against the untraced Run; asserts nothing. Run from anywhere: python bench/optrace.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge import Judge, tracing

WRONG = REPO / "problems" / "100-custom-op" / "solutions" / "wrong" / "kv_rebinds_instead_of_writing.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    source = WRONG.read_text(encoding="utf-8")
    with Judge() as judge:
        judge.grade("100", source, mode="run")  # warm
        medians: dict[str, float] = {}
        traced = 0
        for label in ("traced, reference cached", "traced, reference cold", "not traced"):
            times = []
            for _ in range(runs):
                if label == "traced, reference cold":
                    tracing._cached.clear()
                if label == "not traced":
                    judge.problem("100").meta.op_trace = []
                started = time.perf_counter()
                report = judge.grade("100", source, mode="run")
                times.append(time.perf_counter() - started)
                traced = max(traced, sum(c.op_trace is not None for c in report.cases))
            medians[label] = statistics.median(times)
    base = medians["not traced"]
    print(f"exercise 100, a failing Run ({traced} public cases traced), median of {runs}")
    for label, seconds in medians.items():
        print(f"  {label:26s} {seconds:6.3f} s   x{seconds / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
