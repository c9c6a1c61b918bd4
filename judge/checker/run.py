"""Checker entry point (forked from the checker zygote): run pytest over one problem's tests."""

from __future__ import annotations

import os
import socket
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from judge.checker.declared import DeclarationsPlugin
from judge.checker.events import EventWriter, Finished
from judge.checker.plugin import JudgePlugin
from judge.checker.remote import Remote
from judge.checker.tiers import TierPlugin
from judge.report.models import ProblemMeta
from judge.wire.channel import Channel
from judge.wire.jobs import PARKED_LINE, CheckerPayload, ParkedWork

INI = Path(__file__).with_name("pytest.ini")


def main(fds: list[int], payload: dict[str, Any]) -> None:
    job = CheckerPayload.from_wire(payload)
    _keep_rewritten_tests()
    channel = Channel(socket.socket(fileno=fds[0]))
    events = EventWriter(socket.socket(fileno=fds[1]))
    remote = Remote(channel, deadline=job.deadline)
    meta = ProblemMeta.model_validate(job.meta)
    tiers = TierPlugin(job.run_tiers, job.skip_tiers, job.shard, job.costs)
    plugin = JudgePlugin(remote, events, meta, job.display_name, among=lambda: tiers.among)
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
    plugins: list[object] = [plugin, tiers, declared, EndOfCases(channel)]
    if job.parked:
        plugins.append(Parked(fds[1], channel, remote, plugin, tiers, declared))
    code = pytest.main(args, plugins=plugins)
    channel.close()  # tells the worker to exit
    events.send(Finished(exit_code=int(code)))


class EndOfCases:
    """Closes the probe channel once the last case has run, which tells the worker to end: its end (its final table
    check, its exit, the sandbox's facts) then overlaps pytest's own finish instead of following it."""

    def __init__(self, channel: Channel):
        self.channel = channel

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> object:
        try:
            return (yield)
        finally:
            self.channel.close()


class Parked:
    """A parked checker (judge.grading.parking): its tests are collected before its judgement is known. Once they
    are, it says so to the judge, waits for its work (ParkedWork), gives its parts to the plugins, hands the worker
    its file, and goes on to choose its cases (TierPlugin, after this) and judge them as any checker does."""

    def __init__(
        self,
        events_fd: int,
        channel: Channel,
        remote: Remote,
        plugin: JudgePlugin,
        tiers: TierPlugin,
        declared: DeclarationsPlugin,
    ):
        self.judge = socket.socket(fileno=os.dup(events_fd))
        self.channel, self.remote, self.plugin, self.tiers, self.declared = channel, remote, plugin, tiers, declared

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self) -> None:
        try:
            self.judge.sendall(PARKED_LINE)
            work = ParkedWork.read(self.judge)
        except (EOFError, OSError, KeyError, TypeError, ValueError):
            os._exit(0)  # the judge let the parked pair go unused: nothing is judged, nobody reads
        finally:
            self.judge.close()
        self.remote.deadline = work.deadline
        self.plugin.display_name = work.display_name
        self.declared.source = work.source
        self.tiers.shard, self.tiers.costs = work.shard, dict(work.costs)
        self.channel.sock.sendall(work.for_worker())


def _keep_rewritten_tests() -> None:
    """pytest rewrites the asserts of a problem's test files in every checker (about 10 ms of its start); given a
    bytecode cache it reads them back instead. The zygotes write no bytecode (PYTHONDONTWRITEBYTECODE, so nothing
    lands in the problems folder): this process writes only to a folder of this user's own, created 0700 and
    checked to be so, where no other user can plant code the checker would run. Anything else: no cache."""
    if not hasattr(os, "getuid"):
        return
    mine = Path(tempfile.gettempdir()) / f"practice-judge-{os.getuid()}"  # also the warm local judge's folder
    folder = mine / "pyc"
    try:
        for part in (mine, folder):
            part.mkdir(mode=0o700, exist_ok=True)
            seen = part.lstat()
            if not stat.S_ISDIR(seen.st_mode) or seen.st_uid != os.getuid() or seen.st_mode & 0o077:
                return
    except OSError:
        return
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
