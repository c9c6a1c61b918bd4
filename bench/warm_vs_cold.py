"""Exercise 100's reference, judged three ways; median wall time of 5 runs each, printed with ratios.

  warm        Judge.grade() on a Judge whose zygotes are already warm (what the web app and batch do)
  cli         a cold `python practice/judge.py 100 <reference> --json --no-daemon` (a learner's run without the
              warm local judge; bench/cli_repeat.py measures the run with it)
  cold pytest a cold `python -m pytest bench/standalone_ex100`: the same public+hidden checks with the
              reference imported in-process, as a naive judge would (the baseline)

Target: warm <= 0.40 x cold pytest (the integrity checks must not eat the warm workers' gain).
Prints numbers, asserts nothing.
Run from anywhere: python bench/warm_vs_cold.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge import Judge, Verdict

REFERENCE = REPO / "problems" / "100-custom-op" / "solutions" / "reference.py"
failures: list[str] = []  # a run that did not judge the reference as accepted: its time means nothing


def fail(message: str) -> None:
    failures.append(message)
    print(f"warning: {message}", file=sys.stderr)


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def warm_runs(n: int) -> list[float]:
    source = REFERENCE.read_text(encoding="utf-8")
    with Judge() as judge:
        first = judge.grade("100", source)  # starts the zygotes; not counted
        if first.verdict != Verdict.accepted:
            fail(f"the reference got {first.verdict.value}: {first.message}")

        def once():
            report = judge.grade("100", source)
            if report.verdict != Verdict.accepted:
                fail(f"warm run got {report.verdict.value}")

        return [timed(once) for _ in range(n)]


def command_runs(argv: list[str], n: int, what: str) -> list[float]:
    def once():
        out = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"{what} exited {out.returncode}: {(out.stdout + out.stderr)[-300:]}")

    return [timed(once) for _ in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    n = parser.parse_args().runs
    warm = warm_runs(n)
    argv = [sys.executable, "practice/judge.py", "100", str(REFERENCE), "--json", "--no-daemon"]
    cli = command_runs(argv, n, "the CLI")
    cold = command_runs(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "bench/standalone_ex100"], n, "cold pytest"
    )
    medians = {
        "warm judgement": statistics.median(warm),
        "cold CLI": statistics.median(cli),
        "cold pytest": statistics.median(cold),
    }
    print(f"exercise 100 reference, median of {n} (all runs in seconds):")
    for (name, median), runs in zip(medians.items(), (warm, cli, cold)):
        print(f"  {name:<15} {median:6.2f} s   [{', '.join(f'{r:.2f}' for r in runs)}]")
    base = medians["cold pytest"]
    print(f"  warm / cold pytest = {medians['warm judgement'] / base:.2f}   (target <= 0.40)")
    print(f"  cli  / cold pytest = {medians['cold CLI'] / base:.2f}")
    if failures:
        print(f"INVALID: {len(failures)} run(s) did not accept the reference (see the warnings)")
        sys.exit(1)


if __name__ == "__main__":
    main()
