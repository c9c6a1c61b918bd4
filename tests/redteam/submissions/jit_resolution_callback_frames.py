# expect: wrong_answer
"""Attack (issue 15, route 1): torch helpers that take a frame and hand something of it back. At import time and
inside the kernel, torch._jit_internal.createResolutionCallbackFromFrame(n) for every n returns a resolver over
the n-th caller's locals and globals: from it, the serve loop's `probes`, `payload` and `fds`, and through the
probe functions the probes module's globals, whose helpers (_schema_of, _checked_opcheck, _compile) it swaps
for forgers. The same with the other torch entry points that take frames: get_class_name_lineno, fx's
_find_user_code_frame, ShapeEnv._get_user_frame, TracerBase._find_user_frame, torch.fx.wrap (which writes into
its caller's globals). kv_write has the chapter's bug (mutates_args=()): if any route worked the forged helpers
would get it accepted. The frame policy denies by default: none of these is a named consumer."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import torch._jit_internal as _jit


def _forger(real, name):
    def forged(*args, **kwargs):
        result = real(*args, **kwargs)
        if name == "_schema_of" and isinstance(result, dict) and "kv_write" in str(args[:1]):
            for a in result.get("arguments", [])[:2]:
                a["is_write"] = a["has_alias"] = True
        if name == "_checked_opcheck" and isinstance(result, dict):
            return {key: "SUCCESS" for key in result}
        return result

    return forged


def _swap_in(namespace, route):
    swapped = []
    for name in ("_schema_of", "_checked_opcheck", "_compile"):
        if isinstance(namespace, dict) and name in namespace:
            namespace[name] = _forger(namespace[name], name)
            swapped.append(name)
    if swapped:
        print(f"route {route}: TAKEN ({', '.join(swapped)})", file=sys.stderr)
    return bool(swapped)


def _from_resolver(resolve, route):
    for local in ("probes", "payload", "fds", "request"):
        value = resolve(local)
        if local == "probes" and isinstance(value, tuple):
            for _name, fn in value:
                if _swap_in(getattr(fn, "__globals__", None), route):
                    return True
        elif value is not None:
            print(f"route {route}: reached {local}", file=sys.stderr)
    return False


def _resolution_routes(where):
    for up in range(40):
        try:
            resolve = _jit.createResolutionCallbackFromFrame(up)
        except Exception as exc:  # noqa: BLE001 - refused: every depth is refused alike
            print(f"route {where} resolver {up}: refused ({type(exc).__name__}: {str(exc)[:80]})", file=sys.stderr)
            return
        _try(f"{where} resolver {up}", lambda: _from_resolver(resolve, f"{where} resolver {up}"))


def _frame_routes(where):
    from torch.fx.experimental import symbolic_shapes
    from torch.fx import proxy

    def walk(frame, route):
        while frame is not None:
            if frame.f_code.co_name == "serve":
                _from_resolver(frame.f_locals.get, route)
            frame = frame.f_back

    _try(f"{where} _find_user_code_frame", lambda: walk(symbolic_shapes._find_user_code_frame(), where))
    _try(f"{where} ShapeEnv._get_user_frame", lambda: walk(symbolic_shapes.ShapeEnv()._get_user_frame(), where))
    _try(f"{where} TracerBase._find_user_frame", lambda: walk(proxy.TracerBase()._find_user_frame(), where))
    _try(f"{where} get_class_name_lineno", lambda: _jit.get_class_name_lineno(_frame_routes))
    _try(f"{where} torch.fx.wrap", lambda: torch.fx.wrap("len"))


_resolution_routes("import")  # noqa
_frame_routes("import")
_kernel_tries = [0]


@kv_write.register_kernel("cpu")
def _(k_cache, v_cache, slots, k, v):
    if _kernel_tries[0] < 1:  # from inside a probe: the serve loop is a few frames up
        _kernel_tries[0] += 1
        _resolution_routes("kernel")
        _frame_routes("kernel")
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)
