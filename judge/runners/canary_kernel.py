"""The canary's Triton kernel, in a module of its own: Triton reads a kernel's source from its file."""

import triton
import triton.language as tl


@triton.jit  # type: ignore[untyped-decorator]  # triton ships no types
def add_one(x_ptr, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]  # triton reads annotations: constexpr only
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) + 1, mask=offsets < n)
