"""The judge's data model: problem metadata, verdicts, per-case results and reports."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.report.i18n import Lang, Text
from judge.report.optrace import OpTrace, PublicOpTrace
from judge.report.textsafe import hide_paths
from sandbox.base import JobFacts

# Each line of what the learner's code printed is shown behind this mark, so no printed line can pass
# for one of the judge's own (a spoofed "结果: accepted" line).
OUTPUT_MARK = "│ "

# What a judgement runs: "submit" runs the public and hidden tests, "run" the public ones only.
Mode = Literal["submit", "run"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Titles(Strict):
    zh: str = Field(description="Title in Chinese, the handbook's language.")
    en: str = Field(description="Title in English.")


class Limits(Strict):
    wall_s: float = Field(60, gt=0, le=600, description="Wall-clock limit for one whole judgement, seconds.")
    memory_mib: int = Field(2048, gt=0, description="Memory limit of the learner's worker process, MiB.")
    output_kib: int = Field(
        1024, gt=0, description="Bytes of worker stdout+stderr allowed, KiB; more is output_limit_exceeded."
    )
    source_kib: int = Field(256, gt=0, description="Largest accepted source file, KiB.")
    memory_hint: Titles | None = Field(
        None,
        description="What exceeding the memory limit means in this exercise (zh, en), added to that verdict's summary "
        "(102: a model built for real, since every test model is too large for the limit).",
    )


class Tolerance(Strict):
    rtol: float = Field(ge=0, description="Relative tolerance for torch.testing.assert_close-style comparisons.")
    atol: float = Field(ge=0, description="Absolute tolerance.")


class ProblemMeta(Strict):
    """Contents of a problem folder's problem.toml; this model is the format's documentation."""

    id: str = Field(pattern=r"^[0-9]{1,4}$", description="Exercise number; also the folder prefix.")
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="Folder suffix, lowercase words joined by '-'.")
    title: Titles
    chapter: str = Field(description="Handbook chapter the exercise closes.")
    difficulty: Literal["easy", "medium", "hard"]
    device: Literal["cpu", "cuda"] = Field(description="Where the learner's code must run.")
    solution_file: str = Field(
        pattern=r"^[A-Za-z0-9_.-]+\.py$", description="Learner's file name under practice/solutions/."
    )
    tags: list[str] = Field(default_factory=list, description="Topics, for search and listing.")
    needs: list[str] = Field(
        default_factory=list,
        description="Python packages the exercise needs beyond the judge's own, each installed with the "
        "pyproject extra of the same name (pip install -e '.[triton]'), e.g. ['triton']. A judge without one "
        "lists the exercise as needing it and refuses submissions for it.",
    )
    limits: Limits = Field(default_factory=Limits)
    op_trace: list[str] = Field(
        default_factory=list,
        description="Probes whose failing public cases get the op trace (judge.report.optrace): the aten ops the "
        "learner's operator ran beside the reference's on the same input, e.g. ['kv_write_eager']. Probes that call "
        "the exercise's operators eagerly on real tensors; feedback only.",
    )
    tolerances: dict[str, Tolerance] = Field(
        default_factory=dict, description="Per-dtype tolerances, keyed by dtype name ('float32')."
    )


class Verdict(str, enum.Enum):
    """A judgement; members are listed from most to least severe (the precedence)."""

    internal_error = "internal_error"
    compile_error = "compile_error"
    memory_limit_exceeded = "memory_limit_exceeded"
    time_limit_exceeded = "time_limit_exceeded"
    output_limit_exceeded = "output_limit_exceeded"
    runtime_error = "runtime_error"
    wrong_answer = "wrong_answer"
    accepted = "accepted"

    @property
    def severity(self) -> int:
        return len(Verdict) - list(Verdict).index(self)

    @classmethod
    def worst(cls, verdicts: Iterable[Verdict]) -> Verdict:
        return max(verdicts, key=lambda v: v.severity, default=cls.accepted)


class Outcome(str, enum.Enum):
    passed = "passed"
    failed = "failed"
    error = "error"
    skipped = "skipped"


class CaseResult(BaseModel):
    name: str = Field(description="Readable test id, e.g. test_kv_write_in_place[float32].")
    outcome: Outcome
    hidden: bool = False
    message: Text = Field(default_factory=Text, description="Short learner-facing explanation of a failure.")
    hint: Text = Field(
        default_factory=Text, description="Author-written, static: what the case checks (never its inputs)."
    )
    detail: str = Field("", description="Longer text for instructors (assertion, traceback tail).")
    duration_s: float = 0.0
    tampered: bool = Field(False, description="The worker's guard found the judge's own code changed.")
    line: int | None = Field(None, description="The learner's line the case's exception points at, when it raised.")
    weight: float = Field(1.0, ge=0, description="Its share of the score: @pytest.mark.weight(n), default 1.")
    op_trace: OpTrace | None = Field(
        None, description="A failing public case: the learner's aten ops beside the reference's (feedback only)."
    )
    hints: list[Text] = Field(
        default_factory=list,
        description="A failing case: its check's hint ladder (problems/<id>/hints.toml), a nudge, the concept, the "
        "near-answer; static texts, so a hidden case's say what it checks, never its inputs.",
    )
    check: str = Field("", description="The key its check's revealed hints are remembered under (judge.problem.hints).")


class Fault(BaseModel):
    """A fault of the judge itself (not of the submission), structured so batch grading can retry it."""

    what: str = Field(description="Which part failed: 'sandbox', 'checker', 'problem', 'judge', ...")
    retryable: bool = Field(description="True when judging the same submission again may succeed.")


# Facts the sandbox observed about the learner's worker (exit, signal, limits hit, wall time, peak
# memory, output tail, isolation layers); nothing in it comes from the learner. One type for both
# packages: the report carries exactly what the sandbox measured.
RunInfo = JobFacts


class Report(BaseModel):
    problem: str
    verdict: Verdict
    score: float = Field(ge=0, le=1)
    passed: int
    total: int
    mode: Mode = "submit"
    message: Text = Field(
        default_factory=Text, description="One-line learner-facing summary: compile error location, limit hit."
    )
    detail: str = Field("", description="For instructors and logs: the internal fault or checker output, if any.")
    fault: Fault | None = Field(
        None, description="Set when the verdict is internal_error: what failed, retryable or not."
    )
    cases: list[CaseResult] = Field(default_factory=list)
    tampered: bool = Field(False, description="A case found the judge's own code changed in the worker; never public.")
    error_line: int | None = Field(
        None, description="compile_error: the learner's line the import failure points at (the editor marks it)."
    )
    run: RunInfo = Field(default_factory=RunInfo)
    versions: dict[str, str] = Field(default_factory=dict)
    problem_digest: str = Field("", description="Hash of the problem's tests, probes and metadata that judged this.")
    flags: list[str] = Field(
        default_factory=list,
        description="For instructors: source constructs a human should look "
        "at (frame walking, gc, ctypes, ...), tampering. Never changes the verdict; never public.",
    )
    tiers: dict[str, str] = Field(
        default_factory=dict,
        description="Tier name ('cpu', 'gpu') -> 'ran', 'skipped' or 'failed'. "
        "Score and verdict cover the cases that ran; a skipped tier's cases are still to do; "
        "a failed tier could not run for a reason of the host (the verdict is then internal_error).",
    )
    tier_layers: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="For instructors: each tier's own isolation layers (name -> 'active' or why not), "
        "as the sandbox reported them for the pass that ran it.",
    )
    judged_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    duration_s: float = 0.0

    def public(self, lang: Lang = "zh") -> PublicReport:
        """What a learner may see, in one language: hidden cases keep their outcome and static hint only."""
        cases, hidden_no = [], 0
        for case in self.cases:
            if case.hidden:
                hidden_no += 1
                cases.append(public_hidden_case(hidden_no, case, lang))
            else:
                cases.append(
                    PublicCase(
                        name=case.name,
                        outcome=case.outcome,
                        hidden=False,
                        message=case.message.get(lang),
                        hint=case.hint.get(lang),
                        duration_s=round(case.duration_s, 3),
                        op_trace=case.op_trace.public(lang) if case.op_trace is not None else None,
                        hints=[hint.get(lang) for hint in case.hints],
                        check=case.check,
                        line=case.line,
                    )
                )
        return PublicReport(
            problem=self.problem,
            verdict=self.verdict,
            score=self.score,
            passed=self.passed,
            total=self.total,
            mode=self.mode,
            lang=lang,
            message=self.message.get(lang),
            cases=cases,
            # Output printed during hidden tests could reveal their inputs: show it for "run" only.
            output=fence_output(self.run.output_tail) if self.mode == "run" else "",
            duration_s=round(self.duration_s, 3),
            versions=self.versions,
            judged_at=self.judged_at,
            tiers=dict(self.tiers),
            retryable=self.verdict == Verdict.internal_error and self.fault is not None and self.fault.retryable,
        )


def internal_error(
    problem: str, mode: Mode, detail: str, what: str, message: Text | None = None, retryable: bool = True
) -> Report:
    """The report of a judgement the judge itself could not finish (what: the part that failed): the one
    builder every front end uses, so each says the same to the learner and keeps the fault for instructors."""
    from judge.report.catalog import say  # noqa: PLC0415 - the catalogue's texts, not needed to load the model

    message = message if message is not None else say("internal_error")
    return no_case_ran(
        problem, Verdict.internal_error, mode, message, detail=detail, fault=Fault(what=what, retryable=retryable)
    )


def no_case_ran(problem: str, verdict: Verdict, mode: Mode, message: Text, **more: Any) -> Report:
    """The report of a judgement in which no case ran (nothing collected, nothing passed): a file that does not
    compile, a fault of the judge's."""
    return Report(problem=problem, verdict=verdict, score=0, passed=0, total=0, mode=mode, message=message, **more)


