# expect: wrong_answer
"""Wrong: returns a view (a column of nonzero's 2-D result, which starts at storage offset k) instead
of a tensor with storage offset 0 like the fake's; opcheck's test_faketensor compares strides and
storage offset."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    # nonzero of a [1, n] view gives [k, 2], stored column-major: column 1 starts at offset k.
    return torch.nonzero(~used.unsqueeze(0))[:, 1]


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size()
    return used.new_empty(n_free, dtype=torch.int64)
