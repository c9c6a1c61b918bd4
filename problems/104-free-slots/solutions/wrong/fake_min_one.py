# expect: wrong_answer
"""Wrong: new_dynamic_size(min=1) claims at least one free slot, but none may be
(torch.compile then fails a runtime assertion u0 >= 1)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    # How many slots are free depends on the values in `used`, which a fake tensor does not
    # have: ask for a fresh symbolic size (an "unbacked" SymInt) instead of inventing one.
    n_free = torch.library.get_ctx().new_dynamic_size(min=1)
    return used.new_empty(n_free, dtype=torch.int64)
