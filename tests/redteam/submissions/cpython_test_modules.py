# expect: wrong_answer
"""Attack: CPython's test modules (_testcapi, _testinternalcapi) expose C-level helpers; look for ones that read frames, set function defaults or code, or write memory without audit events."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

def _probe_testcapi():
    import _testcapi
    names = [n for n in dir(_testcapi) if any(w in n for w in ("frame", "code", "default", "globals", "closure", "setattr", "set_"))]
    print(f"route _testcapi: {names[:20]}", file=sys.stderr)
    f = getattr(_testcapi, "function_get_globals", None)
    if f is not None:
        print("route _testcapi.function_get_globals present", file=sys.stderr)
_try("_testcapi", _probe_testcapi)
def _probe_internal():
    import _testinternalcapi
    print(f"route _testinternalcapi: {[n for n in dir(_testinternalcapi) if not n.startswith('_')][:30]}", file=sys.stderr)
_try("_testinternalcapi", _probe_internal)
