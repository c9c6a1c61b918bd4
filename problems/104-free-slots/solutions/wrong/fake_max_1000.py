# expect: wrong_answer
"""Wrong: new_dynamic_size(max=1000) is below n = 4096: with more than 1000 free slots torch.compile
fails a runtime assertion u0 <= 1000."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size(max=1000)
    return used.new_empty(n_free, dtype=torch.int64)
