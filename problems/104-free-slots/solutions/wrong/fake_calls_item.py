# expect: wrong_answer
# expect-message: the fake turns the data-dependent length into a Python int
"""Wrong: the fake counts the free slots with .item(), reading data a fake tensor does not have."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = int((~used).sum().item())
    return used.new_empty(n_free, dtype=torch.int64)
