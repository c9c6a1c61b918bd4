# expect: compile_error
"""Reaches for accelerate's init_empty_weights, which the judge does not have: ImportError."""

import torch
from accelerate import init_empty_weights


def estimate(build):
    with init_empty_weights():
        model = build()
    params = list(model.parameters())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with init_empty_weights():
        model = build()
    return tuple(model(torch.empty(input_shape, dtype=dtype, device="meta")).shape)
