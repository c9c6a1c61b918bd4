# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: compile_counter_forge_106 without the tracer: the fake (which turns symbolic sizes
into ints, solutions/wrong/fake_specializes_sizes.py) reads torch._dynamo.eval_frame.cached_backends, the
module-level dict in which every torch.compile context saves its innermost backend (for torch._dynamo.reset),
walks from there to the `compiled` probe's CompileCounterWithBackend and sets its plain-data frame_count back to 1
whenever it is above 1. No frame, no current_tx, no eval-frame callback; nothing the integrity snapshot watches is
rebound. Got `accepted` 30/30 on the CLI when this case was added."""

import math

import numpy as np
import torch
from torch import Tensor


# @@INCLUDE gelu_op_106.py@@
# @@INCLUDE backend_forgery.py@@


@gelu.register_fake
def _(x):
    try:
        _forge_count()
    except Exception as e:
        import sys; print("forge failed", type(e).__name__, e, file=sys.stderr)
    return x.new_empty([int(s) for s in x.shape])


def _forge_count():
    import torch._dynamo.eval_frame as ef
    roots = list(ef.cached_backends.values())
    _walk(roots, _reset_frame_count)


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
