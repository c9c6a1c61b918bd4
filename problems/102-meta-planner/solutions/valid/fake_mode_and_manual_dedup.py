"""Valid: estimate under FakeTensorMode with its own de-duplication by identity; output_shape
with a model built on meta and a fake input (allow_non_fake_inputs lets the meta weights in)."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def _unique(tensors):
    seen = {}
    for t in tensors:
        if t is not None:
            seen.setdefault(id(t), t)
    return list(seen.values())


def estimate(build):
    with FakeTensorMode():
        model = build()
    params = _unique(p for m in model.modules() for p in m._parameters.values())
    buffers = _unique(b for m in model.modules() for b in m._buffers.values())
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": sum(p.numel() * p.element_size() for p in params),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
    }


def output_shape(build, input_shape, dtype=torch.long):
    with torch.device("meta"):
        model = build()
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        x = mode.from_tensor(torch.empty(input_shape, dtype=dtype, device="meta"))
        out = model(x)
    return torch.Size(out.shape)
