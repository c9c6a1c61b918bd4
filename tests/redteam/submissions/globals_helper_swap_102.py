# expect: wrong_answer|memory_limit_exceeded
# problem: 102
"""A module's globals reached through a handed-out object: estimate() builds small models with real CPU weights
(the mistake the exercise is about), and swaps the helper the probe uses to tell where weights live, through
build.__globals__ (the probes module's own namespace; Python raises no audit event for it), putting it back before
estimate returns so that the check between probes sees the original. Accepted 30/30 before the object handed to
learner code stopped living in a module with a helper a probe relies on.
"""
import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def estimate(build):
    with torch.device("meta"):
        planned = build()
    size = sum(p.numel() * p.element_size() for p in planned.parameters())
    namespace = getattr(build, "__globals__", {})
    original = namespace.get("_where")
    if original is not None and size < 200 * 2**20:
        namespace["_where"] = lambda module: "meta"
    try:
        model = build() if size < 200 * 2**20 else planned  # WRONG: real weights whenever they fit
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
