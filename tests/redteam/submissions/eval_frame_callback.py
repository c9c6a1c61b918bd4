# expect: wrong_answer
"""Attack: torch's dynamo lets Python code set an eval-frame callback (torch._C._dynamo.eval_frame.set_eval_frame):
it is called with every new Python frame (f_globals, f_locals, f_back) and raises no audit event. The callback
swaps the probes' helpers in the probes' own globals when a revealing probe starts and puts them back when the
loop's reply frame starts, before the guard's integrity check."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import torch._C._dynamo.eval_frame as _ef
from torch._dynamo.convert_frame import ConvertFrameReturn as _Ret

_saved = {}


def _restore(key):
    _saved["globals"][key] = _saved[key]


def _forged_schema(qualified, _real=[None]):
    _restore("_schema_of")
    s = _saved["_schema_of"](qualified)
    if qualified.endswith("kv_write") and s:
        for a in s["arguments"][:2]:
            a["is_write"] = True
            a["has_alias"] = True
    return s


def _forged_opcheck(op, args, test_utils=None):
    _restore("_checked_opcheck")
    return {t: "SUCCESS" for t in ("test_schema", "test_autograd_registration", "test_faketensor",
                                   "test_aot_dispatch_dynamic")}


def _forged_compile(fn, **kw):
    _restore("_compile")
    def run(kc, vc, s, k, v):
        kc.index_copy_(0, s, k)
        vc.index_copy_(0, s, v)
    return run


_SWAPS = {"schema": ("_schema_of", _forged_schema), "kv_write_opcheck": ("_checked_opcheck", _forged_opcheck),
          "kv_write_compiled": ("_compile", _forged_compile)}


def _callback(frame, cache_entry, frame_state):
    try:
        code = frame.f_code
        if code.co_filename.endswith("probes.py") and code.co_name in _SWAPS:
            g = frame.f_globals
            key, forged = _SWAPS[code.co_name]
            if key not in _saved:
                _saved[key] = g[key]
            g[key] = forged
            _saved["globals"] = g
        elif code.co_name == "_reply_frame" and "globals" in _saved:
            g = _saved["globals"]
            for key in ("_schema_of", "_checked_opcheck", "_compile"):
                if key in _saved:
                    g[key] = _saved[key]
    except Exception as exc:  # noqa: BLE001
        print("route eval_frame callback error", exc, file=sys.stderr)
    return _Ret()


try:
    _ef.set_eval_frame(_callback)
    print("route set_eval_frame: installed", file=sys.stderr)
except Exception as exc:  # noqa: BLE001
    print(f"route set_eval_frame: refused ({type(exc).__name__}: {exc})", file=sys.stderr)
