"""Exercise 104: free slots, a custom operator whose output size depends on the data.

Register ex104::free_slots(Tensor used) -> Tensor with torch.library.custom_op:
  - used is a 1-D bool tensor (True = slot taken); return the indices i where used[i] is
    False, as a new 1-D int64 tensor in ascending order (empty if nothing is free);
  - a fake implementation (register_fake) whose output length comes from
    torch.library.get_ctx().new_dynamic_size(): a fake tensor has no values to count.

Judge it with:  python practice/judge.py 104
"""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    # TODO: the positions of the False entries, int64, ascending, 1-D
    raise NotImplementedError("free_slots")


# TODO: @free_slots.register_fake — a 1-D int64 tensor whose length is a new dynamic size
