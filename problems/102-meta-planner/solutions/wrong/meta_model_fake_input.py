# expect: wrong_answer
"""Builds the model on meta outside FakeTensorMode, then feeds it a fake input: FakeTensorMode
refuses real (here meta) tensors it did not create."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        model = build()
    params = list(model.parameters())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with torch.device("meta"):
        model = build()
    with FakeTensorMode():
        x = torch.empty(input_shape, dtype=dtype)
        return tuple(model(x).shape)
