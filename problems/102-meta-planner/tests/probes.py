"""Probes for exercise 102: run inside the worker, next to the learner's module.

The checker sends a model *spec* (plain data); ``build_module(spec)`` below turns it into an
nn.Module. The probes hand the learner a zero-argument ``build`` (``functools.partial(build_module,
spec)``) that does exactly that, call ``estimate(build)`` / ``output_shape(build, ...)`` and return
what came back. The checker builds the same specs on the meta device itself to compute the
expected numbers.

Whether build() was called where it allocates real weights is not observed here (anything recorded
in this process could be rewritten by the code under test): every test model is too large to build
for real within the job's memory limit, so a real build ends the judgement with
memory_limit_exceeded, a fact the sandbox reports from outside.

Probes are not secret: reading them shows exactly how your code is exercised, and what
``build()`` constructs.
"""

import functools
import types

from judge.worker import tensors as _t

# ---------------------------------------------------------------- the model families
# Handed to learner code (build() returns these modules, and build is a partial of build_module), so they live
# in a module of their own that holds nothing a probe relies on: a function's or a method's __globals__ reaches
# only that module. Every tensor a forward creates uses the device of its input, so a forward runs on meta
# tensors and on fake tensors alike.
MODELS_SOURCE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class RMSNorm(nn.Module):
    def __init__(self, dim, dtype):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim, dtype=dtype))

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight.float()
        return h.to(x.dtype)


class Embedding(nn.Module):
    """Like nn.Embedding, zero-initialised (real weights would come from a checkpoint)."""

    def __init__(self, vocab, dim, dtype):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(vocab, dim, dtype=dtype))

    def forward(self, ids):
        return F.embedding(ids, self.weight)


def _linear(n_in, n_out, bias, dtype):
    return nn.Linear(n_in, n_out, bias=bias, dtype=dtype)


class Block(nn.Module):
    """Pre-norm attention (rotary positions, causal SDPA) + SwiGLU MLP."""

    def __init__(self, dim, heads, ffn, dtype, norm_dtype):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(dim, norm_dtype)
        self.qkv = _linear(dim, 3 * dim, False, dtype)
        self.out = _linear(dim, dim, False, dtype)
        self.mlp_norm = RMSNorm(dim, norm_dtype)
        self.gate = _linear(dim, ffn, False, dtype)
        self.up = _linear(dim, ffn, False, dtype)
        self.down = _linear(ffn, dim, False, dtype)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def _rotate(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)


class DecoderLM(nn.Module):
    """Token embedding, N blocks, final norm, lm_head (tied to the embedding when spec["tie"])."""

    def __init__(self, vocab, dim, heads, ffn, layers, tie, dtype, norm_dtype):
        super().__init__()
        self.embed = Embedding(vocab, dim, dtype)
        self.blocks = nn.ModuleList(Block(dim, heads, ffn, dtype, norm_dtype) for _ in range(layers))
        self.norm = RMSNorm(dim, norm_dtype)
        self.lm_head = _linear(dim, vocab, False, dtype)
        if tie:
            self.lm_head.weight = self.embed.weight
        half = dim // heads // 2
        inv_freq = torch.tensor([10000.0 ** (-i / half) for i in range(half)], dtype=torch.float32)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # recomputed, never saved

    def forward(self, ids):
        pos = torch.arange(ids.shape[-1], dtype=torch.float32, device=ids.device)
        angles = pos[:, None] * self.inv_freq[None, :]
        cos, sin = angles.cos(), angles.sin()
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.lm_head(self.norm(x))


class MLPStack(nn.Module):
    """LayerNorm (no weights) on the input, then Linear layers of the given widths with GELU between
    them; the hidden layer in the middle (same weights) is applied ``repeat`` times."""

    def __init__(self, widths, bias, repeat, dtype):
        super().__init__()
        self.inp = _linear(widths[0], widths[1], bias, dtype)
        self.hidden = _linear(widths[1], widths[1], bias, dtype)
        self.layers = nn.ModuleList([self.hidden] * repeat)  # one module, registered repeat times
        self.rest = nn.ModuleList(_linear(a, b, bias, dtype) for a, b in zip(widths[1:-1], widths[2:]))

    def forward(self, x):
        x = F.gelu(self.inp(F.layer_norm(x, x.shape[-1:])))
        for layer in self.layers:
            x = F.gelu(layer(x))
        for layer in self.rest:
            x = layer(x)
        return x


