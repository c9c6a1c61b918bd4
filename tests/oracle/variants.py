"""The differential corpus: variants of exercises 100 and 103, each its reference solution with a few lines changed.

Half are wrong in ways torch's own checks (torch.library.opcheck, torch.autograd.gradcheck) are made to catch:
aliasing, undeclared writes, fakes with the wrong strides, dtype or shape, a fake that reads data, a backward
wrapped outside the operator, wrong, missing or non-reentrant gradients. The others are right, or wrong only where
the judge is deliberately stricter than torch (tests/oracle/test_torch_oracle.py lists each, with its reason).
A variant is (name, what it does, [(text in the reference, its replacement), ...]).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = {
    "100": ROOT / "problems" / "100-custom-op" / "solutions" / "reference.py",
    "103": ROOT / "problems" / "103-silu-and-mul" / "solutions" / "reference.py",
}

RMS_FORWARD = "    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight\n"
RMS_FAKE = "@rms_norm.register_fake\ndef _(x, weight, eps=1e-6):\n    return torch.empty_like(x)\n"
RMS_RETURN = "    return grad_x, grad_weight, None  # eps is a float: no gradient\n"
RMS_SAVED = "    x, weight = ctx.saved_tensors\n    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)\n"
KV_BODY = "    k_cache.index_copy_(0, slots, k)\n    v_cache.index_copy_(0, slots, v)\n"
KV_FAKE = "def _(k_cache, v_cache, slots, k, v):\n    # Nothing to allocate and nothing to return: the schema already says which inputs change.\n    return None\n"
KV_DECLARED = 'mutates_args=("k_cache", "v_cache")'
SILU_FORWARD = "    d = x.shape[-1] // 2\n    return F.silu(x[..., :d]) * x[..., d:]\n"
SILU_FAKE = "    d = x.shape[-1] // 2\n    return x.new_empty((*x.shape[:-1], d))\n"
SILU_GRAD = "    grad_a = grad_out * b * (s * (1 + a * (1 - s)))   # d silu(a) / da = s + a * s * (1 - s)\n"
SILU_BACKWARD = "def _backward(ctx, grad_out):\n    (x,) = ctx.saved_tensors\n"

VARIANTS: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = {
    "100": [
        ("reference", "the reference as it is", []),
        (
            "rms_functional_forward",
            "rms_norm through torch's own rms_norm (right)",
            [(RMS_FORWARD, "    return torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps)\n")],
        ),
        (
            "kv_python_loop",
            "kv_write row by row with indexing assignment (right)",
            [
                (
                    KV_BODY,
                    "    for i, s in enumerate(slots.tolist()):\n        k_cache[s] = k[i]\n        v_cache[s] = v[i]\n",
                )
            ],
        ),
        (
            "rms_forward_restores_input",
            "the forward doubles x in place and halves it back",
            [
                (
                    RMS_FORWARD,
                    "    x.mul_(2.0)\n    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) / 4.0 + eps)\n"
                    "    x.div_(2.0)\n    return x * r * weight\n",
                )
            ],
        ),
        (
            "rms_forward_writes_input",
            "the forward normalises x in place and returns it (an undeclared write, and an alias)",
            [
                (
                    RMS_FORWARD,
                    "    x.mul_(torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))\n    return x.mul_(weight)\n",
                )
            ],
        ),
        (
            "rms_backward_restores_saved_x",
            "the backward doubles the saved x in place and halves it back",
            [
                (
                    RMS_SAVED,
                    "    x, weight = ctx.saved_tensors\n    x.mul_(2.0)\n"
                    "    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) / 4.0 + ctx.eps)\n    x.div_(2.0)\n",
                )
            ],
        ),
        (
            "rms_backward_not_reentrant",
            "the backward scales its result by a counter of its own calls",
            [
                (RMS_RETURN, "    _CALLS[0] += 1\n    grad_x = grad_x * (1.0 + 1e-13 * _CALLS[0])\n" + RMS_RETURN),
                ("def _backward(ctx, grad_out):", "_CALLS = [0]\n\n\ndef _backward(ctx, grad_out):"),
            ],
        ),
        (
            "rms_backward_wrong_formula",
            "the backward forgets the normalisation's own derivative",
            [("        grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))\n", "        grad_x = r * g\n")],
        ),
        (
            "rms_backward_no_weight_grad",
            "the backward gives no gradient for weight",
            [(RMS_RETURN, "    return grad_x, None, None\n")],
        ),
        (
            "rms_fake_wrong_dtype",
            "the fake always returns float32",
            [
                (
                    RMS_FAKE,
                    "@rms_norm.register_fake\ndef _(x, weight, eps=1e-6):\n"
                    "    return torch.empty_like(x, dtype=torch.float32)\n",
                )
            ],
        ),
        (
            "rms_fake_wrong_strides",
            "the fake returns column-major strides for a 2-D x",
            [
                (
                    RMS_FAKE,
                    "@rms_norm.register_fake\ndef _(x, weight, eps=1e-6):\n"
                    "    return torch.empty_like(x).mT.contiguous().mT if x.dim() == 2 else torch.empty_like(x)\n",
                )
            ],
        ),
        (
            "rms_fake_wrong_shape",
            "the fake drops the last dimension",
            [
                (
                    RMS_FAKE,
                    "@rms_norm.register_fake\ndef _(x, weight, eps=1e-6):\n    return x.new_empty(x.shape[:-1])\n",
                )
            ],
        ),
        (
            "rms_fake_reads_data",
            "the fake branches on x's values",
            [
                (
                    RMS_FAKE,
                    "@rms_norm.register_fake\ndef _(x, weight, eps=1e-6):\n"
                    "    if float(x.abs().max()) > 1e9:\n        raise ValueError('too large')\n"
                    "    return torch.empty_like(x)\n",
                )
            ],
        ),
        (
            "rms_no_autograd",
            "no backward registered on the operator",
            [("rms_norm.register_autograd(_backward, setup_context=_setup_context)\n", "")],
        ),
        (
            "kv_declares_nothing",
            "kv_write writes its caches but declares no mutation",
            [(KV_DECLARED, "mutates_args=()"), (KV_FAKE, "def _(k_cache, v_cache, slots, k, v):\n    return None\n")],
        ),
        (
            "kv_restores_slots",
            "kv_write shifts slots in place and back",
            [(KV_BODY, "    slots.add_(1)\n    slots.sub_(1)\n" + KV_BODY)],
        ),
        (
            "kv_writes_k",
            "kv_write scales k in place before the copy",
            [(KV_BODY, "    k.mul_(1.0)\n    k.add_(1.0)\n    k.sub_(1.0)\n" + KV_BODY)],
        ),
    ],
    "103": [
        ("reference", "the reference as it is", []),
        (
            "chunk_and_cat",
            "silu_and_mul through chunk (right)",
            [(SILU_FORWARD, "    a, b = x.chunk(2, dim=-1)\n    return F.silu(a) * b\n")],
        ),
        (
            "forward_restores_input",
            "the forward halves x in place and doubles it back",
            [
                (
                    SILU_FORWARD,
                    "    d = x.shape[-1] // 2\n    x.mul_(0.5)\n    gate = F.silu(x[..., :d] * 2.0)\n"
                    "    x.mul_(2.0)\n    return gate * x[..., d:]\n",
                )
            ],
        ),
        (
            "forward_writes_input",
            "the forward applies silu to the first half of x in place (an undeclared write)",
            [
                (
                    SILU_FORWARD,
                    "    d = x.shape[-1] // 2\n    gate = F.silu(x[..., :d], inplace=True)\n"
                    "    return gate * x[..., d:]\n",
                )
            ],
        ),
        (
            "returns_view_of_input",
            "the output is the second half of x, written in place (an alias)",
            [(SILU_FORWARD, "    d = x.shape[-1] // 2\n    return x[..., d:].mul_(F.silu(x[..., :d]))\n")],
        ),
        (
            "output_strided_with_matching_fake",
            "kernel and fake both return column-major strides",
            [
                (
                    SILU_FORWARD,
                    "    d = x.shape[-1] // 2\n    out = F.silu(x[..., :d]) * x[..., d:]\n"
                    "    return out.mT.contiguous().mT if out.dim() >= 2 else out\n",
                ),
                (
                    SILU_FAKE,
                    "    d = x.shape[-1] // 2\n    out = x.new_empty((*x.shape[:-1], d))\n"
                    "    return out.mT.contiguous().mT if out.dim() >= 2 else out\n",
                ),
            ],
        ),
        (
            "fake_strided_view",
            "the fake returns a narrowed view of a full-width tensor",
            [(SILU_FAKE, "    d = x.shape[-1] // 2\n    return torch.empty_like(x).narrow(-1, 0, d)\n")],
        ),
        (
            "fake_wrong_dtype",
            "the fake returns float32 whatever x is",
            [
                (
                    SILU_FAKE,
                    "    d = x.shape[-1] // 2\n    return x.new_empty((*x.shape[:-1], d), dtype=torch.float32)\n",
                )
            ],
        ),
        (
            "fake_keeps_full_width",
            "the fake keeps the whole last dimension",
            [(SILU_FAKE, "    return torch.empty_like(x)\n")],
        ),
        (
            "backward_not_reentrant",
            "the backward scales its result by a counter of its own calls",
            [
                (
                    SILU_BACKWARD,
                    "_CALLS = [0]\n\n\n" + SILU_BACKWARD + "    _CALLS[0] += 1\n"
                    "    grad_out = grad_out * (1.0 + 1e-13 * _CALLS[0])\n",
                )
            ],
        ),
        (
            "backward_drops_slope",
            "the backward uses the sigmoid alone as silu's derivative",
            [(SILU_GRAD, "    grad_a = grad_out * b * s\n")],
        ),
        (
            "backward_restores_saved_x",
            "the backward halves the saved x in place and doubles it back",
            [(SILU_BACKWARD, SILU_BACKWARD + "    x.mul_(0.5)\n    x.mul_(2.0)\n")],
        ),
        (
            "no_autograd",
            "no backward registered on the operator",
            [("silu_and_mul.register_autograd(_backward, setup_context=_setup_context)\n", "")],
        ),
    ],
}


def source(problem: str, patches: list[tuple[str, str]]) -> str:
    """The reference of `problem` with each patch applied once (a patch whose text is not there is an error)."""
    text = REFERENCE[problem].read_text(encoding="utf-8")
    for old, new in patches:
        if old not in text:
            raise ValueError(f"a variant of {problem} patches text its reference does not hold: {old[:60]!r}")
        text = text.replace(old, new, 1)
    return text
