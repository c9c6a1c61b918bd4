"""What the attacks on compiled probes do once they hold some root object (a tracer's backend, a registry's
entries): walk every backend wrapper and closure cell reachable from it and change the probe's records there."""

WRAPPER_ATTRIBUTES = ("__wrapped__", "compiler_fn", "_torchdynamo_orig_backend", "backend", "compiler", "func")


def _walk(roots, visit):
    """visit(obj) for every object reachable from `roots` through wrapper attributes and closure cells."""
    seen, todo = set(), list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        visit(obj)
        for attr in WRAPPER_ATTRIBUTES:
            try:
                todo.append(object.__getattribute__(obj, attr))
            except Exception:
                pass
        for cell in getattr(obj, "__closure__", None) or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:
                pass


def _reset_frame_count(obj):
    """A CompileCounter that counted recompiles says it compiled once."""
    try:
        count = object.__getattribute__(obj, "frame_count")
    except Exception:
        return
    if type(count) is int and count > 1:
        obj.frame_count = 1


_done = set()


def _add_gelu_to_recorded_graph(obj):
    """A recording backend's list of graphs (each a list of call targets): the last one also 'calls' ex106.gelu."""
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            val = cell.cell_contents
        except ValueError:
            continue
        if type(val) is list and val and type(val[-1]) is list and id(val[-1]) not in _done:
            _done.add(id(val[-1]))
            val[-1].append("ex106.gelu")
