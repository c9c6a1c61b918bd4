# expect: wrong_answer|runtime_error
"""Attack: during the compiled probe, dynamo calls the fake kernel while tracing the probe's own function; InstructionTranslator.current_tx() holds that frame's globals (the probes module's dict): swap the schema helper there for a forger that restores itself."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

@kv_write.register_fake
def _fake(k_cache, v_cache, slots, k, v):
    def grab():
        from torch._dynamo.symbolic_convert import InstructionTranslator
        tx = InstructionTranslator.current_tx()
        while tx is not None:
            g = tx.f_globals
            if "_schema_of" in g:
                real = g["_schema_of"]
                def forged(q):
                    g["_schema_of"] = real
                    s = real(q)
                    for a in s["arguments"][:2]:
                        a["is_write"] = True
                    return s
                g["_schema_of"] = forged
                print("route current_tx: TAKEN probes globals", file=sys.stderr)
                return
            tx = getattr(tx, "parent", None)
        print("route current_tx: no probes globals", file=sys.stderr)
    _try("current_tx", grab)
    return None
