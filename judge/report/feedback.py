"""What a problem's tests use to speak to the learner in both languages: msg() for failures, hint markers.

A test fails with ``assert ok, msg("中文说明", "English explanation")`` or
``pytest.fail(msg(...), pytrace=False)``; a hidden test declares what it checks with
``@pytest.mark.hint("反向：一维输入", "backward on a 1-D input")``. pytest turns assertion messages
into plain strings, so msg() encodes both languages into one line that the checker decodes.

A value check says what the case ran on and where it went wrong with ``compare(got, want, rtol=, atol=)``
(None when close enough, else the explanation as a Text) or ``assert_close(...)``, which fails the case with it:
shape, dtype, how many elements are off, the first one, the largest error and where, the tolerance used.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.report.catalog import say
from judge.report.i18n import Text

if TYPE_CHECKING:
    import torch

_OPEN, _SEP, _CLOSE = "\ue000", "\ue001", "\ue002"  # private-use characters: never in ordinary text
_ENCODED = re.compile(f"{_OPEN}(.*?){_SEP}(.*?){_CLOSE}", re.S)


def msg(zh: str, en: str) -> str:
    """A failure message in both languages, as one string that survives pytest's assertion rewriting."""
    return f"{_OPEN}{_flat(zh)}{_SEP}{_flat(en)}{_CLOSE}"


def said(msg_id: str, **fields: object) -> str:
    """The judge catalogue's message msg_id (judge.report.catalog), encoded as msg() encodes a test's own."""
    text = say(msg_id, **fields)
    return msg(text.zh, text.en)


def guessing(zh: str, en: str, guess: str = "case.fake_guess") -> tuple[str, str]:
    """A probe's hint, and the catalogue's guess at the cause (`guess`, a message id) that the judge's probe
    fixture adds only when neither a known cause nor the learner's own line points elsewhere."""
    return msg(zh, en), said(guess)


def decode(text: str) -> Text | None:
    """The bilingual message encoded somewhere in text by msg(), or None when it holds none."""
    match = _ENCODED.search(text or "")
    return Text(zh=match[1], en=match[2]) if match else None


def as_text(value: object) -> Text:
    """A msg()-encoded string, a Text, or a plain string (then the same in both languages)."""
    if isinstance(value, Text):
        return value
    return decode(str(value)) or Text.same(str(value))


def _flat(text: str) -> str:
    return " ".join(str(text).replace(_OPEN, "").replace(_SEP, "").replace(_CLOSE, "").split())


@dataclass(frozen=True)
class Closeness:
    """How close is close enough: compare()'s and assert_close()'s keyword arguments, as one value."""

    rtol: float
    atol: float
    dtype: torch.dtype | None = None  # the dtype got must have, when given
    relative_to_max: bool = False  # rtol scales with |want|'s largest element instead of each element's
    scale: torch.Tensor | None = None  # an elementwise scale instead of |want| (named scale_name in messages)
    scale_name: tuple[str, str] = ("s", "s")


def compare(got: object, want: torch.Tensor, how: Closeness | None = None, **options: Any) -> Text | None:
    """None when got is a tensor of want's shape (and of dtype, when given) whose every element is within
    atol + rtol * |want| (|want|'s largest element with relative_to_max), computed in float64; else what is wrong.

    scale, when given, is what rtol multiplies instead (a bound of the rounding error, broadcast to want's shape),
    named scale_name=(zh, en) in the message. NaN is named as NaN, never as a largest error; a NaN is close only to
    an expected NaN."""
    import torch  # noqa: PLC0415 - the checker has it loaded; front ends that only decode messages never need it

    how = how or Closeness(**options)
    rtol, atol, dtype, scale, scale_name = how.rtol, how.atol, how.dtype, how.scale, how.scale_name
    relative_to_max = how.relative_to_max
    if not isinstance(got, torch.Tensor):
        return say("compare.not_tensor", got=type(got).__name__)
    head = say("compare.of", shape=list(got.shape), dtype=_dtype(got.dtype))
    if list(got.shape) != list(want.shape):
        return say("compare.shape", got=list(got.shape), want=list(want.shape))
    if dtype is not None and got.dtype != dtype:
        return say("compare.dtype", got=_dtype(got.dtype), want=_dtype(dtype))
    a, e = got.detach().to("cpu", torch.float64), want.detach().to("cpu", torch.float64)
    if scale is not None:
        tol = say("compare.tol_by", rtol=rtol, atol=atol, scale=Text(zh=scale_name[0], en=scale_name[1]))
        bound = scale.detach().to("cpu", torch.float64).abs()
    else:
        tol = say("compare.tol_max" if relative_to_max else "compare.tol", rtol=rtol, atol=atol)
        bound = e.abs().max() if relative_to_max and e.numel() else e.abs()
    if not a.numel():
        return None
    diff = (a - e).abs()
    nan = a.isnan() & ~e.isnan()
    bad = nan | (a.isnan() != e.isnan()) | (~a.isnan() & ~e.isnan() & ~(diff <= atol + rtol * bound))
    if not bool(bad.any()):
        return None
    if bool(nan.any()):
        first = _index(nan, a.shape)
        return say(
            "compare.nan", head=head, count=int(nan.sum()), total=a.numel(), at=first, want=_num(e[tuple(first)])
        )
    first = _index(bad, a.shape)
    finite = diff.nan_to_num(nan=-1.0)
    worst = [int(i) for i in torch.unravel_index(finite.argmax(), a.shape)] if finite.numel() else first
    return say(
        "compare.values_at" if first == worst else "compare.values",
        head=head,
        bad=int(bad.sum()),
        total=a.numel(),
        tol=tol,
        first=first,
        first_got=_num(a[tuple(first)]),
        first_want=_num(e[tuple(first)]),
        err=_num(diff[tuple(worst)]),
        worst=worst,
        worst_got=_num(a[tuple(worst)]),
        worst_want=_num(e[tuple(worst)]),
    )


def assert_close(got: object, want: torch.Tensor, what: tuple[str, str] | None = None, **options: Any) -> None:
    """Fail the case with compare()'s explanation, after what=(zh, en) naming the value checked."""
    import pytest  # noqa: PLC0415

    problem = compare(got, want, **options)
    if problem is not None:
        zh, en = (f"{what[0]}：{problem.zh}", f"{what[1]}: {problem.en}") if what else (problem.zh, problem.en)
        pytest.fail(msg(zh, en), pytrace=False)


def _index(mask: Any, shape: Any) -> list[int]:
    """The first True of mask in row-major order, as an index list."""
    import torch  # noqa: PLC0415

    flat = int(mask.flatten().nonzero()[0, 0])
    return [int(i) for i in torch.unravel_index(torch.tensor(flat), shape)]


def _num(value: Any) -> str:
    number = float(value)
    return "NaN" if math.isnan(number) else f"{number:.6g}"


def _dtype(dtype: object) -> str:
    return str(dtype).removeprefix("torch.")