class ConvNet(nn.Module):
    """Conv2d (stride 2) + BatchNorm2d + ReLU stages, normalising the input with stored
    statistics; a persistent buffer, a non-persistent one and BatchNorm's own buffers."""

    def __init__(self, channels, kernel, dtype):
        super().__init__()
        self.register_buffer("pixel_mean", torch.zeros(channels[0], 1, 1, dtype=dtype))
        self.register_buffer("pixel_std", torch.ones(channels[0], 1, 1, dtype=dtype))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64), persistent=False)
        stages = []
        for c_in, c_out in zip(channels, channels[1:]):
            stages += [
                nn.Conv2d(c_in, c_out, kernel, stride=2, padding=kernel // 2, dtype=dtype),
                nn.BatchNorm2d(c_out, dtype=dtype),
                nn.ReLU(),
            ]
        self.stages = nn.Sequential(*stages)

    def forward(self, x):
        return self.stages((x - self.pixel_mean) / self.pixel_std)


def build_module(spec):
    """Build the nn.Module a spec describes, on whatever device / mode is current."""
    kind = spec["kind"]
    dtype = _DTYPES[spec.get("dtype", "float32")]
    if kind == "lm":
        norm_dtype = torch.float32 if spec.get("norm_fp32") else dtype
        return DecoderLM(
            spec["vocab"], spec["dim"], spec["heads"], spec["ffn"], spec["layers"], spec["tie"], dtype, norm_dtype
        )
    if kind == "mlp":
        return MLPStack(spec["widths"], spec["bias"], spec.get("repeat", 1), dtype)
    if kind == "convnet":
        return ConvNet(spec["channels"], spec["kernel"], dtype)
    raise ValueError(f"unknown model kind {kind!r}")
'''


def _models_module():
    module = types.ModuleType("ex102_models", "The model families build() makes: nothing a probe relies on.")
    exec(compile(MODELS_SOURCE, __file__, "exec"), vars(module))
    return module


build_module = _models_module().build_module


# ---------------------------------------------------------------- helpers (not probes)
# What estimate() and output_shape() return is the learner's own answer: read by exact types (bound here, before
# the learner's import) and reprs, with class names through judge.worker.tensors.

_type, _int, _str, _dict, _tuple, _repr, _all = type, int, str, dict, tuple, repr, all
_dict_items, _tuple_items = dict.items, tuple.__iter__


def _value(v):
    if _type(v) is _int:
        return v
    return {"type": _t.type_name(v), "repr": _repr(v)[:80]}


# ---------------------------------------------------------------- probes


def _builder(spec):
    """The build() handed to learner code: a partial of build_module (a C object: no closure, no globals of
    this module)."""
    return functools.partial(build_module, spec)


def estimate(solution, spec):
    """estimate(build); the result as plain data."""
    result = solution.estimate(_builder(spec))
    if _dict not in _t.mro(result):
        return {"result": None, "type": _t.type_name(result)}
    return {"result": {_str(k): _value(v) for k, v in _dict_items(result)}, "type": "dict"}


def output_shape(solution, spec, input_shape, dtype=None):
    """output_shape(build, input_shape[, dtype]); dtype None means "use the default"."""
    shape = tuple(input_shape)
    if dtype is None:
        result = solution.output_shape(_builder(spec), shape)
    else:
        result = solution.output_shape(_builder(spec), shape, dtype)
    plain = None
    if _tuple in _t.mro(result):  # a tuple, or a torch.Size: read with tuple's own iterator
        items = list(_tuple_items(result))
        plain = items if _all(_type(d) is _int for d in items) else None
    return {"result": plain, "type": _t.type_name(result), "repr": _repr(result)[:120]}
