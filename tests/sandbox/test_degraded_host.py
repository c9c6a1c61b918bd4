"""Judging must still work where the host refuses layers (an unprivileged container, a non-root user)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from sandbox import host, syscalls
from sandbox.paths import REPO_ROOT

# Runs in a fresh interpreter that first forbids what a default container profile forbids, then judges a job.
RESTRICTED = textwrap.dedent("""
    import errno, json, tempfile, pyseccomp as sc
    flt = sc.SyscallFilter(sc.ALLOW)
    for name in ("unshare", "mount", "mount_setattr", "landlock_create_ruleset"):
        flt.add_rule(sc.ERRNO(errno.EPERM), name)
    flt.load()
    from sandbox import JobSpec, ZygoteClient
    z = ZygoteClient([], "restricted").start(); z.wait_ready(60)
    facts = z.run(JobSpec(target="tests.sandbox.targets:identity", isolate=True, workdir=tempfile.mkdtemp(),
                          memory_bytes=256 << 20)).wait(60)
    z.close()
    print(json.dumps({"layers": facts.layers, "exit": facts.exit_code, "out": facts.output_tail}))
""")


@pytest.mark.skipif(not syscalls.LINUX, reason="Linux only")
def test_refused_layers_degrade_with_reasons():
    pytest.importorskip("pyseccomp")
    done = subprocess.run(
        [sys.executable, "-c", RESTRICTED], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    for name in ("network", "mount", "pid", "ipc", "uts"):
        assert "refused" in seen["layers"][name] or "root" in seen["layers"][name], seen["layers"]
    assert "Landlock refused" in seen["layers"]["landlock"]
    assert seen["exit"] == 0, seen["out"]
    assert "RESULT" in seen["out"]


def test_non_root_probe_says_why(monkeypatch):
    monkeypatch.setattr(host.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(host, "_cgroup_delegated", lambda: False)
    probed = host.probe()
    for name in ("network", "mount", "pid", "ipc", "uts"):
        assert probed.status[name] == "needs root"
    assert "not root" in probed.status["uid"]
    assert "not root" in probed.status["memory"]
    assert probed.status["rlimits"] == "active"


def test_other_platform_reports_every_layer(monkeypatch):
    monkeypatch.setattr(host.syscalls, "LINUX", False)
    monkeypatch.setattr(host.sys, "platform", "darwin")
    probed = host.probe()
    assert all("darwin" in probed.status[name] for name in host.LAYERS if name != "rlimits")
