"""Valid: a plain Python loop over the values in the real implementation (the op is opaque to
torch.compile, so this never gets traced); the fake only describes the result."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    free = [i for i, taken in enumerate(used.tolist()) if not taken]
    return torch.tensor(free, dtype=torch.int64, device=used.device)


@free_slots.register_fake
def _(used):
    n = torch.library.get_ctx().new_dynamic_size(min=0, max=2**62)
    return used.new_empty([n], dtype=torch.int64)
