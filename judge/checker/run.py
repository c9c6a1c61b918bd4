"""Checker entry point (forked from the checker zygote): run pytest over one problem's tests."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from judge.channel import Channel
from judge.checker.declared import DeclarationsPlugin
from judge.checker.events import EventWriter, Finished
from judge.checker.plugin import JudgePlugin
from judge.checker.remote import Remote
from judge.checker.tiers import TierPlugin
from judge.jobs import CheckerPayload
from judge.models import ProblemMeta

INI = Path(__file__).with_name("pytest.ini")


def main(fds: list[int], payload: dict[str, Any]) -> None:
    job = CheckerPayload.from_wire(payload)
    channel = Channel(socket.socket(fileno=fds[0]))
    events = EventWriter(socket.socket(fileno=fds[1]))
    remote = Remote(channel, deadline=job.deadline)
    meta = ProblemMeta.model_validate(job.meta)
    tiers = TierPlugin(job.run_tiers, job.skip_tiers, job.shard, job.costs)
    plugin = JudgePlugin(remote, events, meta, job.display_name, among=lambda: tiers.among if job.shard[1] > 1 else 0)
    declared = DeclarationsPlugin(job.source, events)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # third-party plugins must not shape a verdict
    args = [
        *job.test_files,
        "-c",
        str(INI),
        "--rootdir",
        job.root,
        "-q",
        "--tb=short",
        "-W",
        "ignore::DeprecationWarning",
    ]
    code = pytest.main(args, plugins=[plugin, tiers, declared])
    channel.close()  # tells the worker to exit
    events.send(Finished(exit_code=int(code)))
