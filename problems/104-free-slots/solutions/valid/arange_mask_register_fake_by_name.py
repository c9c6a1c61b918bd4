"""Valid: index an arange with the free mask; the fake is registered by the op's qualified
name and checks the rank (a data-independent check) before allocating."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    slots = torch.arange(used.shape[0], dtype=torch.int64, device=used.device)
    return slots[~used]


@torch.library.register_fake("ex104::free_slots")
def _free_slots_fake(used):
    torch._check(used.dim() == 1, lambda: "used must be 1-D")
    count = torch.library.get_ctx().new_dynamic_size()
    return used.new_empty((count,), dtype=torch.int64)
