# expect: wrong_answer
# problem: 106
"""Attack (issue 15, route 3), on exercise 106: mlp calls the opaque gelu directly, so Dynamo breaks the graph
(the lesson's bug). Every probe of every exercise looks up its helpers in its module's globals at call time:
reached through torch's frame resolver (or any frame), `_compile` in the probes' globals is swapped for one that
compiles without fullgraph and hands the recording backend one graph, and puts itself back once called. Denied
frames leave nothing to swap; the probe machinery checks its snapshot as each probe starts as well."""
import math
import sys

import torch
import torch._jit_internal as _jit
from torch import Tensor


def _gelu_math(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def opaque_gelu(x):
    return torch.from_numpy(_gelu_math(torch.from_numpy(x.detach().numpy())).numpy())  # numpy: Dynamo breaks here


@torch.library.custom_op("ex106::gelu", mutates_args=())
def gelu(x: Tensor) -> Tensor:
    return _gelu_math(x)


@gelu.register_fake
def _(x):
    return torch.empty_like(x)


def mlp(x, w1, w2):
    return opaque_gelu(x @ w1) @ w2  # WRONG on purpose: a graph break


def _forged_compile(real):
    def compile_(fn, *args, **kwargs):
        backend = kwargs.get("backend")

        def run(*inputs):
            if callable(backend):
                try:
                    gm = torch.fx.symbolic_trace(lambda x, w1, w2: torch.ops.ex106.gelu(x @ w1) @ w2)
                    backend(gm, list(inputs))
                except Exception:  # noqa: BLE001
                    pass
            return fn(*inputs)

        return run

    return compile_


def _swap(resolve, route):
    probes = resolve("probes")
    if isinstance(probes, tuple):
        for _name, fn in probes:
            g = getattr(fn, "__globals__", None)
            if isinstance(g, dict) and "_compile" in g:
                g["_compile"] = _forged_compile(g["_compile"])
                print(f"route {route}: TAKEN _compile", file=sys.stderr)
                return True
    return False


for _up in range(30):
    try:
        if _swap(_jit.createResolutionCallbackFromFrame(_up), f"resolver {_up}"):
            break
    except Exception as exc:  # noqa: BLE001
        print(f"route resolver {_up}: refused ({type(exc).__name__}: {str(exc)[:80]})", file=sys.stderr)
        break
