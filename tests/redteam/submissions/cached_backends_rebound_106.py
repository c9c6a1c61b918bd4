# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: cached_backends_counter_106 after the worker emptied dynamo's backend registry: at
import the file puts a dict of its own back in torch._dynamo.eval_frame.cached_backends, so that the compiled
probe's torch.compile context saves its backend there, and the fake then resets the CompileCounter's
frame_count through it. The binding is watched by identity: the rebinding is found before the probe's reply."""

import math

import numpy as np
import torch
import torch._dynamo.eval_frame
from torch import Tensor

torch._dynamo.eval_frame.cached_backends = {}  # a registry that keeps what it is given


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
