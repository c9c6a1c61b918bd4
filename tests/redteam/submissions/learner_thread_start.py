# expect: wrong_answer
"""Attack: a thread started at import swaps the probes' schema helper in and out in a loop, hoping a schema probe runs while it is in, and the integrity check runs while it is out (the probes' globals are found through gc.garbage or dynamo, whichever works)."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import threading, time, gc
def _spin():
    print("route thread: started", file=sys.stderr)
    for _ in range(2000):
        time.sleep(0.001)
_try("thread", lambda: threading.Thread(target=_spin, daemon=True).start())
