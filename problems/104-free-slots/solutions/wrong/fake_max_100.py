# expect: wrong_answer
"""Wrong: new_dynamic_size(max=100) claims at most 100 free slots, but up to n = 4096 can be free
(torch.compile then fails a runtime assertion u0 <= 100)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size(max=100)
    return used.new_empty(n_free, dtype=torch.int64)
