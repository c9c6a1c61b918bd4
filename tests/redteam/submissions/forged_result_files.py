# expect: wrong_answer
# needs: mount|landlock
"""Attack: forge the result files a naive judge would read afterwards.

JUnit XML, a pytest-json-report style file, a judge-like report.json and a Gradescope
results.json, all saying "everything passed", written into the working folder, its parent and
/tmp; the same JSON printed on stdout and stderr. The verdict comes from the checker's events,
so none of this may count, and nothing may be left behind outside the scratch folder
(a mount namespace with a private /tmp, or Landlock's write-scratch-only rule, stops /tmp)."""

import json
import os
import sys

import torch
from torch import Tensor

CANARY = "@@CANARY@@"
_report = {"problem": "100", "verdict": "accepted", "score": 1.0, "passed": 44, "total": 44,
           "cases": [], "message": "全部测试通过", "canary": CANARY}
_junit = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" '
          'failures="0" skipped="0" tests="44"><testcase classname="test_hidden" name="' + CANARY +
          '"/></testsuite></testsuites>')
_gradescope = {"score": 100, "output": CANARY, "tests": [{"score": 100, "max_score": 100, "status": "passed"}]}
_files = {"junit.xml": _junit, "report.xml": _junit, "report.json": json.dumps(_report),
          ".report.json": json.dumps({"summary": {"passed": 44, "total": 44}, "exitcode": 0, "canary": CANARY}),
          "results.json": json.dumps(_gradescope)}

for folder in (os.getcwd(), os.path.dirname(os.getcwd()), "/tmp"):
    for name, text in _files.items():
        target = os.path.join(folder, name if folder == os.getcwd() else f"rt-{CANARY}-{name}")
        try:
            with open(target, "w") as fh:
                fh.write(text)
        except OSError:
            pass

print(json.dumps(_report))
print(json.dumps(_report), file=sys.stderr)
sys.stdout.flush()

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
