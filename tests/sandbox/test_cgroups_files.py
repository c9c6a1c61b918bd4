"""The cgroup files written and read for v1 and v2, on fake trees (production hosts are mostly v2; this one is v1)."""

from __future__ import annotations

import os
import shutil

import pytest

from sandbox import cgroups
from sandbox.cgroups import Cgroups, Hierarchy


def _read(path) -> str:
    with open(path) as fh:
        return fh.read()


@pytest.fixture
def fake_v2(tmp_path):
    base = tmp_path / "judge.service"
    base.mkdir()
    (base / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    return Cgroups([Hierarchy(2, str(base), {"memory", "pids", "cpu"})]), base


def test_v2_limits_and_facts(fake_v2):
    groups, base = fake_v2
    assert _read(base / "cgroup.subtree_control") == "+cpu +memory +pids"
    assert all(groups.status(name) == "active" for name in ("memory", "pids", "cpu"))
    job = groups.create("7", memory_bytes=2 << 30, max_pids=64, cpus=1.5)
    path = base / f"pj-{os.getpid()}-7"
    assert job.dirs == [str(path)]
    assert _read(path / "memory.max") == str(2 << 30)
    assert _read(path / "pids.max") == "64"
    assert _read(path / "cpu.max") == "150000 100000"
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n")
    (path / "memory.peak").write_text(str(300 << 20))
    assert job.memory_facts() == (True, 300.0)
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    assert job.memory_facts()[0] is False
    shutil.rmtree(path)


def test_v2_kill_file(tmp_path):
    base = tmp_path / "cg"
    base.mkdir()
    (base / "cgroup.controllers").write_text("memory pids cpu\n")
    groups = Cgroups([Hierarchy(2, str(base), {"memory", "pids", "cpu"})])
    groups.kill_tree = groups.placement["memory"]
    job = groups.create("1", None, 32, 1.0)
    job.kill_dir = job.dirs[0]
    job.kill()
    assert _read(os.path.join(job.dirs[0], "cgroup.kill")) == "1"
    shutil.rmtree(job.dirs[0])


def test_v2_busy_parent_with_other_processes_degrades(tmp_path, monkeypatch):
    base = tmp_path / "session.scope"
    base.mkdir()
    (base / "cgroup.procs").write_text("1\n")

    def refuse(path, value):
        if path.endswith("cgroup.subtree_control"):
            raise OSError(16, "Device or resource busy")
        with open(path, "w") as fh:
            fh.write(value)

    monkeypatch.setattr(cgroups, "_write", refuse)
    groups = Cgroups([Hierarchy(2, str(base), {"memory", "pids", "cpu"})])
    assert "other process" in groups.status("memory")
    assert groups.create("1", 1 << 30, 32, 1.0) is None


def test_v2_busy_parent_holding_only_the_judge_moves_it_to_a_leaf(tmp_path, monkeypatch):
    base = tmp_path / "judge.service"
    base.mkdir()
    (base / "cgroup.procs").write_text(f"{os.getpid()}\n")
    refused = []

    def busy_once(path, value):
        if path.endswith("cgroup.subtree_control") and not refused:
            refused.append(path)
            raise OSError(16, "Device or resource busy")
        with open(path, "w") as fh:
            fh.write(value)

    monkeypatch.setattr(cgroups, "_write", busy_once)
    groups = Cgroups([Hierarchy(2, str(base), {"memory", "pids", "cpu"})])
    assert groups.status("memory") == "active"
    assert _read(base / "pj-judge" / "cgroup.procs") == str(os.getpid())
    assert _read(base / "cgroup.subtree_control") == "+cpu +memory +pids"


def test_v1_limits_and_facts(tmp_path):
    hierarchies = []
    for name in ("memory", "pids", "cpu"):
        (tmp_path / name).mkdir()
        hierarchies.append(Hierarchy(1, str(tmp_path / name), {name}))
    job = Cgroups(hierarchies).create("4", memory_bytes=1 << 30, max_pids=50, cpus=2)
    memory = tmp_path / "memory" / f"pj-{os.getpid()}-4"
    assert len(job.dirs) == 3
    assert _read(memory / "memory.limit_in_bytes") == str(1 << 30)
    assert _read(tmp_path / "pids" / f"pj-{os.getpid()}-4" / "pids.max") == "50"
    assert _read(tmp_path / "cpu" / f"pj-{os.getpid()}-4" / "cpu.cfs_quota_us") == "200000"
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    (memory / "memory.max_usage_in_bytes").write_text(str(100 << 20))
    assert job.memory_facts() == (True, 100.0)


def test_stale_groups_of_dead_zygotes_are_swept(tmp_path):
    (tmp_path / "memory").mkdir()
    stale = tmp_path / "memory" / "pj-999999999-5"
    stale.mkdir()
    (stale / "cgroup.procs").write_text("")
    (stale / "cgroup.procs").unlink()
    Cgroups([Hierarchy(1, str(tmp_path / "memory"), {"memory"})])
    assert not stale.exists()


def test_discover_this_host():
    found = cgroups.discover() if os.path.exists("/proc/self/cgroup") else []
    for h in found:
        assert os.path.isdir(h.base) and h.version in (1, 2)


def test_a_job_ends_when_its_group_is_empty_or_says_how_many_are_left(tmp_path):
    """wait_empty kills again and waits while processes are listed (a fork bomb's children dying slowly on a loaded
    host), returns 0 once none is, and after its bound returns how many outlived the job, for its facts."""
    group_dir = tmp_path / "pj-1"
    group_dir.mkdir()
    procs, kills = group_dir / "cgroup.procs", []

    class Dying(cgroups.JobGroup):
        def kill(self) -> None:  # each kill takes one straggler away, as the kernel would, later
            kills.append(1)
            left = procs.read_text().split()
            procs.write_text("\n".join(left[1:]))

    procs.write_text("101\n102\n103\n")
    assert Dying([str(group_dir)], {}, str(group_dir)).wait_empty(5.0) == 0
    assert len(kills) == 3
    procs.write_text("201\n202\n")

    class Immortal(cgroups.JobGroup):
        def kill(self) -> None:
            pass

    assert Immortal([str(group_dir)], {}, str(group_dir)).wait_empty(0.05) == 2
