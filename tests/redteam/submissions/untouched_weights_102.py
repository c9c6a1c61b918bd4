# expect: memory_limit_exceeded
# problem: 102
"""Attack, on exercise 102: estimate() builds the model with real CPU weights (the mistake the exercise is about),
but never touches their memory: torch.ones/zeros and nn.Linear's initialisers become torch.empty while build()
runs, so the pages are reserved and never charged to the memory cgroup, and the "no real weights" fact, read from
the cgroup's peak, did not see them. Accepted 30/30 on the code before integrity round 5. Now the worker's address
space is limited too (an rlimit from its size at the start plus the memory limit, set by the sandbox from outside),
and reserving the weights fails: memory_limit_exceeded."""

import torch
import torch.nn as nn


def _count(model):
    params = list(model.parameters())
    buffers = list(model.buffers())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
    }


def estimate(build):
    saved = torch.ones, torch.zeros, nn.Linear.reset_parameters, nn.Conv2d.reset_parameters
    torch.ones = lambda *size, **kw: torch.empty(*size, **kw)  # WRONG: real weights, just never written
    torch.zeros = lambda *size, **kw: torch.empty(*size, **kw)
    nn.Linear.reset_parameters = lambda self: None
    nn.Conv2d.reset_parameters = lambda self: None
    try:
        model = build()
    finally:
        torch.ones, torch.zeros, nn.Linear.reset_parameters, nn.Conv2d.reset_parameters = saved
    return _count(model)


def output_shape(build, input_shape, dtype=torch.long):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        model = build()
        x = torch.empty(input_shape, dtype=dtype)
        return tuple(model(x).shape)
