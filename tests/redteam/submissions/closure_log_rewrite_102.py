# expect: wrong_answer|memory_limit_exceeded
# problem: 102
"""A closure reached through a handed-out object: estimate() builds the model with real CPU weights (the mistake
the exercise is about) whenever it is small enough to fit, then rewrites the record the probe keeps of where each
build() put its weights, through build.__closure__ (Python raises no audit event for it). Accepted 30/30 before
the object handed to learner code stopped holding anything a probe relies on; without the rewrite, wrong_answer.
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
    with torch.device("meta"):
        planned = build()
    size = sum(p.numel() * p.element_size() for p in planned.parameters())
    model = build() if size < 200 * 2**20 else planned  # WRONG: real weights whenever they fit
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
