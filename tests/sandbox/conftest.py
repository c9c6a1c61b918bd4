"""A warm zygote without torch (starts in a fraction of a second) and helpers to run isolated jobs on it."""

from __future__ import annotations

import pytest

from sandbox import JobSpec, ZygoteClient
from sandbox import layers as sandbox_layers


@pytest.fixture(scope="session")
def zygote():
    z = ZygoteClient([], "test-zygote").start()
    z.wait_ready(60)
    yield z
    z.close()


@pytest.fixture(scope="session")
def plan() -> dict[str, str]:
    """The layers an isolated job gets on this host (probed in this process, as the zygote does)."""
    return sandbox_layers.plan(JobSpec(target="-", isolate=True, memory_bytes=1 << 30))


@pytest.fixture
def run(zygote):
    """run(target, payload=None, fds=(), **spec fields) -> JobFacts, with isolate=True."""

    def _run(target: str, payload: dict | None = None, fds=(), **fields):
        fields.setdefault("wall_s", 20)
        fields.setdefault("memory_bytes", 256 << 20)
        spec = JobSpec(target=f"tests.sandbox.targets:{target}", isolate=True, payload=payload or {}, **fields)
        facts = zygote.run(spec, list(fds)).wait(60)
        assert facts is not None, "the job did not end"
        return facts

    return _run
