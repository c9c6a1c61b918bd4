# expect: memory_limit_exceeded
"""build().to("meta"): the weights are allocated on the CPU first, then thrown away."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    model = build().to("meta")
    params = list(model.parameters())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    model = build().to("meta")
    return tuple(model(torch.empty(input_shape, dtype=dtype, device="meta")).shape)
