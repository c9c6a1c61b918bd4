"""Checker entry point (forked from the checker zygote): run pytest over one problem's tests."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from judge.channel import Channel
from judge.checker.events import EventWriter
from judge.checker.plugin import JudgePlugin
from judge.checker.remote import Remote
from judge.checker.tiers import TIERS, TierPlugin
from judge.models import ProblemMeta

INI = Path(__file__).with_name("pytest.ini")


def main(fds: list[int], payload: dict) -> None:
    channel = Channel(socket.socket(fileno=fds[0]))
    events = EventWriter(socket.socket(fileno=fds[1]))
    remote = Remote(channel, deadline=payload["deadline"])
    meta = ProblemMeta.model_validate(payload["meta"])
    plugin = JudgePlugin(remote, events, meta, payload["display_name"])
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # third-party plugins must not shape a verdict
    args = [
        *payload["test_files"],
        "-c",
        str(INI),
        "--rootdir",
        payload["root"],
        "-q",
        "--tb=short",
        "-W",
        "ignore::DeprecationWarning",
    ]
    tiers = TierPlugin(payload.get("run_tiers", TIERS), payload.get("skip_tiers", ()))
    code = pytest.main(args, plugins=[plugin, tiers])
    channel.close()  # tells the worker to exit
    events.send({"type": "finished", "exit_code": int(code)})
