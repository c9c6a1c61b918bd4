"""The learner's own files under practice/solutions/ and the last verdict each one got."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge.problem.folders import Problem
from judge.queue import progress
from judge.report.catalog import MESSAGES, say
from judge.report.i18n import Lang
from judge.report.models import Mode, PublicReport, Report, Verdict

LEDGER = ".last-verdicts.json"


def data_dir() -> Path:
    """The data folder the page keeps its database and progress in (PRACTICE_DATA_DIR, else the user's)."""
    from judge.queue.settings import QueueSettings  # noqa: PLC0415 - pydantic-settings' read of the environment

    return QueueSettings().data_dir


class LearnerFiles:
    def __init__(self, folder: Path, lang: Lang = "zh"):
        self.folder, self.lang = folder, lang

    def path(self, problem: Problem) -> Path:
        return self.folder / problem.meta.solution_file

    def _ledger(self) -> dict[str, Any]:
        try:
            ledger = json.loads((self.folder / LEDGER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return ledger if isinstance(ledger, dict) else {}  # a ledger edited by hand into something else

    def record_judged(self, problem: Problem, source: bytes, report: Report | PublicReport, target: Path) -> None:
        """record() the report's verdict when the judged file is the exercise's own (the default path or the same
        file named); a file elsewhere is the learner's experiment, not their progress."""
        if target.resolve() == self.path(problem).resolve():
            whole = "skipped" not in report.tiers.values()
            self.record(problem, source, report.verdict, report.mode, whole=whole)

    def record(self, problem: Problem, source: bytes, verdict: Verdict, mode: Mode, whole: bool = True) -> None:
        """The file's last verdict; an accept on every test (a submit, no tier left to do) also marks the exercise
        done, and stays: a later edit or failure does not undo that it was solved once."""
        ledger = self._ledger()
        found = ledger.get(problem.id)
        earlier: dict[str, Any] = found if isinstance(found, dict) else {}
        entry = {"sha256": hashlib.sha256(source).hexdigest(), "verdict": verdict.value, "mode": mode}
        if verdict == Verdict.accepted and mode == "submit" and whole:
            entry["solved"] = datetime.now(UTC).strftime("%Y-%m-%d")
        elif earlier.get("solved"):
            entry["solved"] = earlier["solved"]
        ledger[problem.id] = entry
        try:
            (self.folder / LEDGER).write_text(json.dumps(ledger, indent=1), encoding="utf-8")
        except OSError:
            pass  # a read-only checkout still judges; it just forgets
        progress.record(data_dir(), "cli", problem.id, verdict.value, mode, whole)  # for the page (judge serve)

    def page(self, problem: Problem) -> progress.Entry | None:
        """The page's last judgement of the exercise, where `judge serve` shares this data folder (progress.json)."""
        return progress.read(data_dir()).page.get(problem.id)

    def solved(self, problem: Problem) -> str | None:
        """The day the exercise was first accepted on every test here, if it was."""
        last = self._ledger().get(problem.id)
        return str(last["solved"]) if isinstance(last, dict) and last.get("solved") else None

    def state(self, problem: Problem) -> str:
        path = self.path(problem)
        if not path.exists():
            return say("list.not_started").get(self.lang)
        last = self._ledger().get(problem.id)
        if not last:
            return say("list.not_judged", file=path.name).get(self.lang)
        changed = hashlib.sha256(path.read_bytes()).hexdigest() != last["sha256"]
        tests = say("list.public_tests" if last["mode"] == "run" else "list.all_tests")
        known = f"verdict.{last['verdict']}" in MESSAGES  # a ledger from another version may name others
        verdict = say(f"verdict.{last['verdict']}") if known else last["verdict"]
        state = say("list.judged", file=path.name, verdict=verdict, tests=tests)
        return (state + say("list.edited") if changed else state).get(self.lang)
