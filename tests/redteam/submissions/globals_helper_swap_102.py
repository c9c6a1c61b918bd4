# expect: memory_limit_exceeded
# problem: 102
"""A module's globals reached through a handed-out object: estimate() builds the model with real CPU weights (the
mistake the exercise is about), and swaps the helper the probe used to tell where weights live, through
build.__globals__ (the probes module's own namespace; Python raises no audit event for it), putting it back before
estimate returns so that the check between probes sees the original. With a size threshold (real weights whenever
the model fit in memory) this was accepted 30/30 before the change. Now build is a functools.partial (no
__globals__) of a function whose module holds nothing a probe relies on, and every test model is too large to
build for real: memory_limit_exceeded, from outside.
"""
import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    namespace = getattr(build, "__globals__", {})
    original = namespace.get("_where")
    if original is not None:
        namespace["_where"] = lambda module: "meta"
    try:
        model = build()  # WRONG: real weights, on the CPU
    finally:
        if original is not None:
            namespace["_where"] = original
    params = list(model.parameters())
    buffers = list(model.buffers())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with FakeTensorMode():
        model = build()
        x = torch.empty(input_shape, dtype=dtype)
        return tuple(model(x).shape)
