# expect: wrong_answer
"""Attack: compile a forger under the file name of a module the judge trusts (compile(), code.replace(), importlib's source_to_code, marshal), so that frame requests from it pass for the judge's own."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import importlib.machinery, marshal, traceback
_SRC = "import sys\ndef grab():\n    return sys._getframe(1)\n"
def _compile():
    ns = {}
    exec(compile(_SRC, traceback.__file__, "exec"), ns)
    _take_from(ns["grab"](), "compile")
def _replace():
    code = (lambda: sys._getframe(1)).__code__.replace(co_filename=traceback.__file__)
    print("route replace: made", code.co_filename, file=sys.stderr)
def _importlib():
    loader = importlib.machinery.SourceFileLoader("x", traceback.__file__)
    code = loader.source_to_code(_SRC.encode(), traceback.__file__)
    ns = {}
    exec(code, ns)
    _take_from(ns["grab"](), "importlib source_to_code")
def _marshal():
    code = compile(_SRC, "AAAA", "exec")
    data = marshal.dumps(code).replace(b"AAAA", b"<frozen x>"[:4])
    marshal.loads(data)
for _r, _a in (("compile", _compile), ("replace", _replace), ("importlib", _importlib), ("marshal", _marshal)):
    _try(_r, _a)
