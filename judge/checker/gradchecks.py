"""gradcheck decided in the checker: the learner's backward against finite differences of the learner's forward.

torch.autograd.gradcheck compares, inside the process that runs the operator, the Jacobian the backward gives with
the one finite differences of the forward give. Here the checker picks the directions: one random output gradient
v and, per input, one random direction u. The probe returns the backward's vector-Jacobian product J^T v and the
forward at x ± h·u (judged on fresh copies, in float64); the checker compares <J^T v, u> with
<v, (f(x + h·u) - f(x - h·u)) / 2h> per input, within gradcheck's own tolerances, as gradcheck's fast mode does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from judge.report.catalog import say
from judge.report.i18n import Text

STEP = 1e-6  # gradcheck's eps
ATOL, RTOL = 1e-5, 1e-3  # gradcheck's defaults


def plan(
    inputs: Mapping[str, torch.Tensor], out_shape: Any, seed: int
) -> tuple[torch.Tensor, dict[str, torch.Tensor], list[list[torch.Tensor]]]:
    """(v, directions, points): the output gradient, a direction per input, and the inputs at which the probe
    evaluates the forward: for each input in order, every input as given but that one moved by +h·u, then -h·u."""
    g = torch.Generator().manual_seed(seed)
    v = torch.randn(*out_shape, generator=g, dtype=torch.float64)
    directions = {name: torch.randn(*t.shape, generator=g, dtype=torch.float64) for name, t in inputs.items()}
    points = []
    for name, u in directions.items():
        for sign in (1, -1):
            points.append([t + sign * STEP * u if other == name else t for other, t in inputs.items()])
    return v, directions, points


def disagreement(
    v: torch.Tensor,
    directions: Mapping[str, torch.Tensor],
    grads: Mapping[str, Any],
    forward: list[Any],
) -> tuple[str, str] | None:
    """None when the backward agrees with the forward's finite differences for every input; else what is wrong,
    as (zh, en), naming the input."""
    for k, (name, u) in enumerate(directions.items()):
        plus, minus = forward[2 * k], forward[2 * k + 1]
        if not (isinstance(plus, torch.Tensor) and isinstance(minus, torch.Tensor) and plus.shape == v.shape):
            return _pair(say("gradcheck.no_forward"))
        got = grads.get(name)
        if not isinstance(got, torch.Tensor) or got.shape != u.shape:
            return _pair(say("gradcheck.no_gradient", name=name))
        numeric = float((v * (plus.double() - minus.double())).sum() / (2 * STEP))
        analytic = float((got.double() * u).sum())
        if not abs(analytic - numeric) <= ATOL + RTOL * abs(numeric):
            return _pair(say("gradcheck.disagrees", name=name, numeric=numeric, analytic=analytic))
    return None


def not_reentrant(first: Mapping[str, Any], again: Mapping[str, Any]) -> tuple[str, str] | None:
    """None when the backward, run twice on the same graph with the same output gradient, gave the very same
    gradients (gradcheck's reentrancy check, with its tolerance of 0); else what differs, as (zh, en)."""
    for name, got in first.items():
        other = again.get(name)
        if (got is None) != (other is None):
            return _pair(say("gradcheck.not_reentrant", name=name, difference="None"))
        if isinstance(got, torch.Tensor) and isinstance(other, torch.Tensor):
            if got.shape != other.shape or not torch.equal(got, other):
                most = float((got.double() - other.double()).abs().max()) if got.shape == other.shape else float("nan")
                return _pair(say("gradcheck.not_reentrant", name=name, difference=f"{most:.3g}"))
    return None


def _pair(text: Text) -> tuple[str, str]:
    return text.zh, text.en
