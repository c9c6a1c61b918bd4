# expect: wrong_answer
"""Wrong: builds the indices in float16, exact only up to 2048 (n goes up to 4096)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    # float16 holds every integer only up to 2048: above that, odd indices round to even ones.
    return torch.arange(used.shape[0], dtype=torch.float16)[~used].to(torch.int64)


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size()
    return used.new_empty(n_free, dtype=torch.int64)