def public_hidden_case(number: int, case: CaseResult, lang: Lang) -> PublicCase:
    """A hidden case as a learner sees it: a generic name, its outcome and the author's static hint.

    No message and no duration: the submission controls both, so either could carry hidden inputs out."""
    return PublicCase(
        name=f"hidden {number}",
        outcome=case.outcome,
        hidden=True,
        message="",
        hint=case.hint.get(lang),
        duration_s=0.0,
        hints=[hint.get(lang) for hint in case.hints],
        check=case.check,
    )


def fence_output(text: str) -> str:
    """Every line the learner's code printed, behind OUTPUT_MARK, with the judge's install paths hidden (a warning
    raised with a high stacklevel, a traceback or a printed __file__ names them)."""
    return "".join(OUTPUT_MARK + line for line in hide_paths(text).splitlines(keepends=True)) if text else ""


class PublicCase(BaseModel):
    name: str
    outcome: Outcome
    hidden: bool
    message: str
    hint: str = Field("", description="What the case checks, written by the exercise's author; set on hidden cases.")
    duration_s: float
    op_trace: PublicOpTrace | None = Field(
        None, description="A failing public case: where its aten ops part from the reference's (never hidden ones)."
    )
    hints: list[str] = Field(
        default_factory=list,
        description="A failing case: its check's hints in order (a nudge, the concept, the near-answer), for a front "
        "end to reveal one at a time.",
    )
    check: str = Field(
        "", description="Its check's key (the test's name; an opaque one for a hidden case): remember hints under it."
    )
    line: int | None = Field(
        None, description="A failing public case: the learner's line its message names (never set on hidden ones)."
    )


class PublicReport(BaseModel):
    """The learner-facing projection of a Report: the CLI's --json and the web's response body."""

    problem: str
    verdict: Verdict
    score: float
    passed: int
    total: int
    mode: Mode
    lang: Lang = "zh"
    message: str
    cases: list[PublicCase]
    output: str = Field("", description="Tail of what the learner's code printed.")
    duration_s: float
    versions: dict[str, str]
    tiers: dict[str, str] = Field(
        default_factory=dict,
        description="Tier name ('cpu', 'gpu') -> 'ran', 'skipped' or 'failed' "
        "(a skipped tier had no runner here: its cases are still to do; a failed one could not run on this host).",
    )
    retryable: bool = Field(
        False,
        description="An internal error the judge expects to pass when judged again (a host fault, such as a GPU "
        "runner that is unavailable): front ends offer to judge again.",
    )
    judged_at: datetime
