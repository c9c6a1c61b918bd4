"""The worker's integrity snapshot: a rebound function, method or class is found; data changes are not."""

from __future__ import annotations

import sys
import types

import pytest

from judge.worker import integrity


@pytest.fixture
def module():
    """A throwaway module under judge.*, which the snapshot watches."""
    name = "judge._integrity_fixture"
    mod = types.ModuleType(name)
    exec("class Box:\n    def get(self):\n        return 1\n\ndef helper():\n    return 2\n\nCOUNT = 0\n", mod.__dict__)
    sys.modules[name] = mod
    yield mod
    del sys.modules[name]


def test_unchanged_snapshot_reports_nothing(module):
    assert integrity.first_change(integrity.take()) is None


def test_rebound_function_is_named(module):
    snapshot = integrity.take()
    original = module.helper
    module.helper = lambda: 3
    assert integrity.first_change(snapshot) == "judge._integrity_fixture.helper"
    module.helper = original
    assert integrity.first_change(snapshot) is None


def test_rebound_method_is_named(module):
    snapshot = integrity.take()
    module.Box.get = lambda self: 0
    assert integrity.first_change(snapshot) == "judge._integrity_fixture.Box.get"


def test_non_string_key_is_a_change(module):
    snapshot = integrity.take()
    module.__dict__[1] = "x"
    assert integrity.first_change(snapshot) == "judge._integrity_fixture (a key that is not a string)"


def test_data_is_not_watched(module):
    snapshot = integrity.take()
    module.COUNT = 5
    assert integrity.first_change(snapshot) is None


def test_extra_modules_are_watched_outside_sys_modules():
    probes = types.ModuleType("probes")
    exec("def probe():\n    return 1\n", probes.__dict__)
    snapshot = integrity.take(extra_modules=(probes,))
    probes.probe = lambda: 2
    assert integrity.first_change(snapshot) == "probes.probe"


def test_data_of_extra_modules_is_watched():
    probes = types.ModuleType("probes")
    exec("NAMESPACE = 'ex100'\n", probes.__dict__)
    snapshot = integrity.take(extra_modules=(probes,))
    probes.NAMESPACE = "ex100shadow"
    assert integrity.first_change(snapshot) == "probes.NAMESPACE"


def test_unwatched_torch_internals_are_not_watched():
    import torch._inductor  # noqa: F401 - a part of torch that rebinds its own registries

    assert not integrity.is_watched("torch._inductor.lowering")
    assert integrity.is_watched("torch.library") and integrity.is_watched("torch._library.custom_ops")


def test_contents_of_extra_modules_containers_are_watched():
    """A read-only mapping unwraps (`proxy == X()` hands X.__eq__ its dict): what it holds is watched."""
    mod = types.ModuleType("probes_fixture")
    table = {"check": len}
    mod.TABLE = types.MappingProxyType(table)
    mod.TESTS = ["a", "b"]
    mod.NAMES = {"x"}
    snapshot = integrity.take(extra_modules=(mod,))
    assert integrity.first_change(snapshot) is None

    class Unwrap:
        def __eq__(self, other):
            other["check"] = sum  # the dict behind the proxy
            return False

    assert mod.TABLE != Unwrap()  # the unwrap itself, as an attacker would run it
    assert integrity.first_change(snapshot) == "probes_fixture.TABLE[...].check"
    table["check"] = len
    mod.TESTS.append("c")
    assert integrity.first_change(snapshot) == "probes_fixture.TESTS[...]"
    mod.TESTS.pop()
    mod.NAMES.add("y")
    assert integrity.first_change(snapshot) == "probes_fixture.NAMES[...]"
    mod.NAMES.discard("y")
    assert integrity.first_change(snapshot) is None


FRAME_POLICY_SCRIPT = r'''
import inspect, logging, sys, threading, traceback
from judge.worker import frames
classify = frames.make_classifier(frames.trusted_roots(), learner_names=("learner.py",))
allowed = frames.make_policy(classify, lambda name: True)
busy = set()

def hook(event, args):
    if threading.get_ident() in busy:
        return
    if event == "sys._getframe" or event == "object.__getattr__" and args[1] in frames.FRAME_ATTRIBUTES:
        busy.add(threading.get_ident())
        try:
            ok = allowed(sys._getframe(1))
        finally:
            busy.discard(threading.get_ident())
        if not ok:
            raise PermissionError("frame refused")

LEARNER = """
def attempt(name, action):
    try:
        action()
        return name + "=ok"
    except PermissionError:
        return name + "=refused"

def tb_frame():
    try:
        raise KeyError
    except KeyError as exc:
        return exc.__traceback__.tb_frame

def print_exc():
    try:
        raise KeyError
    except KeyError:
        traceback.print_exc(file=open("/dev/null", "w"))

def run():
    return [attempt("getframe", lambda: sys._getframe()), attempt("tb_frame", tb_frame),
            attempt("currentframe", inspect.currentframe), attempt("stack", inspect.stack),
            attempt("walk_stack", lambda: next(traceback.walk_stack(None))),
            attempt("format_stack", traceback.format_stack), attempt("print_exc", print_exc),
            attempt("logging", lambda: logging.getLogger("t").warning("x", stack_info=True))]
"""
logging.basicConfig(stream=open("/dev/null", "w"))
namespace = {"sys": sys, "inspect": inspect, "traceback": traceback, "logging": logging}
exec(compile(LEARNER, "learner.py", "exec"), namespace)
sys.addaudithook(hook)
print(" ".join(namespace["run"]()))
'''


