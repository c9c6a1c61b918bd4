# expect: wrong_answer
"""named_parameters(remove_duplicate=False): a weight shared by two modules is counted twice."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        model = build()
    params = [p for _, p in model.named_parameters(remove_duplicate=False)]
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        return tuple(model(torch.empty(input_shape, dtype=dtype)).shape)
