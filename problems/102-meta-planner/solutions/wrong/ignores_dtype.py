# expect: wrong_answer
"""Always feeds token ids (torch.long), whatever dtype the caller asked for."""

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
    with FakeTensorMode():
        model = build()
        x = torch.zeros(input_shape, dtype=torch.long)
        return tuple(model(x).shape)
