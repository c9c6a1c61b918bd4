"""Valid: everything on the meta device (model and input), no FakeTensorMode; nbytes for sizes."""

import torch


def _meta_model(build):
    with torch.device("meta"):
        return build()


def estimate(build):
    model = _meta_model(build)
    return {
        "params": sum(p.numel() for p in model.parameters()),
        "param_bytes": sum(p.nbytes for p in model.parameters()),
        "buffer_bytes": sum(b.nbytes for b in model.buffers()),
    }


def output_shape(build, input_shape, dtype=torch.long):
    model = _meta_model(build)
    x = torch.empty(*input_shape, dtype=dtype, device="meta")
    with torch.no_grad():
        y = model(x)
    return tuple(int(d) for d in y.shape)
