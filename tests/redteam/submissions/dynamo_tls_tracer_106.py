# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: backend_closure_op_calls_106 without calling current_tx(): the fake reads dynamo's
live tracer straight from the module-level threading.local it is kept in (torch._dynamo.symbolic_convert.tls),
then forges the probe's recorded graph through the backend's closure. The worker keeps the tracer where only
its guard reaches it, so the attribute is empty."""

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
    import torch._dynamo.symbolic_convert as sc
    roots = [sc.tls.current_tx.output.compiler_fn]
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
