"""As many judgements at once as this machine has cores (2), on one warm Judge, from threads.

Each must get its own verdict, a spinning neighbour must not starve or kill a correct one, and two
concurrent workers must not see each other's files.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from judge.report.models import Verdict

pytestmark = pytest.mark.slow

PROBLEM = "100"

WRONG_OPS = """
import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    if SAW:
        raise RuntimeError("SAW " + " ; ".join(SAW))
    return x * weight  # wrong: never normalises


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
"""

# Leaves its own token wherever it can write, then looks for the other submission's token for a few
# seconds: in the scratch folder's siblings, /tmp, /dev/shm, and every process's cwd and environment.
SNOOP = """
import glob
import os
import time

MINE, THEIRS = "{mine}", "{theirs_reversed}"[::-1]  # reversed: this file itself never matches
SAW = []
for folder in (os.getcwd(), "/tmp", "/dev/shm", os.path.dirname(os.getcwd())):
    try:
        with open(os.path.join(folder, "token-" + MINE), "w") as fh:
            fh.write(MINE)
    except OSError:
        pass


def _look():
    places = glob.glob(os.path.join(os.path.dirname(os.getcwd()), "*", "*"))
    places += glob.glob("/tmp/*") + glob.glob("/tmp/*/*") + glob.glob("/dev/shm/*")
    places += glob.glob("/proc/[0-9]*/cwd/*")
    for path in places:
        if THEIRS in path:
            return "name " + path
        try:
            with open(path, errors="replace") as fh:
                if THEIRS in fh.read(1 << 16):
                    return "content of " + path
        except OSError:
            pass
    return None


_deadline = time.monotonic() + 6
while time.monotonic() < _deadline and not SAW:
    _found = _look()
    if _found:
        SAW.append(_found)
    time.sleep(0.2)
"""


def grade_together(judge, sources: list[str]) -> list[tuple]:
    """Grade the sources at once from threads; (report, started, ended) each."""
    barrier = threading.Barrier(len(sources))

    def one(source):
        barrier.wait()
        started = time.monotonic()
        report = judge.grade(PROBLEM, source)
        return report, started, time.monotonic()

    with ThreadPoolExecutor(len(sources)) as pool:
        return list(pool.map(one, sources))


def assert_overlapped(results) -> None:
    assert max(r[1] for r in results) < min(r[2] for r in results), "the judgements did not run at the same time"


def test_reference_and_wrong_solution_at_once_get_their_own_verdicts(judge):
    problem = judge.problem(PROBLEM)
    reference = problem.reference_path.read_text(encoding="utf-8")
    wrong = (problem.root / "solutions" / "wrong" / "rms_ignores_eps.py").read_text(encoding="utf-8")
    results = grade_together(judge, [reference, wrong])
    assert_overlapped(results)
    (ok, _, _), (bad, _, _) = results
    assert ok.verdict == Verdict.accepted, ok.message
    assert bad.verdict == Verdict.wrong_answer, bad.message


def test_a_spinning_neighbour_does_not_starve_or_kill_a_correct_one(judge):
    problem = judge.problem(PROBLEM)
    reference = problem.reference_path.read_text(encoding="utf-8")
    spinner = "n = 0\nwhile True:\n    n += 1\n"
    results = grade_together(judge, [spinner, reference])
    assert_overlapped(results)
    (spin, _, _), (ok, _, _) = results
    assert spin.verdict == Verdict.time_limit_exceeded, spin.message
    assert ok.verdict == Verdict.accepted, f"{ok.verdict.value}: {ok.message} {ok.detail[-500:]}"
    assert not ok.run.timed_out and ok.run.signal is None, ok.run


def test_concurrent_workers_cannot_see_each_other(judge):
    a, b = f"tokA{uuid.uuid4().hex}", f"tokB{uuid.uuid4().hex}"
    sources = [
        SNOOP.format(mine=a, theirs_reversed=b[::-1]) + WRONG_OPS,
        SNOOP.format(mine=b, theirs_reversed=a[::-1]) + WRONG_OPS,
    ]
    try:
        results = grade_together(judge, sources)
    finally:  # where isolation is missing, the tokens land on the host
        for token in (a, b):
            for folder in ("/tmp", "/dev/shm"):
                Path(folder, f"token-{token}").unlink(missing_ok=True)
    assert_overlapped(results)
    for (report, _, _), other in zip(results, (b, a)):
        seen = [c.message for c in report.cases if "SAW" in c.message or other in c.message]
        assert not seen, f"a worker saw its neighbour: {seen[0]}"
        assert report.verdict == Verdict.wrong_answer, f"{report.verdict.value}: {report.message}"
