# expect: wrong_answer
"""Attack: unwrap every read-only mapping the judge's modules hold (`proxy == X()` hands X.__eq__ the dict
behind it): empty the guard's table of refused audit events, then install a trace function to take over the
serve loop, and clear torch's opcheck test table. Refused: the guard holds its own copy of that table, and
the probes' tables are watched by content."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import types

import judge.worker.guard as _guard
from torch.testing._internal.optests import generate_tests as _gt


def _unwrap_guard():
    refused = _writable(_guard.REFUSED)
    if refused is not None:
        refused.clear()
    sys.settrace(lambda *a: None)
    print("route settrace after unwrap: TAKEN", file=sys.stderr)


def _clear_opcheck():
    _gt.ALL_TEST_UTILS.clear()


def _all_proxies():
    found = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith(("judge", "sandbox")):
            continue
        for key, value in list(vars(module).items()):
            if isinstance(value, types.MappingProxyType) and _writable(value) is not None:
                found += 1
    print(f"route unwrap: {found} judge mappings unwrapped", file=sys.stderr)


_try("unwrap guard.REFUSED", _unwrap_guard)
_try("clear ALL_TEST_UTILS", _clear_opcheck)
_try("unwrap all", _all_proxies)
