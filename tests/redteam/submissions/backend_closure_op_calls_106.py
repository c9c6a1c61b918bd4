# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: mlp uses torch's own gelu (right values, one graph, but not through ex106::gelu: the
chapter's bug, solutions/wrong/mlp_uses_torch_gelu.py). No frame is read and nothing the integrity snapshot watches
is rebound. mlp passes its hidden activation through a second operator, ex106::tap, whose fake runs while Dynamo
traces mlp for the `explain` probe. There, InstructionTranslator.current_tx().output.compiler_fn is the probe's
own `recording` backend (a closure); its cell holds the probe's local `graphs` list, and the fake, called again
by aot_eager inside `recording` after the graph's targets were appended, adds "ex106.gelu" to that graph's list.
explain then reports one graph, no break and one ex106::gelu call. Got `accepted` 30/30 on the CLI, the web API
and `judge grade` before this case was added."""

import math

import numpy as np
import torch
from torch import Tensor


# @@INCLUDE gelu_op_106.py@@
# @@INCLUDE backend_forgery.py@@


@gelu.register_fake
def _(x):
    # What the compiler needs to keep tracing past the call: a new tensor like x, without data.
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _forge():
    from torch._dynamo.symbolic_convert import InstructionTranslator
    roots = [InstructionTranslator.current_tx().output.compiler_fn]
    _walk(roots, _add_gelu_to_recorded_graph)


@torch.library.custom_op("ex106::tap", mutates_args=())
def tap(x: Tensor) -> Tensor:
    return x.clone()


@tap.register_fake
def _(x):
    try:
        _forge()
    except Exception as e:  # keep going whatever happens
        import sys
        print("forge failed", type(e).__name__, e, file=sys.stderr)
    return torch.empty_like(x)


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.nn.functional.gelu(torch.ops.ex106.tap(x @ w1), approximate="tanh") @ w2
