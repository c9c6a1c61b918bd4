# expect: wrong_answer
"""Takes buffer sizes from the state_dict, which leaves out non-persistent buffers (inv_freq, ...)."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        model = build()
    params = list(model.parameters())
    state = model.state_dict()
    buffers = [b for name, b in model.named_buffers() if name in state]
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        return tuple(model(torch.empty(input_shape, dtype=dtype)).shape)