def test_frame_policy_refuses_learner_code_and_allows_text_helpers():
    """judge.worker.frames: learner code and helpers that hand it frames are refused; helpers that turn frames
    into text (traceback.print_exc, format_stack, logging's caller lookup) work."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", FRAME_POLICY_SCRIPT], capture_output=True, text=True, timeout=120)
    seen = dict(item.split("=") for item in out.stdout.split())
    assert seen == {
        "getframe": "refused",
        "tb_frame": "refused",
        "currentframe": "refused",
        "stack": "refused",
        "walk_stack": "refused",
        "format_stack": "ok",
        "print_exc": "ok",
        "logging": "ok",
    }, out.stderr[-2000:]


TORCH_FRAMES_SCRIPT = (
    FRAME_POLICY_SCRIPT.replace(
        "import inspect,", "import torch, torch.fx, torch.fx.experimental.symbolic_shapes, inspect,"
    )
    .replace('namespace = {"sys": sys,', 'namespace = {"torch": torch, "sys": sys,')
    .replace(
        'attempt("format_stack", traceback.format_stack),',
        'attempt("jit_resolution", lambda: torch._jit_internal.createResolutionCallbackFromFrame(0)("run")),'
        ' attempt("jit_class_name", lambda: torch._jit_internal.get_class_name_lineno(run)),'
        ' attempt("fx_user_frame", torch.fx.experimental.symbolic_shapes._find_user_code_frame),'
        ' attempt("fx_wrap", lambda: torch.fx.wrap("len")),'
        ' attempt("format_stack", traceback.format_stack),',
    )
)


def test_frame_policy_denies_torch_helpers_by_default():
    """Deny by default: a torch function is not a consumer unless named, so the helpers that hand frames (or a
    resolver over a frame's locals and globals) on to their caller are refused when learner code calls them."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", TORCH_FRAMES_SCRIPT], capture_output=True, text=True, timeout=300)
    seen = dict(item.split("=") for item in out.stdout.split())
    assert {name: seen.get(name) for name in ("jit_resolution", "jit_class_name", "fx_user_frame", "fx_wrap")} == {
        "jit_resolution": "refused",
        "jit_class_name": "refused",
        "fx_user_frame": "refused",
        "fx_wrap": "refused",
    }, out.stdout + out.stderr[-2000:]
    assert seen["format_stack"] == seen["print_exc"] == seen["logging"] == "ok", out.stdout


class PlantedKey:
    """A key with a watched name's hash whose __eq__ is learner code: a lookup that met it would run it."""

    calls = 0

    def __hash__(self):
        return hash("helper")

    def __eq__(self, other):
        PlantedKey.calls += 1
        return False


LOUD_STR = type("LoudStr", (str,), {"__eq__": lambda self, other: False, "__hash__": str.__hash__})


@pytest.mark.parametrize("key", [PlantedKey(), LOUD_STR("x")], ids=["planted", "str-subclass"])
def test_a_planted_key_is_a_change_and_never_compared(module, key):
    snapshot = integrity.take()
    helper = module.__dict__.pop("helper")
    module.__dict__[key] = 0  # where the watched key was first in its probe sequence
    module.helper = helper  # the watched binding itself is as it was
    PlantedKey.calls = 0  # (the line above met it)
    assert integrity.first_change(snapshot) == "judge._integrity_fixture (a key that is not a string)"
    assert PlantedKey.calls == 0


def test_this_interpreter_has_the_version_tags_the_fast_check_reads():
    # Without them every check reads every binding (correct, slower): on the CPython CI runs, the fast path is tested.
    assert integrity.TAGS == (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] < (3, 14))


@pytest.fixture(params=[True, False], ids=["tags", "no-tags"])
def tags(request, monkeypatch):
    monkeypatch.setattr(integrity, "TAGS", request.param and integrity.TAGS)
    return request.param


def test_the_watch_answers_as_a_full_read_after_each_change(module, tags):
    check = integrity.watch(integrity.take())
    assert check() is None
    original = module.helper
    module.helper = lambda: 3  # after a check found everything intact: only the tag says where to look
    assert check() == "judge._integrity_fixture.helper"
    assert check() == "judge._integrity_fixture.helper"  # a change is never taken as the new normal
    module.helper = original
    assert check() is None
    module.COUNT = 7  # data: the tag moves, the bindings read again are intact
    assert check() is None
    module.Box.get = lambda self: 0  # a class's dict, behind its read-only mapping
    assert check() == "judge._integrity_fixture.Box.get"


def test_a_change_made_before_the_first_check_is_found(module, tags):
    snapshot = integrity.take()
    check = integrity.watch(snapshot)  # the tags are read at the first check, not with the snapshot
    module.helper = lambda: 3
    assert check() == "judge._integrity_fixture.helper"


def test_the_watch_reads_lists_every_time(tags):
    probes = types.ModuleType("probes")
    exec("def probe():\n    return 1\n\nORDER = [probe]\n", probes.__dict__)
    check = integrity.watch(integrity.take(extra_modules=(probes,)))
    assert check() is None
    probes.ORDER[0] = print  # a list's items have no tag
    assert check() == "probes.ORDER[...]"


def test_rebinding_ctypes_value_does_not_blind_the_watch(module, monkeypatch):
    import ctypes

    check = integrity.watch(integrity.take())
    assert check() is None
    # What a learner who read this module would try: make every tag read the same.
    monkeypatch.setattr(ctypes.c_uint64, "value", property(lambda self: 1), raising=False)
    assert check() is None  # (a watch that read tags through that lookup would now take "all 1" as intact)
    module.helper = lambda: 3
    assert check() == "judge._integrity_fixture.helper"
