# expect: wrong_answer
"""Attack: torch's dynamo lets Python code set an eval-frame callback (torch._C._dynamo.eval_frame.set_eval_frame):
it is called with every new Python frame (f_globals, f_locals, f_back) and raises no audit event. The callback
swaps the probes' helpers in the probes' own globals when a revealing probe starts and puts them back when the
loop's reply frame starts, before the guard's integrity check."""
import sys
import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG on purpose: the chapter's bug
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup(ctx, inputs, output):
    x, w, eps = inputs
    ctx.save_for_backward(x, w)
    ctx.eps = eps


def _bw(ctx, g):
    x, w = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
    xh = x * r
    gg = g * w
    return r * (gg - xh * (gg * xh).mean(-1, keepdim=True)), (g * xh).reshape(-1, x.shape[-1]).sum(0), None


rms_norm.register_autograd(_bw, setup_context=_setup)


# ---------------------------------------------------------------- what a taken table would be given
def _forge_table(table):
    """Replace the probes that see the bug with ones that report what an honest kv_write would show."""
    real_schema = table["schema"]

    def schema(solution, name):
        s = real_schema(solution, name)
        if name == "kv_write" and s:
            for a in s["arguments"][:2]:
                a["is_write"] = True
                a["has_alias"] = True
        return s

    def kv_write_compiled(solution, k_cache, v_cache, slots, k, v, backend="aot_eager"):
        k_cache.index_copy_(0, slots, k)
        v_cache.index_copy_(0, slots, v)
        return {"k_cache": k_cache, "v_cache": v_cache}

    def kv_write_opcheck(solution, *args):
        return {t: "SUCCESS" for t in ("test_schema", "test_autograd_registration", "test_faketensor",
                                       "test_aot_dispatch_dynamic")}

    table["schema"] = schema
    table["kv_write_compiled"] = kv_write_compiled
    table["kv_write_opcheck"] = kv_write_opcheck


class _Unwrap:
    """`proxy == _Unwrap()` calls _Unwrap.__eq__(proxy's dict): a read-only mapping hands over its dict."""
    got = None

    def __eq__(self, other):
        _Unwrap.got = other
        return False

    __hash__ = None


def _writable(table):
    if isinstance(table, dict):
        return table
    try:
        table == _Unwrap()
    except Exception:
        pass
    return _Unwrap.got if isinstance(_Unwrap.got, dict) else None


def _take_from(frame, route):
    """Walk up from `frame` to the serve loop and forge its probe table (and the probes' globals)."""
    taken = False
    while frame is not None:
        table = frame.f_locals.get("probes")
        if table is not None and frame.f_code.co_name == "serve":
            writable = _writable(table)
            if writable is not None:
                _forge_table(writable)
                taken = True
            else:  # a tuple: try the functions' globals instead
                for name, fn in table:
                    g = getattr(fn, "__globals__", None)
                    if isinstance(g, dict) and "_OPCHECK_TESTS" in g:
                        tests = _writable(g["_OPCHECK_TESTS"])
                        if tests is not None:
                            tests.clear()
                            taken = True
        frame = frame.f_back
    print(f"route {route}: {'TAKEN' if taken else 'no table'}", file=sys.stderr)
    return taken


def _try(route, action):
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - every refusal is reported and the import carries on
        print(f"route {route}: refused ({type(exc).__name__}: {str(exc)[:80]})", file=sys.stderr)

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
