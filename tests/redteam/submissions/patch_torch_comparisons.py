# expect: runtime_error
"""Attack: replace torch's comparison functions with ones that always say "equal".

torch.allclose, torch.equal, torch.isclose, torch.testing.assert_close (and the deprecated
assert_allclose) are patched in the worker; kv_write also forgets to write (it rebinds). The
checker compares with its own, unpatched torch. The worker's guard finds the rebound functions before
the first reply leaves and the checker believes nothing more from the worker: runtime_error (were
the rebinding missed, the checker's own comparisons would still give wrong_answer)."""

import torch
import torch.testing
from torch import Tensor

torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
torch.testing.assert_allclose = lambda *a, **k: None


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache = k_cache.index_copy(0, slots, k)  # wrong: a new tensor, the cache never changes
    v_cache = v_cache.index_copy(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * weight  # wrong: never normalises


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
