"""The learner's loop: `python practice/judge.py` run again and again on one file, against a warm Judge.grade.

  cold    one `python practice/judge.py 100 FILE --json --no-daemon` (imports, warms two zygotes, judges)
  first   the same command with the warm local judge, none running yet (it starts one, detached)
  repeat  the median of 5 more runs of that command (the warm local judge answers)
  warm    the median of 5 Judge.grade() calls of the same file in one process whose Judge is warm

Aims: repeat <= 0.5 x cold, and repeat <= 1.3 x warm. Prints numbers and ratios, asserts nothing.
The warm local judges it starts live in a folder of its own and are stopped at the end.
Run from anywhere: python bench/cli_repeat.py [--problem 100] [--file PATH] [--mode submit|run] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge import Judge
from judge.cli import daemon_client
from judge.settings import Settings


def cli(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    print(
        f"  ({'--no-daemon' in argv and 'cold' or 'with the warm judge'}: {elapsed:.2f} s)", file=sys.stderr, flush=True
    )
    try:
        verdict = json.loads(out.stdout)["verdict"]
    except (ValueError, KeyError):
        verdict = f"no report (exit {out.returncode}): {out.stderr.strip()[-300:]}"
    return elapsed, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="100")
    parser.add_argument("--file", type=Path, help="default: the problem's reference solution")
    parser.add_argument("--mode", choices=["submit", "run"], default="submit")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    settings = Settings()
    problem = Judge(settings).problem(args.problem)
    path = (args.file or problem.reference_path).resolve()
    runtime = Path(tempfile.mkdtemp(prefix="bench-daemons-"))
    env = {**os.environ, "PRACTICE_DAEMON_DIR": str(runtime), "PRACTICE_DAEMON": "1"}
    command = [sys.executable, str(REPO / "practice" / "judge.py"), problem.id, str(path), "--json"]
    if args.mode == "run":
        command.append("--public")
    verdicts: list[str] = []
    try:
        cold, verdict = cli([*command, "--no-daemon"], env)
        verdicts.append(verdict)
        first, verdict = cli(command, env)
        verdicts.append(verdict)
        repeats = []
        for _ in range(args.runs):
            elapsed, verdict = cli(command, env)
            repeats.append(elapsed)
            verdicts.append(verdict)
    finally:
        daemon_client.stop_all(Settings(daemon_dir=runtime))
    source = path.read_bytes()
    with Judge(settings) as judge:
        judge.grade(problem.id, source, mode=args.mode)  # warms the zygotes: not counted
        warm = []
        for _ in range(args.runs):
            started = time.perf_counter()
            verdicts.append(judge.grade(problem.id, source, mode=args.mode).verdict.value)
            warm.append(time.perf_counter() - started)
    repeat, warm_median = statistics.median(repeats), statistics.median(warm)
    print(f"problem {problem.id}, {path.name}, mode {args.mode}, {os.cpu_count()} CPUs")
    print(f"  cold CLI (--no-daemon)       {cold:7.2f} s")
    print(f"  first CLI (starts the judge) {first:7.2f} s")
    print(f"  repeat CLI, median of {args.runs}     {repeat:7.2f} s   {statistics.pstdev(repeats):.2f} s spread")
    print(f"  warm Judge.grade, median of {args.runs} {warm_median:5.2f} s")
    print(f"  repeat / cold = {repeat / cold:.2f}   (aim <= 0.5)")
    print(f"  repeat / warm = {repeat / warm_median:.2f}   (aim <= 1.3)")
    if len(set(verdicts)) != 1:
        print(f"warning: the runs did not all agree: {verdicts}", file=sys.stderr)
        return 1
    print(f"  every run: {verdicts[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
