"""Batch grading throughput on a class of 40 for exercise 100: --jobs 2 against --jobs 1, and a cached re-run.

The class: the reference, valid solutions, every wrong solution (each declares its verdict on line 1) and
broken files (empty, binary, not UTF-8, 10 MB), as a folder per student. Each run judges the same class
from scratch with one warm Judge (zygote start-up is left out of both), then `judge grade` is run again,
as a fresh process, on the second run's output folder: everything comes from the cache.

Prints: seconds per run and per judged submission, the jobs-2/jobs-1 throughput ratio (aim >= 1.7),
the cached re-run as a fraction of the first run (target < 0.25), and any student whose verdict is not
the expected one (then exits 1). Run: python bench/batch_throughput.py [--size 40] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge import Judge
from judge.batch.grade import grade_class
from judge.problem.folders import EXPECT
from judge.settings import Settings

BROKEN = {
    "broken_empty": (b"", "rejected"),
    "broken_binary": (b"\x7fELF\x02\x01\x01\x00" * 64, "rejected"),
    "broken_latin1": ("# café\nimport torch\n".encode("latin-1"), "rejected"),
    "broken_10mb": (b"# padding line\n" * 700_000, "rejected"),
}


def build_class(folder: Path, problem, size: int) -> dict[str, str]:
    """Writes one folder per student; returns student -> expected verdict."""
    solutions = problem.root / "solutions"
    files = [(solutions / "reference.py", "accepted")]
    files += [(p, v.value) for p, v in problem.wrong_solutions()]
    files += [(p, "accepted") for p in problem.valid_solutions()]
    expected = {}
    for path, verdict in files[: size - len(BROKEN)]:
        student = f"{path.parent.name}_{path.stem}"
        (folder / student).mkdir(parents=True)
        (folder / student / problem.meta.solution_file).write_bytes(path.read_bytes())
        first = EXPECT.match(path.read_text(encoding="utf-8").splitlines()[0])
        expected[student] = first["verdict"] if first else verdict
    for student, (data, verdict) in BROKEN.items():
        (folder / student).mkdir(parents=True)
        (folder / student / problem.meta.solution_file).write_bytes(data)
        expected[student] = verdict
    return expected


def timed_grade(judge, settings, classroom: Path, out: Path, jobs: int) -> float:
    started = time.perf_counter()
    with open(out.parent / f"{out.name}.log", "w") as log:
        status = grade_class("100", classroom, out, settings, jobs=jobs, force=True, judge=judge, stream=log)
    seconds = time.perf_counter() - started
    if status != 0:
        print(f"warning: --jobs {jobs} exited {status}", file=sys.stderr)
    return seconds


def cached_rerun(classroom: Path, out: Path, settings) -> tuple[float, subprocess.CompletedProcess]:
    """`judge grade` again, as a fresh process, on an output folder whose judgements are all cached. When the
    problem's files changed meanwhile (its digest is in the key), the cache rightly misses: then the re-run is
    timed once more, on the re-filled cache."""
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(settings.problems_dir)}
    command = [sys.executable, "-m", "judge.cli", "grade", "100", str(classroom), "--out", str(out), "--jobs", "2"]
    for attempt in (1, 2):
        started = time.perf_counter()
        rerun = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        records = [json.loads(line) for line in (out / "reports.jsonl").read_text(encoding="utf-8").splitlines()]
        missed = [r["student"] for r in records if r["report"] and not r["cached"]]
        if not missed:
            return seconds, rerun
        print(
            f"note: the re-run judged {len(missed)} submissions again (the problem's files changed during the "
            "bench?)" + ("; timing it once more" if attempt == 1 else ""),
            file=sys.stderr,
        )
    return seconds, rerun


def wrong_verdicts(out: Path, expected: dict[str, str]) -> list[str]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        got = {row["student"]: row["verdict"] for row in csv.DictReader(handle)}
    return [f"{s}: got {got.get(s, 'no row')}, expected {v}" for s, v in sorted(expected.items()) if got.get(s) != v]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--keep", help="write the class and the outputs here instead of a temporary folder")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="batch-bench-"))
    settings = Settings()
    with Judge(settings) as judge:
        classroom = work / "class"
        expected = build_class(classroom, judge.problem("100"), args.size)
        judged = sum(v != "rejected" for v in expected.values())
        judge.grade("100", (judge.problem("100").reference_path).read_text(encoding="utf-8"))  # warm both zygotes
        one = timed_grade(judge, settings, classroom, work / "out-jobs1", 1)
        two = timed_grade(judge, settings, classroom, work / "out-jobs2", 2)
    cached, rerun = cached_rerun(classroom, work / "out-jobs2", settings)
    print(
        f"class: {len(expected)} students, {judged} judged, {len(expected) - judged} broken files; "
        f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    print(f"--jobs 1: {one:7.1f} s  {one / judged:5.2f} s per judged submission")
    print(f"--jobs 2: {two:7.1f} s  {two / judged:5.2f} s per judged submission")
    print(f"throughput --jobs 2 / --jobs 1: {one / two:.2f}x  (aim >= 1.7x)")
    print(
        f"cached re-run (a fresh `judge grade` process): {cached:.1f} s = {cached / two:.3f} of the first "
        f"--jobs 2 run (target < 0.25); exit {rerun.returncode}"
    )
    problems = wrong_verdicts(work / "out-jobs1", expected) + wrong_verdicts(work / "out-jobs2", expected)
    for line in problems:
        print(f"WRONG VERDICT {line}")
    print("every student has the expected verdict" if not problems else f"{len(problems)} unexpected verdicts")
    print(f"outputs: {work}")
    return 1 if problems or rerun.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
