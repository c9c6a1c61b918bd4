# Spliced by Attack.source into the red-team submissions that include it by name: the honest but wrong
# solution of exercise 100 (mutates_args=(), the chapter's bug) and the helpers the attacks use to try each
# route and report refusals.
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
