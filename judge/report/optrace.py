"""The op trace of a failing public case: the learner's aten ops beside the reference's, and their first difference.

Both traces are recorded in workers (judge.worker.optrace): the learner's in its own worker, the reference's
in a worker of its own, never in the learner's. The comparison and its words live here, on the judge's side.
Feedback only: nothing here changes a verdict or a score, and hidden cases never get one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from judge.report.catalog import say
from judge.report.i18n import Lang, Text

MAX_SHOWN = 12  # rows of the side-by-side listing around the first difference
# A trace comes from the learner's process: every string in it is bounded here, whatever the worker sent (the worker
# cuts an argument at 40 characters; a longer one, or more of them, fails validation and the case gets no trace).
Short = Annotated[str, StringConstraints(max_length=100)]


class TracedOp(BaseModel):
    op: str = Field(max_length=200, description="The aten op, as its schema names it: aten::index_copy_.")
    args: list[Short] = Field(default_factory=list, max_length=32, description="Inputs by name; `·` is made inside.")
    writes: list[Short] = Field(default_factory=list, max_length=32, description="The operator's inputs it writes.")

    def call(self) -> str:
        return f"{self.op}({', '.join(self.args)})"

    def line(self) -> str:
        """The listing's row: the call, then → the operator's inputs it writes in place."""
        return self.call() + (f" → {', '.join(self.writes)}" if self.writes else "")

    def said(self, others_write: bool = False) -> Text:
        """The call in a sentence, with what it writes in place (or, beside one that writes, that it writes none)."""
        if self.writes:
            return say("optrace.writes", call=self.call(), names=", ".join(self.writes))
        return say("optrace.writes_none", call=self.call()) if others_write else Text.same(self.call())

    def key(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        return self.op, tuple(self.args), tuple(self.writes)


class Trace(BaseModel):
    """One recorded call, as a worker sent it back (checked against this model before it is believed)."""

    ops: list[TracedOp] = Field(default_factory=list, max_length=64)
    dropped: int = Field(0, ge=0)
    raised: str | None = Field(None, max_length=100)
    entered: bool = Field(True, description="The exercise's operator was called (False: the call raised before).")


class OpTrace(BaseModel):
    """A case's two traces and where they part."""

    probe: str = Field(description="The probe call both traces come from.")
    learner: Trace
    reference: Trace
    first_difference: int | None = Field(None, description="Index of the first op that differs; None if none.")

    @classmethod
    def compare(cls, probe: str, learner: Trace, reference: Trace) -> OpTrace:
        ours, theirs = learner.ops, reference.ops
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a.key() != b.key()), None)
        if first is None and len(ours) != len(theirs):
            first = min(len(ours), len(theirs))
        return cls(probe=probe, learner=learner, reference=reference, first_difference=first)

    def summary(self) -> Text:
        """One sentence: the reference's op at the first difference and the learner's."""
        i = self.first_difference
        if not self.learner.entered and self.learner.raised:
            first = self.reference.ops[0].said() if self.reference.ops else Text.same("…")
            return say("optrace.not_entered", raised=self.learner.raised, theirs=first)
        if i is None:
            if self.learner.raised and not self.reference.raised:
                return say("optrace.raised_after_same", raised=self.learner.raised)
            return say("optrace.same")
        ours = self.learner.ops[i] if i < len(self.learner.ops) else None
        theirs = self.reference.ops[i] if i < len(self.reference.ops) else None
        if theirs is None and ours is not None:
            return say("optrace.extra", step=i + 1, yours=ours.said())
        if ours is None and theirs is not None:
            if self.learner.raised:
                return say("optrace.raised", step=i + 1, raised=self.learner.raised, theirs=theirs.said())
            return say("optrace.stops", step=i + 1, theirs=theirs.said())
        assert ours is not None and theirs is not None
        return say("optrace.differs", step=i + 1, theirs=theirs.said(), yours=ours.said(bool(theirs.writes)))

    def rows(self) -> list[tuple[int, str, str]]:
        """(step, reference, yours) around the first difference, at most MAX_SHOWN rows."""
        length = max(len(self.learner.ops), len(self.reference.ops))
        start = max(0, min((self.first_difference or 0) - 2, length - MAX_SHOWN))
        shown = []
        for i in range(start, min(length, start + MAX_SHOWN)):
            theirs = self.reference.ops[i].line() if i < len(self.reference.ops) else ""
            ours = self.learner.ops[i].line() if i < len(self.learner.ops) else ""
            shown.append((i + 1, theirs, ours))
        return shown

    def public(self, lang: Lang) -> PublicOpTrace:
        return PublicOpTrace(
            heading=say("optrace.heading").get(lang),
            columns=[say("optrace.reference").get(lang), say("optrace.yours").get(lang)],
            summary=self.summary().get(lang),
            first_difference=None if self.first_difference is None else self.first_difference + 1,
            rows=[PublicTraceRow(step=s, reference=r, yours=y) for s, r, y in self.rows()],
        )


class PublicTraceRow(BaseModel):
    step: int
    reference: str
    yours: str


class PublicOpTrace(BaseModel):
    """What the learner sees of an op trace, in one language: the first difference in words, and the ops around
    it under their column names (the page and the terminal take every word from here)."""

    heading: str
    columns: list[str] = Field(description="The two columns' names: the reference's, then the learner's.")
    summary: str
    first_difference: int | None = Field(None, description="1-based step of the first difference, if any.")
    rows: list[PublicTraceRow]
