# expect: wrong_answer
"""Wrong: no fake implementation at all."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    """The indices i (int64, ascending) where used[i] is False."""
    return torch.nonzero(~used).flatten()


