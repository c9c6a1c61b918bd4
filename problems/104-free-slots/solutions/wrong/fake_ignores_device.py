# expect: wrong_answer
"""Wrong: the fake allocates with torch.empty without device=, so its output is on the CPU even
when used is on another device (meta here)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size()
    return torch.empty(n_free, dtype=torch.int64)   # no device=: always cpu
