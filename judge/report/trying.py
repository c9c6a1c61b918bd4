"""Your own input's result (judge try, the page's Try panel): the learner's output beside the reference's on the same
input, their differences and the op trace; and the events the Try's checkers send to say so.

Feedback only, never a verdict: a Try judges nothing, and it runs only public behaviour (the reference on the
learner's own input, never a hidden case). Every value is shown as text made by the trusted checker; every string
from a worker is bounded here before it is believed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints, TypeAdapter

from judge.report.i18n import Lang, Text
from judge.report.models import fence_output
from judge.report.optrace import OpTrace, PublicOpTrace, Trace

MAX_SHOWN = 4000  # characters of one value as text (torch prints a summary past its threshold)
MAX_FRAME_B64 = (1 << 20) * 4 // 3 + 8  # a built input or an observation, as it crosses back to the judge
Shown = Annotated[str, StringConstraints(max_length=MAX_SHOWN)]

Status = Literal["same", "differs", "raised", "reference_raised", "input_error", "import_error", "limit", "internal"]


class Value(BaseModel):
    """One named value, as text (a tensor by torch's printing, with its shape and dtype)."""

    name: str = Field(max_length=200)
    text: Shown


class Difference(BaseModel):
    """One key of the two outputs: the same (within the problem's tolerance) or not, and how."""

    name: str = Field(max_length=200)
    same: bool
    message: Text = Field(default_factory=Text)
    diff: Shown = Field("", description="yours - reference, elementwise, where both are tensors of one shape.")


class Built(BaseModel):
    """The builder's checker: the learner's input, built in the sandbox."""

    type: Literal["built"] = "built"
    frame: str = Field(max_length=MAX_FRAME_B64, description="base64 of the call's channel frame.")
    values: list[Value]


class Observed(BaseModel):
    """A Try's checker: what one worker's operator gave on the input (or what it raised), and its op trace."""

    type: Literal["observed"] = "observed"
    frame: str = Field("", max_length=MAX_FRAME_B64, description="base64 of the output's channel frame.")
    values: list[Value] = Field(default_factory=list)
    raised: Text | None = None
    line: int | None = None
    trace: Trace | None = None


class Compared(BaseModel):
    """The learner's checker, given the reference's output: each key's difference, and the op traces compared."""

    type: Literal["compared"] = "compared"
    differences: list[Difference]
    op_trace: OpTrace | None = None


class Failed(BaseModel):
    """Nothing to show from this worker: its file did not import, or the input did not build."""

    type: Literal["failed"] = "failed"
    message: Text
    line: int | None = None


TryEvent = Annotated[Built | Observed | Compared | Failed, Field(discriminator="type")]
TRY_EVENT: TypeAdapter[TryEvent] = TypeAdapter(TryEvent)


class TryResult(BaseModel):
    """A Try, in both languages."""

    problem: str
    op: str
    status: Status
    message: Text = Field(default_factory=Text, description="What happened, in a sentence.")
    line: int | None = Field(None, description="The learner's line their code raised at, when it did.")
    input: list[Value] = Field(default_factory=list)
    yours: list[Value] = Field(default_factory=list)
    reference: list[Value] = Field(default_factory=list)
    differences: list[Difference] = Field(default_factory=list)
    op_trace: OpTrace | None = None
    output: str = Field("", description="What the learner's code printed (its own input: nothing hidden).")
    duration_s: float = 0.0

    def public(self, lang: Lang) -> PublicTry:
        return PublicTry(
            problem=self.problem,
            op=self.op,
            status=self.status,
            lang=lang,
            message=self.message.get(lang),
            line=self.line,
            input=self.input,
            yours=self.yours,
            reference=self.reference,
            differences=[
                PublicDifference(name=d.name, same=d.same, message=d.message.get(lang), diff=d.diff)
                for d in self.differences
            ],
            op_trace=self.op_trace.public(lang) if self.op_trace is not None else None,
            output=fence_output(self.output),
            duration_s=round(self.duration_s, 3),
        )


class PublicDifference(BaseModel):
    name: str
    same: bool
    message: str
    diff: str


class PublicTry(BaseModel):
    """A Try in one language: what the CLI's `judge try --json` prints and the web's /api/try answers."""

    problem: str
    op: str
    status: Status = Field(
        description="same / differs (outputs compared), raised (your code raised), reference_raised (the input is "
        "outside what the operator takes), input_error (your input did not build), import_error, limit, internal."
    )
    lang: Lang
    message: str
    line: int | None
    input: list[Value]
    yours: list[Value]
    reference: list[Value]
    differences: list[PublicDifference]
    op_trace: PublicOpTrace | None
    output: str
    duration_s: float
