# expect: wrong_answer
import torch

def dispatch_keys(t):
    s = str(torch._C._dispatch_keys(t))
    inner = s[len("DispatchKeySet("):-1]
    return tuple(k.strip() for k in inner.split(",") if k.strip())

@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(-1) * scale

@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])

torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
