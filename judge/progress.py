"""The learner's own files under practice/solutions/ and the last verdict each one got."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from judge.models import Verdict
from judge.problems import Problem

LEDGER = ".last-verdicts.json"


class LearnerFiles:
    def __init__(self, folder: Path):
        self.folder = folder

    def path(self, problem: Problem) -> Path:
        return self.folder / problem.meta.solution_file

    def _ledger(self) -> dict:
        try:
            return json.loads((self.folder / LEDGER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def record(self, problem: Problem, source: bytes, verdict: Verdict, mode: str) -> None:
        ledger = self._ledger()
        ledger[problem.id] = {"sha256": hashlib.sha256(source).hexdigest(), "verdict": verdict.value, "mode": mode}
        try:
            (self.folder / LEDGER).write_text(json.dumps(ledger, indent=1), encoding="utf-8")
        except OSError:
            pass  # a read-only checkout still judges; it just forgets

    def state(self, problem: Problem) -> str:
        path = self.path(problem)
        if not path.exists():
            return "not started"
        last = self._ledger().get(problem.id)
        if not last:
            return f"{path.name}: not judged yet"
        changed = hashlib.sha256(path.read_bytes()).hexdigest() != last["sha256"]
        tests = "public tests" if last["mode"] == "run" else "all tests"
        return f"{path.name}: {last['verdict']} ({tests})" + (", edited since" if changed else "")
