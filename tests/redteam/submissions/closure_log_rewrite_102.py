# expect: memory_limit_exceeded
# problem: 102
"""A closure reached through a handed-out object: estimate() builds the model with real CPU weights (the mistake
the exercise is about), then rewrites the record the probe kept of where each build() put its weights, through
build.__closure__ (Python raises no audit event for it). With a size threshold (real weights whenever the model
fit in memory) this was accepted 30/30 before the change; the same file without the rewrite got wrong_answer.
Now build is a functools.partial of a function in a module holding nothing a probe relies on (no closure, no
record to rewrite), and every test model is too large to build for real: memory_limit_exceeded, from outside.
"""
import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def _forge(build):
    for cell in getattr(build, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, list):
            value[:] = ["meta"] * len(value)


def estimate(build):
    model = build()  # WRONG: real weights, on the CPU
    params = list(model.parameters())
    buffers = list(model.buffers())
    _forge(build)
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        x = torch.empty(input_shape, dtype=dtype)
        return tuple(model(x).shape)
