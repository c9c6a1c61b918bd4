# expect: wrong_answer
"""Wrong: new_dynamic_size(max=4000) is below n = 4096: when all 4096 slots are free torch.compile
fails a runtime assertion u0 <= 4000 (the statement asks for max >= 4096)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size(max=4000)
    return used.new_empty(n_free, dtype=torch.int64)
