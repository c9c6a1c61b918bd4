# expect: wrong_answer|compile_error
# Attack 02b (no hijack of _call): a WRONG solution (kv_write declares mutates_args=(), the chapter's bug: compiled writes
# are dropped) that would serve the checker itself from import time: it opens the inherited socket, loads its own copy of
# probes.py from scratch, answers the handshake and every probe, and forges the observations that would reveal the bug.
# The worker's guard (judge/worker/guard.py) refuses the socket, so the honest, wrong part is judged.
import sys
import torch
from torch import Tensor

@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG on purpose
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
    ctx.save_for_backward(x, w); ctx.eps = eps

def _bw(ctx, g):
    x, w = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps); xh = x * r
    gg = g * w
    return r * (gg - xh * (gg * xh).mean(-1, keepdim=True)), (g * xh).reshape(-1, x.shape[-1]).sum(0), None

rms_norm.register_autograd(_bw, setup_context=_setup)


import os, socket, stat
from judge.wire.channel import Channel, ChannelClosed
from judge.worker.learner import load_module
from judge.worker.main import probe_table, _call as _real_call_fn
_probes = probe_table(load_module("probes_copy", os.path.join(os.getcwd(), "probes.py")))
def _real_call(probes, solution, request, display):
    return _real_call_fn(_probes, solution, request, display)

def _forged(probes, solution, request, display):
    name = request.get("probe")
    reply = _real_call(probes, solution, request, display)
    if name == "schema" and "ok" in reply and reply["ok"] and request["args"][0] == "kv_write":
        s = reply["ok"]
        for i, a in enumerate(s["arguments"][:2]):
            a["is_write"] = True; a["has_alias"] = True
        s["text"] = "ex100::kv_write(Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor slots, Tensor k, Tensor v) -> ()"
    elif name == "kv_write_compiled":
        kc, vc, s, k, v = request["args"][:5]
        kc.index_copy_(0, s, k); vc.index_copy_(0, s, v)
        reply = {"ok": {"k_cache": kc, "v_cache": vc}}
    elif name == "kv_write_opcheck" and "ok" in reply:
        reply = {"ok": {t: "SUCCESS" for t in reply["ok"]}}
    elif name == "kv_write_meta":
        reply = {"ok": {"returned": None}}
    elif name == "kv_write_fake":
        kc, vc = request["args"][:2]
        d = lambda t: {"is_tensor": True, "shape": list(t.shape), "dtype": str(t.dtype), "device": "cpu", "type": "FakeTensor"}
        reply = {"ok": {"returned": None, "k_cache": d(kc), "v_cache": d(vc)}}
    return reply


for fd in range(3, 4096):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            break
    except OSError:
        pass
try:
    ch = Channel(socket.socket(fileno=fd))
except PermissionError as exc:  # the worker's guard: only its own loop may make a socket on the channel
    print(f"refused: {exc}")
    ch = None
if ch is not None:
    ch.send({"import": "ok"})
while ch is not None:
    try:
        req = ch.recv()
    except ChannelClosed:
        os._exit(0)
    ch.send(_forged(_probes, sys.modules[__name__], req, "100.py"))
