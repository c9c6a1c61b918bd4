"""A class of exercise 105 as a short exercise's class is: independent solutions that share the chapter's idioms
(the op's registration, the fake's `new_empty`, the one-line autocast rule, `(a * b).sum(-1)`), each written its own
way around them, and two real copies (one with its names changed and its comments rewritten, one with its functions
reordered and a print added). The similarity tests judge it; a fixed threshold flags many of its independent pairs."""

from __future__ import annotations

import random

SIGNATURE = """@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
"""
IDIOM_DOT = "    return (a * b).sum(-1) * scale\n"
IDIOM_FAKE = "@scaled_dot.register_fake\ndef _(a, b, scale):\n    return a.new_empty(a.shape[:-1])\n"
IDIOM_AUTOCAST = 'torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)\n'


def _keys(rng: random.Random) -> str:
    """dispatch_keys as one student writes it: the same torch call, their own way of taking the names out."""
    arg = rng.choice(["t", "x", "tensor"])
    hint = rng.choice(["", ": torch.Tensor"])
    returns = rng.choice(["", " -> list[str]"])
    head = f"def dispatch_keys({arg}{hint}){returns}:\n"
    call = rng.choice(["str", "str", "repr", "format"]) + f"(torch._C._dispatch_keys({arg}))"
    way = rng.choice([0, 0, 0, 1, 2, 3, 4])  # the chapter's own way most often
    sep = rng.choice(['","', '", "'])
    keep = rng.choice(["if {v}.strip()", "if {v}", ""])
    if way == 0:
        end = rng.choice(["-1", 'text.rindex(")")'])
        body = (
            f'    text = {call}\n    inner = text[text.index("(") + 1:{end}]\n'
            f"    return [name.strip() for name in inner.split({sep}) {keep.format(v='name')}]\n"
        )
    elif way == 1:
        pattern = rng.choice(["[A-Za-z]+", "\\w+", "[A-Z][A-Za-z]*"])
        body = f'    found = re.findall(r"{pattern}", {call})\n    return found[1:]\n'
    elif way == 2:
        strip = rng.choice(["rstrip", "strip"])
        body = f'    s = {call}\n    s = s.replace("DispatchKeySet(", "")\n    s = s.{strip}(")")\n'
        body += (
            f"    return [k for k in s.split({sep}) {keep.format(v='k')}]\n"
            if keep
            else f"    return s.split({sep}) if s else []\n"
        )
    elif way == 3:
        test = rng.choice(["part", "len(part) > 0", 'part != ""'])
        body = (
            f'    s = {call}\n    out = []\n    for part in s[s.find("(") + 1 : s.rfind(")")].split({sep}):\n'
            f"        part = part.strip()\n        if {test}:\n"
            "            out.append(part)\n    return out\n"
        )
    else:
        cut = rng.choice(["[:-1]", '.rstrip(")")'])
        body = (
            f'    _, _, rest = {call}.partition("(")\n    rest = rest{cut}\n'
            f"    return [p.strip() for p in rest.split({sep}) {keep.format(v='p')}]\n"
        )
    return head + body


def _dot(rng: random.Random, who: str) -> str:
    if rng.random() < 0.75:
        body = IDIOM_DOT
    else:
        body = rng.choice([
            "    return torch.sum(a * b, dim=-1) * scale\n",
            "    prod = a * b\n    return prod.sum(dim=-1) * scale\n",
            '    return torch.einsum("...d,...d->...", a, b) * scale\n',
            "    return scale * (a * b).sum(dim=-1)\n",
            "    out = (a * b).sum(-1)\n    out = out * scale\n    return out\n",
            "    return torch.mul(a, b).sum(-1).mul(scale)\n",
        ])  # fmt: skip
    check = rng.choice([
        "",
        "",
        f'    if a.shape != b.shape:\n        raise ValueError("{who}: a and b must have the same shape")\n',
        f'    assert a.shape == b.shape, "{who}: shapes differ"\n',
        f'    torch._check(a.shape == b.shape, lambda: "{who}: mismatched shapes")\n',
    ])  # fmt: skip
    return SIGNATURE + check + body


def _fake(rng: random.Random) -> str:
    if rng.random() < 0.8:
        return IDIOM_FAKE
    return rng.choice([
        "@scaled_dot.register_fake\ndef _(a, b, scale):\n    torch._check(a.shape == b.shape)\n"
        "    return a.new_empty(a.shape[:-1])\n",
        "@scaled_dot.register_fake\ndef scaled_dot_fake(a, b, scale):\n"
        "    return torch.empty(a.shape[:-1], dtype=a.dtype, device=a.device)\n",
        "@scaled_dot.register_fake\ndef _fake(a, b, scale):\n    return torch.empty_like(a[..., 0])\n",
        "@scaled_dot.register_fake\ndef _(a, b, scale):\n    shape = list(a.shape)\n    shape.pop()\n"
        "    return a.new_empty(shape)\n",
    ])  # fmt: skip


def _tail(rng: random.Random, who: str) -> str:
    return rng.choice([
        "",
        "",
        f'\n\nif __name__ == "__main__":\n    x = torch.randn({rng.randint(2, 9)})\n'
        f'    print("{who}", dispatch_keys(x))\n'
        f'    print("{who}", scaled_dot(torch.ones(2, {rng.randint(2, 9)}), torch.ones(2, 4), 0.5))\n',
        f"\n\ndef _smoke():\n    a = torch.randn({rng.randint(2, 9)}, 8)\n    b = torch.randn_like(a)\n"
        '    with torch.autocast("cpu", dtype=torch.bfloat16):\n        y = torch.ops.ex105.scaled_dot(a, b, 2.0)\n'
        f'    assert y.dtype == torch.bfloat16, "{who}: dtype"\n    return y\n',
    ])  # fmt: skip


def solution(rng: random.Random, who: str) -> str:
    imports = rng.choice(["import torch\n", "import re\n\nimport torch\n", "import torch\nfrom torch import Tensor\n"])
    other = 'torch.library.register_autocast(scaled_dot, "cpu", torch.bfloat16)\n'
    autocast = IDIOM_AUTOCAST if rng.random() < 0.8 else other
    blocks = [imports, _keys(rng), _dot(rng, who), _fake(rng), autocast + _tail(rng, who)]
    return "\n\n".join(blocks)


def _renamed(code: str) -> str:
    """A copy with its names changed and a comment of its own (copydetect's normalisation sees through both)."""
    for old, new in (("text", "s_repr"), ("inner", "middle"), ("name", "key"), ("prod", "product"), ("out", "res")):
        code = code.replace(old, new)
    return "# my solution, written for exercise 105\n" + code


def _reordered(code: str) -> str:
    """A copy with its functions in another order and a print added."""
    head, *blocks = code.split("\n\n")
    return "\n\n".join([head, blocks[1], blocks[2], blocks[0], *blocks[3:]]) + '\nprint("loaded")\n'


def class_105(size: int = 26, seed: int = 105) -> tuple[dict[str, str], set[frozenset[str]]]:
    """{student: source} of `size` independent solutions (drawn with `seed`) plus the two copies (bob of s01, dan of
    s02), and the copied pairs."""
    rng = random.Random(seed)
    sources = {f"s{n:02d}": solution(rng, f"s{n:02d}") for n in range(1, size + 1)}
    sources["bob"] = _renamed(sources["s01"])
    sources["dan"] = _reordered(sources["s02"])
    return sources, {frozenset({"s01", "bob"}), frozenset({"s02", "dan"})}
