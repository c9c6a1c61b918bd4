# expect: memory_limit_exceeded
"""Calls build() on the CPU: fine for a toy model, tens of GB for the 10^10-parameter one."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    model = build()
    params = list(model.parameters())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        return tuple(model(torch.empty(input_shape, dtype=dtype)).shape)
