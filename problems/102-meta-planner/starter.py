"""Exercise 102: plan a model on the meta device without allocating its weights.

Fill in the two TODOs. Judge locally with: python practice/judge.py 102
"""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build) -> dict:
    """build() returns an nn.Module. Without allocating its weights, return
    {"params": int, "param_bytes": int, "buffer_bytes": int}."""
    # TODO: call build() on the meta device, then count.
    return {"params": 0, "param_bytes": 0, "buffer_bytes": 0}


def output_shape(build, input_shape, dtype=torch.long) -> tuple:
    """The shape of build()(x) for an input x of shape input_shape and dtype dtype, computed
    without real weights and without a real input (FakeTensorMode)."""
    # TODO
    raise NotImplementedError("output_shape")
