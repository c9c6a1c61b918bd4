"""The hint ladder of a problem's checks: problems/<id>/hints.toml, up to three hints per test, in zh and en.

A check is a test function (its cases share its hints, public and hidden alike). Its hints come in order: a
nudge, then the concept with a pointer into the chapter, then the near-answer; a learner reveals them one at a
time (the page's hint button, `--hint N`). Hints are static texts written by the author, so a hidden check's
hints say what it checks, never its inputs. `judge check` proves the file sound (`hint_problems`).
"""

from __future__ import annotations

import ast
import hashlib
import re
import tomllib
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.errors import ProblemInvalid
from judge.problem.folders import Problem, ProblemFile
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome

FILE = "hints.toml"
MAX_HINTS = 3  # a nudge, the concept, the near-answer
MAX_CHARS = 600  # one hint: a few sentences, never a solution file
_PARAMS = re.compile(r"\[.*\]$", re.S)


class Hint(BaseModel):
    """One rung of a check's ladder, in both languages."""

    model_config = ConfigDict(extra="forbid")

    zh: str = Field(min_length=1, max_length=MAX_CHARS)
    en: str = Field(min_length=1, max_length=MAX_CHARS)

    def text(self) -> Text:
        return Text(zh=self.zh.strip(), en=self.en.strip())


class Ladder(BaseModel):
    """Every check's hints: {test function name: [Hint, ...]} (at most MAX_HINTS each)."""

    checks: dict[str, list[Hint]] = Field(default_factory=dict)


def check_name(case_name: str) -> str:
    """The check a case belongs to: its test function, without the parametrize id (`test_x[float32]` -> `test_x`)."""
    return _PARAMS.sub("", case_name)


def check_key(problem_id: str, check: str, hidden: bool) -> str:
    """A stable key for a check, under which a front end remembers the hints revealed: the test's name for a public
    case, an opaque digest for a hidden one (its name is not shown)."""
    if not hidden:
        return check
    return "hidden-" + hashlib.sha256(f"{problem_id}\0{check}".encode()).hexdigest()[:10]


class ProblemHints(ProblemFile):
    """One problem's hints file, read once; an absent file means no hints (every lookup is empty)."""

    FILE = FILE

    @cached_property
    def ladder(self) -> Ladder:
        return load(self.path)

    def for_case(self, case_name: str) -> list[Text]:
        return [hint.text() for hint in self.ladder.checks.get(check_name(case_name), [])]


def load(path: Path) -> Ladder:
    """The hints file at `path` (an empty ladder when there is none); ProblemInvalid naming what is wrong."""
    if not path.is_file():
        return Ladder()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProblemInvalid(f"{path.parent.name}/{FILE}: {exc}") from exc
    wrong = [key for key, value in data.items() if not isinstance(value, list)]
    if wrong:
        raise ProblemInvalid(f"{path.parent.name}/{FILE}: {wrong[0]} is not a list of [[{wrong[0]}]] tables")
    try:
        ladder = Ladder.model_validate({"checks": data})
    except ValidationError as exc:
        raise ProblemInvalid(f"{path.parent.name}/{FILE}: {_first_error(exc)}") from exc
    long = [name for name, hints in ladder.checks.items() if not 1 <= len(hints) <= MAX_HINTS]
    if long:
        raise ProblemInvalid(f"{path.parent.name}/{FILE}: {long[0]} has {len(ladder.checks[long[0]])} hints")
    return ladder


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"][1:])
    return f"{where}: {error['msg']}"


def test_names(problem: Problem) -> dict[str, bool]:
    """Every test function of the problem's test files, read with ast: {name: hidden (only in test_hidden.py)}."""
    found: dict[str, bool] = {}
    for path in sorted(problem.tests_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                found[node.name] = found.get(node.name, True) and path.name == "test_hidden.py"
    return found


def attach_hints(problem: Problem, cases: list[CaseResult]) -> None:
    """Give each case that did not pass its check's ladder and key (the report's CaseResult.hints and .check).

    A broken hints file gives none (judge check says why): hints are feedback, never a reason to fail a judgement."""
    if not any(case.outcome in (Outcome.failed, Outcome.error) for case in cases):
        return  # nothing to hint at: the hints file is not read (a few ms of every accepted Run)
    try:
        hints = ProblemHints(problem)
        hints.ladder  # noqa: B018 - read (and validate) the file once, here, where a fault is caught
    except ProblemInvalid:
        return
    not_run = say("case.not_run")
    for case in cases:  # a case a limit or an import failure kept from running needs no hint: it was not checked
        if case.outcome in (Outcome.failed, Outcome.error) and case.message != not_run:
            check = check_name(case.name)
            case.hints = hints.for_case(case.name)
            case.check = check_key(problem.id, check, case.hidden)
