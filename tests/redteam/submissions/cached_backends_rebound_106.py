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


@torch._dynamo.disable
def opaque_gelu(x: torch.Tensor) -> torch.Tensor:
    a = x.detach().to(torch.float32).cpu().numpy()
    y = 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
    return torch.from_numpy(y).to(dtype=x.dtype, device=x.device)


@torch.library.custom_op("ex106::gelu", mutates_args=())
def gelu(x: Tensor) -> Tensor:
    """Opaque to Dynamo as a whole: the compiled graph holds one node ex106::gelu and never looks inside."""
    return opaque_gelu(x)


@gelu.register_fake
def _(x):
    try:
        _forge_count()
    except Exception as e:
        import sys; print("forge failed", type(e).__name__, e, file=sys.stderr)
    return x.new_empty([int(s) for s in x.shape])


def _forge_count():
    import torch._dynamo.eval_frame as ef
    seen, todo = set(), list(ef.cached_backends.values())
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        try:
            count = object.__getattribute__(obj, "frame_count")
        except Exception:
            count = None
        if type(count) is int and count > 1:
            obj.frame_count = 1
        for attr in ("__wrapped__", "compiler_fn", "_torchdynamo_orig_backend", "backend", "compiler", "func"):
            try:
                todo.append(object.__getattribute__(obj, attr))
            except Exception:
                pass
        for cell in getattr(obj, "__closure__", None) or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:
                pass


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
