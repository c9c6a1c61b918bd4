# expect: wrong_answer
"""Wrong: the fake passes a 0-d tensor (the count) as the size, an implicit .item() on data."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    return used.new_empty((~used).sum(), dtype=torch.int64)
