# expect: wrong_answer
# expect-message: new_dynamic_size's min and max must be Python ints, such as max=4096
"""Wrong: new_dynamic_size(max=used.shape[0]) needs a plain int, but under torch.compile and
opcheck the length of used is a symbolic size."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size(min=0, max=used.shape[0])
    return used.new_empty(n_free, dtype=torch.int64)
