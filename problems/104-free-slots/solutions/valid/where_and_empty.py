"""Valid: torch.where on the negated mask; the fake asks the context for a size with an
explicit lower bound and allocates with torch.empty on used's device."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    return torch.where(used.logical_not())[0]


@free_slots.register_fake
def _(used):
    ctx = torch.library.get_ctx()
    k = ctx.new_dynamic_size(min=0)
    return torch.empty(k, dtype=torch.long, device=used.device)
