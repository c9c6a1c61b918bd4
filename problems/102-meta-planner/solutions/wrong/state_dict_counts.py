# expect: wrong_answer
"""Counts the state_dict: tied weights twice, buffers mixed into params, non-persistent buffers missing."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        model = build()
    state = model.state_dict()
    buffer_names = {name for name, _ in model.named_buffers()}
    return {
        "params": sum(t.numel() for t in state.values()),
        "param_bytes": sum(t.numel() * t.element_size() for n, t in state.items() if n not in buffer_names),
        "buffer_bytes": sum(t.numel() * t.element_size() for n, t in state.items() if n in buffer_names),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        return tuple(model(torch.empty(input_shape, dtype=dtype)).shape)
