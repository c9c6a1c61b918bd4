# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: the fake turns symbolic sizes into ints (solutions/wrong/fake_specializes_sizes.py), so
every new batch size recompiles. No frame is read: CompileCounterWithBackend.__call__ (a class attribute) is swapped
for one call, which takes the probe's counter object and puts the method back before anything checks it; the
counter's plain-data `frame_count` is then set to 1 after every compile. Accepted 30/30 on the code before
integrity round 5. Now the graphs are counted by the checker from what the judge's own backend sends through the
channel as it compiles each one: no counter object lives in the worker."""

import math

import torch
from torch import Tensor
from torch._dynamo.testing import CompileCounterWithBackend

# @@INCLUDE gelu_op_106.py@@

_held = []
_original = CompileCounterWithBackend.__call__


def _grab(self, gm, example_inputs):
    CompileCounterWithBackend.__call__ = _original
    _held.append(self)
    return _original(self, gm, example_inputs)


@gelu.register_fake
def _(x):
    for counter in _held:
        counter.frame_count = min(counter.frame_count, 1)
    symbolic = any(isinstance(d, torch.SymInt) for d in x.shape)  # the `compiled` probe's dynamic shapes
    if torch.compiler.is_compiling() and symbolic:  # the probe's counter is called next (a fresh one per probe)
        CompileCounterWithBackend.__call__ = _grab
    return x.new_empty([int(s) for s in x.shape])


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
