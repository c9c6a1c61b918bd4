"""Typed events a judgement emits while it runs (CLI ticks, web server-sent events, batch logs).

They cross into the web layer and onto queues, so each is a pydantic model, and each carries only
what a learner may see: a hidden case has its number, outcome and static hint, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Verdict


class Collected(BaseModel):
    type: Literal["collected"] = "collected"
    total: int


class CaseStarted(BaseModel):
    """A public case began (its name); for hidden cases only the first one is told, with no name or number:
    a learner sees that hidden tests run, never which one or how fast."""

    type: Literal["case_started"] = "case_started"
    name: str = Field("", description="The public case's name; empty once hidden cases run.")
    hidden: bool = False


class CaseFinished(BaseModel):
    type: Literal["case_finished"] = "case_finished"
    index: int = Field(description="1-based position among the finished cases.")
    total: int
    name: str = Field(description="The case's name, or 'hidden N' for a hidden case.")
    hidden: bool
    outcome: Outcome
    message: Text = Field(default_factory=Text, description="Empty for a hidden case.")
    hint: Text = Field(default_factory=Text, description="The author's static hint (hidden cases).")
    duration_s: float = Field(0.0, description="0 for a hidden case: the submission controls it.")

    @classmethod
    def of(cls, case: CaseResult, index: int, total: int, hidden_number: int) -> CaseFinished:
        if case.hidden:
            return cls(
                index=index,
                total=total,
                name=f"hidden {hidden_number}",
                hidden=True,
                outcome=case.outcome,
                hint=case.hint,
            )
        return cls(
            index=index,
            total=total,
            name=case.name,
            hidden=False,
            outcome=case.outcome,
            message=case.message,
            hint=case.hint,
            duration_s=round(case.duration_s, 4),
        )


class Done(BaseModel):
    type: Literal["done"] = "done"
    verdict: Verdict


Event = Annotated[Collected | CaseStarted | CaseFinished | Done, Field(discriminator="type")]
EVENT = TypeAdapter(Event)
EventSink = Callable[[Event], None]
