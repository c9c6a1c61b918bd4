# expect: wrong_answer
"""Attack: gc.set_debug(gc.DEBUG_SAVEALL) keeps every collected cycle in gc.garbage, frames included; after a probe ran, collect and look there for a frame whose globals are the probes module's, or the serve loop's."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import gc
def _saveall():
    gc.set_debug(gc.DEBUG_SAVEALL)
_try("set_debug", _saveall)

@kv_write.register_kernel("cpu")
def _kernel(k_cache, v_cache, slots, k, v):
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)
    def look():
        gc.collect()
        frames = [o for o in gc.garbage if type(o).__name__ == "frame"]
        found = 0
        for f in frames:
            while f is not None:
                if "_schema_of" in f.f_globals or f.f_code.co_name == "serve":
                    found += 1
                f = f.f_back
        print(f"route gc.garbage: {len(gc.garbage)} objects, {len(frames)} frames, {found} trusted", file=sys.stderr)
    _try("gc.garbage", look)
