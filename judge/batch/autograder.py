"""What the Gradescope bundle's run_autograder runs: judge ROOT/submission, write ROOT/results/results.json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judge.batch.cache import write_atomic
from judge.batch.exercise import Exercise
from judge.batch.exports import gradescope_results
from judge.batch.inputs import one_submission
from judge.batch.policy import GradeOptions
from judge.batch.policy import apply as apply_policy
from judge.batch.run import BatchGrader
from judge.report.i18n import Lang
from judge.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.batch.autograder")
    parser.add_argument("--root", default="/autograder", help="Gradescope's folder (submission/ and results/ in it)")
    parser.add_argument("--problem", required=True)
    parser.add_argument("--problems-dir", required=True)
    parser.add_argument("--lang", choices=["zh", "en"], default="zh")
    parser.add_argument("--points", type=float, default=None, help="the assignment's total points (default 100)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    results = root / "results" / "results.json"
    try:
        results_json = grade_submission(
            args.problem, root / "submission", Settings(problems_dir=Path(args.problems_dir)), args.lang, args.points
        )
    except Exception as exc:  # noqa: BLE001 - Gradescope shows results.json; without one the student sees nothing
        results_json = {"score": 0, "output": f"internal error of the judge: {type(exc).__name__}: {exc}", "tests": []}
        write_atomic(results, json.dumps(results_json, ensure_ascii=False, indent=1).encode("utf-8"))
        return 1
    write_atomic(results, json.dumps(results_json, ensure_ascii=False, indent=1).encode("utf-8"))
    return 0


def grade_submission(
    problem_id: str, folder: Path, settings: Settings, lang: Lang, points: float | None = None
) -> dict[str, Any]:
    from judge.service import Judge  # noqa: PLC0415

    with Judge(settings) as judge:
        problem = judge.problem(problem_id)
        entry = one_submission(folder, Exercise.of(problem))
        [row] = BatchGrader(judge, problem, None, jobs=1).run([entry])
    apply_policy([row], GradeOptions(points=points))  # Gradescope applies its own late policy
    return gradescope_results(row, lang)


if __name__ == "__main__":
    sys.exit(main())
