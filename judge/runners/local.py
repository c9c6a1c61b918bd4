"""The local runner: today's behaviour, a worker forked from a warm zygote on this host."""

from __future__ import annotations

import tempfile
from pathlib import Path

from judge.runners.base import RunnerPolicy, WorkerLaunch, WorkerRun, worker_spec, write_scratch
from sandbox import ZygoteClient

LOCAL_POLICY = RunnerPolicy(native_code=False)


class LocalRunner:
    name = "local"

    def __init__(self, zygote: ZygoteClient, policy: RunnerPolicy = LOCAL_POLICY, name: str = "local"):
        self.zygote, self.policy, self.name = zygote, policy, name

    @property
    def alive(self) -> bool:
        return self.zygote.alive

    def start(self, launch: WorkerLaunch, channel_fd: int) -> WorkerRun:
        scratch = Path(tempfile.mkdtemp(prefix="pj-"))
        try:
            write_scratch(scratch, launch)
            job = self.zygote.run(worker_spec(launch, self.policy, str(scratch)), [channel_fd])
        except BaseException:
            WorkerRun(None, scratch).close()
            raise
        return WorkerRun(job, scratch)

    def describe(self) -> str:
        return "local: a worker forked from a warm zygote on this host"

    def close(self) -> None:
        self.zygote.close()
