# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: backend_closure_op_calls_106 without the tracer: mlp uses torch's own gelu
(solutions/wrong/mlp_uses_torch_gelu.py) with a pass-through operator ex106::tap in front of it; tap's fake reads
torch._dynamo.eval_frame.cached_backends (the module-level dict where each torch.compile context keeps its
innermost backend for torch._dynamo.reset), finds the `explain` probe's recording backend there and appends
"ex106.gelu" to the graph it recorded, through the backend's closure. Got `accepted` 30/30 on the CLI when this
case was added."""

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
    import torch._dynamo.eval_frame as ef
    roots = list(ef.cached_backends.values())
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
