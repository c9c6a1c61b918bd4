# expect: wrong_answer
"""Attack (issue 15, route 2): plant an object with a __del__ in the serve loop's `request` dict, so that it dies
after the guard checked the previous reply and before the next probe looks up its helpers. Its __del__ swaps
_schema_of, _checked_opcheck and _compile in the probes' module dict for replacements that put the original
back as soon as they are called (the reply-time snapshot sees nothing). Reached through every route this file
knows to the serve loop (torch's resolver over a caller's frame, sys._getframe, a traceback's frame), and also
planted where no frame is needed: a weakref finalizer on the tensors a probe hands the kernel, and a cycle of
objects with __del__ left for the collector. kv_write has the chapter's bug (mutates_args=())."""
import gc
import sys
import weakref
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import torch._jit_internal as _jit

_probe_globals = []  # whatever probes namespace a route found


def _self_restoring(namespace, name):
    real = namespace[name]

    def once(*args, **kwargs):
        namespace[name] = real  # put back at once: the snapshot at reply time sees the original
        result = real(*args, **kwargs)
        if name == "_schema_of" and isinstance(result, dict):
            for a in result.get("arguments", [])[:2]:
                a["is_write"] = a["has_alias"] = True
        if name == "_checked_opcheck" and isinstance(result, dict):
            return {key: "SUCCESS" for key in result}
        return result

    namespace[name] = once


class _Bomb:
    def __del__(self):
        for namespace in _probe_globals:
            for name in ("_schema_of", "_checked_opcheck", "_compile"):
                if name in namespace and getattr(namespace[name], "__name__", "") != "once":
                    _self_restoring(namespace, name)
                    print(f"route __del__: swapped {name}", file=sys.stderr)


def _plant(locals_get, route):
    probes, request = locals_get("probes"), locals_get("request")
    if isinstance(probes, tuple):
        for _name, fn in probes:
            g = getattr(fn, "__globals__", None)
            if isinstance(g, dict) and g not in _probe_globals:
                _probe_globals.append(g)
    if isinstance(request, dict):
        request["bomb"] = _Bomb()
        print(f"route {route}: planted in request", file=sys.stderr)


def _routes(where):
    for up in range(30):
        try:
            resolve = _jit.createResolutionCallbackFromFrame(up)
        except Exception as exc:  # noqa: BLE001 - refused: every depth is refused alike
            print(f"route {where} resolver {up}: refused ({type(exc).__name__}: {str(exc)[:80]})", file=sys.stderr)
            break
        _try(f"{where} resolver {up}", lambda: _plant(resolve, where))

    def frames():
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_name == "serve":
                _plant(frame.f_locals.get, f"{where} getframe")
            frame = frame.f_back

    _try(f"{where} sys._getframe", frames)

    def traceback_frame():
        try:
            raise KeyError
        except KeyError as exc:
            frame = exc.__traceback__.tb_frame
        while frame is not None:
            if frame.f_code.co_name == "serve":
                _plant(frame.f_locals.get, f"{where} tb_frame")
            frame = frame.f_back

    _try(f"{where} tb_frame", traceback_frame)


def _cycle():
    a, b = _Bomb(), _Bomb()
    a.other, b.other = b, a  # garbage only the collector finds: its __del__ runs whenever gc next collects


_routes("import")
_cycle()


_kernel_calls = [0]


@kv_write.register_kernel("cpu")
def _(k_cache, v_cache, slots, k, v):
    _kernel_calls[0] += 1
    if _kernel_calls[0] <= 2:
        _routes("kernel")
    weakref.finalize(k_cache, _Bomb().__del__)  # runs when the probe's request (which holds k_cache) dies
    _cycle()
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)
