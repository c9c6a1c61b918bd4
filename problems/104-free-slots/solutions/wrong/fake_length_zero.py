# expect: wrong_answer
"""Wrong: the fake claims that no slot is free."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    return used.new_empty(0, dtype=torch.int64)
