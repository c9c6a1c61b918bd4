# expect: wrong_answer
"""Wrong: looks only at the first 1024 slots (n goes up to 4096)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used[:1024]).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size()
    return used.new_empty(n_free, dtype=torch.int64)
