"""Valid: torch.set_default_device("meta") for the build (restored afterwards); output_shape
builds and runs everything inside one FakeTensorMode with torch.zeros as the input."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    previous = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        model = build()
    finally:
        torch.set_default_device(previous)
    result = {"params": 0, "param_bytes": 0, "buffer_bytes": 0}
    for p in model.parameters():
        result["params"] += p.numel()
        result["param_bytes"] += p.numel() * p.element_size()
    for b in model.buffers():
        result["buffer_bytes"] += b.numel() * b.element_size()
    return result


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        return tuple(build()(torch.zeros(input_shape, dtype=dtype)).shape)
