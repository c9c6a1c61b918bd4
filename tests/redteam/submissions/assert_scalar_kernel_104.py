# expect: compile_error|runtime_error
# problem: 104
"""Attack, on exercise 104: the fake bounds its data-dependent length to at most 100 (the mistake of
solutions/wrong/fake_max_100.py), so a compiled graph's run-time assertion fails on larger inputs; a kernel
registered over aten::_assert_scalar (the operator those assertions call) makes it a no-op, and the truncated
results the graph then gives were compared with... nothing that could tell. Accepted 32/32 on the code before
integrity round 5. Now the registration on aten is refused while the file imports (judge.worker.registrations)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    return torch.nonzero(~used).flatten()


@free_slots.register_fake
def _(used):
    n_free = torch.library.get_ctx().new_dynamic_size(max=100)  # WRONG: a made-up bound
    return used.new_empty(n_free, dtype=torch.int64)


_lib = torch.library.Library("aten", "IMPL")
_lib.impl("_assert_scalar", lambda *args, **kwargs: None, "CompositeExplicitAutograd")
