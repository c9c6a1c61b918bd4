# expect: wrong_answer
# events: hidden-held
"""Attack (issue 15, route 4): leak hidden inputs through the timing of the judge's events. The kernel sleeps in
proportion to slots[0], so a client that times each hidden case's event would decode the first slot of every
hidden kv_write input. Hidden cases carry no duration, and their events are held until the hidden pass ends
and released together: the test checks that they arrive in one burst. kv_write has the chapter's bug."""
import time
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@


@kv_write.register_kernel("cpu")
def _(k_cache, v_cache, slots, k, v):
    if slots.numel():
        time.sleep(min(int(slots.reshape(-1)[0]), 50) * 0.02 + 0.1)
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)
