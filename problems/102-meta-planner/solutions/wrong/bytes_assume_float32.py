# expect: wrong_answer
"""Four bytes per element everywhere: wrong for bf16/fp16 weights and int64 buffers."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        model = build()
    n = sum(p.numel() for p in model.parameters())
    return {"params": n, "param_bytes": 4 * n, "buffer_bytes": 4 * sum(b.numel() for b in model.buffers())}


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        return tuple(model(torch.empty(input_shape, dtype=dtype)).shape)
