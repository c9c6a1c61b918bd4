"""Each isolation layer, checked from inside real isolated jobs (zygote without torch: fast)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path

import pytest

from sandbox import EXIT_MEMORY
from sandbox.base import EXIT_LAYER
from sandbox.paths import REPO_ROOT
from tests.sandbox.support import need, result

_WORKDIRS: list[str] = []


def _workdir(**files: str) -> str:
    path = tempfile.mkdtemp(prefix="pj-test-")
    _WORKDIRS.append(path)
    for name, text in files.items():
        Path(path, name).write_text(text)
    return path


@pytest.fixture(autouse=True, scope="module")
def _remove_workdirs():
    yield
    for path in _WORKDIRS:
        shutil.rmtree(path, ignore_errors=True)


def _eof_within(sock: socket.socket, seconds: float) -> bool:
    """True once every other holder of the socket's peer is gone (no process kept it)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


def test_every_layer_is_reported(run, plan):
    facts = run("identity")
    assert facts.exit_code == 0, facts.output_tail
    for name in (
        "memory",
        "pids",
        "cpu",
        "network",
        "mount",
        "pid",
        "ipc",
        "uts",
        "uid",
        "landlock",
        "seccomp",
        "rlimits",
    ):
        assert facts.layers[name], name
    assert facts.layers == plan
    assert facts.setup_s is not None and facts.setup_s < 5
    assert facts.sandbox_error == ""


def test_skipped_layers_are_reported(run):
    facts = run("identity", skip=["seccomp", "landlock"])
    assert facts.exit_code == 0
    assert facts.layers["seccomp"] == facts.layers["landlock"] == "skipped by the caller"


def test_worker_is_not_root(run, plan):
    need(plan, "uid")
    seen = result(run("identity"))
    assert seen["uid"] == seen["euid"] == seen["gid"] == 65534
    assert seen["groups"] == []
    assert seen["env"].count("USER") == 1  # getpass.getuser() works without a passwd entry


def test_namespaces_pid_and_uts(run, plan):
    need(plan, "pid", "uts")
    seen = result(run("identity"))
    assert seen["pid"] == 2 and seen["ppid"] == 1  # job under a tiny init, inside its own pid namespace
    assert seen["hostname"] == "sandbox"


def test_no_network(run, plan):
    need(plan, "seccomp")
    seen = result(run("network"))
    assert seen["inet"] == seen["inet6"] == seen["netlink"] == "EPERM"
    assert seen["connect"] == "EPERM"
    assert seen["unix"] == "ok"  # the worker's channel


def test_network_namespace_alone_has_no_route(run, plan):
    need(plan, "network")
    seen = result(run("network", skip=["seccomp", "landlock"]))
    assert seen["inet"] == "ok"
    assert seen["connect"] in ("ENETUNREACH", "ECONNREFUSED", "EHOSTUNREACH")  # loopback is down: nothing listens


def test_landlock_alone_blocks_tcp(run, plan):
    need(plan, "landlock")
    seen = result(run("network", skip=["seccomp", "network"]))
    assert seen["connect"] == "EACCES"


SECRETS = [
    f"{REPO_ROOT}/problems",
    f"{REPO_ROOT}/tests/sandbox/targets.py",
    f"{REPO_ROOT}/.git",
    "/root/.bashrc",
    "/root/.pyenv/version",
]


@pytest.mark.parametrize("skip", [[], ["landlock"], ["mount"]], ids=["all", "mount-only", "landlock-only"])
def test_hidden_paths(run, plan, skip):
    need(plan, *({"mount", "landlock"} - set(skip)), "uid")
    workdir = _workdir(**{"solution.py": "x = 1\n"})
    seen = result(
        run(
            "read_paths",
            {"paths": SECRETS + ["/etc/shadow", f"{workdir}/solution.py", f"{REPO_ROOT}/judge/__init__.py"]},
            workdir=workdir,
            skip=skip,
        )
    )
    for path in SECRETS:
        assert seen[path] != "READ", path
    assert seen["/etc/shadow"] != "READ"
    assert seen[f"{workdir}/solution.py"] == "READ"
    assert seen[f"{REPO_ROOT}/judge/__init__.py"] == "READ"  # the worker's own packages stay importable


def test_extra_hidden_path(run, plan):
    need(plan, "mount")
    secret = Path(REPO_ROOT).parent / f".pj-secret-{os.getpid()}"  # outside every default hidden folder
    try:
        secret.mkdir()
        (secret / "answer.txt").write_text("42")
        secret.chmod(0o755)
        (secret / "answer.txt").chmod(0o644)
        seen = result(run("read_paths", {"paths": [str(secret / "answer.txt")]}, hide=[str(secret)], skip=["landlock"]))
        assert seen[str(secret / "answer.txt")] == "ENOENT"
    finally:
        (secret / "answer.txt").unlink(missing_ok=True)
        secret.rmdir()


def test_stdlib_still_importable(run, plan):
    facts = run("syscalls")
    assert facts.exit_code == 0, facts.output_tail  # imports ctypes and subprocess after isolation


def test_writes_only_in_scratch(run, plan):
    need(plan, "mount", "landlock", "uid")
    workdir = _workdir(**{"solution.py": "x = 1\n"})
    outside = ["/tmp/pj-escape", f"{REPO_ROOT}/pj-escape", "/etc/pj-escape", "/var/tmp/pj-escape", "/root/pj-escape"]
    seen = result(
        run(
            "write_paths",
            {"paths": outside + ["inside.txt", f"{workdir}/inside2.txt", "/dev/shm/inside", "/dev/null"]},
            workdir=workdir,
        )
    )
    for path in outside:
        assert seen[path] != "ok", path
        assert not os.path.exists(path)
    assert seen["inside.txt"] == seen[f"{workdir}/inside2.txt"] == seen["/dev/shm/inside"] == seen["/dev/null"] == "ok"
    assert sorted(os.listdir(workdir)) == ["solution.py"]  # scratch is a private copy


def test_memory_limit_is_enforced_and_reported(run, plan):
    need(plan, "memory")
    facts = run("allocate", {"mib": 512}, memory_bytes=96 << 20)
    assert facts.memory_exceeded
    assert facts.signal == signal.SIGKILL
    assert facts.peak_memory_mib is not None and facts.peak_memory_mib <= 97


def test_memory_within_limit(run, plan):
    need(plan, "memory")
    facts = run("allocate", {"mib": 64}, memory_bytes=256 << 20)
    assert facts.exit_code == 0 and not facts.memory_exceeded
    assert 64 <= facts.peak_memory_mib < 256  # the job's own memory, not the zygote's shared heap


def test_memory_rlimit_fallback(run, plan):
    facts = run("allocate", {"mib": 512}, memory_bytes=96 << 20, skip=["memory"])
    assert "address-space rlimit" in facts.layers["memory"]
    assert facts.exit_code == EXIT_MEMORY and facts.memory_exceeded


def test_fork_bomb_is_contained(run, plan):
    need(plan, "pids")
    facts = run("fork_bomb", {"tries": 500}, max_pids=24)
    seen = result(facts)
    assert seen["error"] == "EAGAIN"
    assert seen["forked"] < 24
    # the job ended only once its cgroup was empty: none of its sleeping children outlived the report
    assert facts.leftover_processes == 0


def test_detached_grandchild_does_not_survive(run, plan):
    need(plan, "pid")
    ours, theirs = socket.socketpair()
    facts = run("detach", fds=[theirs.fileno()])
    theirs.close()
    assert facts.exit_code == 0
    assert _eof_within(ours, 5), "a setsid double-forked grandchild outlived its job"


def test_timeout_kills_everything(run):
    ours, theirs = socket.socketpair()
    started = time.monotonic()
    facts = run("detach", {"hang": True}, fds=[theirs.fileno()], wall_s=1)
    theirs.close()
    assert facts.timed_out and facts.signal == signal.SIGKILL
    assert time.monotonic() - started < 5
    assert _eof_within(ours, 5), "a process of the job outlived its timeout"


def test_dev_shm_is_private_and_capped(run, plan):
    need(plan, "mount")
    seen = result(run("fill_shm", {"mib": 64}, shm_bytes=8 << 20))
    assert seen["error"] == "ENOSPC" and seen["written_mib"] <= 8


def test_dangerous_syscalls_denied(run, plan):
    need(plan, "seccomp", "uid")
    seen = result(run("syscalls"))
    assert seen["unshare"] == seen["mount"] == seen["ptrace"] == "EPERM"
    assert seen["setuid0"] == "EPERM"
    assert seen["kill_init"] != "ok"
    assert seen["no_new_privs"] == "1" and seen["seccomp"] == "2"
    assert seen["subprocess"] == "ok"  # clone3 -> ENOSYS -> glibc falls back to clone


@pytest.mark.parametrize(
    "payload, code, sig",
    [
        ({"code": 3}, 3, None),
        ({"signal": signal.SIGTERM}, None, signal.SIGTERM),
        ({"abort": True}, None, signal.SIGABRT),
    ],
    ids=["exit", "sigterm", "abort"],
)
def test_exit_status_is_relayed(run, payload, code, sig):
    facts = run("exit_with", payload)
    assert (facts.exit_code, facts.signal) == (code, sig), facts.output_tail


def test_planned_layer_failure_stops_the_job(run, plan):
    need(plan, "mount")
    facts = run("identity", workdir="/nonexistent/pj-workdir")
    assert facts.exit_code == EXIT_LAYER
    assert "mount" in facts.sandbox_error and "failed" in facts.layers["mount"]
    assert "RESULT" not in facts.output_tail


def test_degrade_runs_without_the_failed_layer(run, plan):
    need(plan, "mount")
    facts = run("identity", workdir=_workdir(), scratch_bytes=-1, degrade=True)  # tmpfs refuses size=-1
    assert facts.layers["mount"].startswith("failed to apply")
    assert facts.sandbox_error == ""
    assert "RESULT" in facts.output_tail


def test_job_cgroups_are_removed(zygote, run, plan):
    need(plan, "memory")
    run("fork_bomb", {"tries": 5})
    assert _job_groups(zygote._proc.pid) == []


def test_only_its_own_fds_reach_a_job(zygote, run):
    """Not the zygote's control socket, nor the pipes and pidfds of other jobs running at the same time."""
    from sandbox import JobSpec

    other = zygote.run(JobSpec(target="tests.sandbox.targets:sleep", payload={"seconds": 3}, isolate=True, wall_s=10))
    ours, theirs = socket.socketpair()
    seen = result(run("open_fds", fds=[theirs.fileno()]))
    theirs.close()
    extra = set(seen["fds"]) - {"0", "1", "2"}
    assert len(seen["fds"]) == 4 and len(extra) == 1, seen  # stdin, stdout, stderr and the passed socket
    assert seen["fds"][extra.pop()].startswith("socket:")
    assert seen["cwd"] != REPO_ROOT
    other.kill()
    assert other.wait(10).signal == signal.SIGKILL


def test_concurrent_jobs(zygote):
    from sandbox import JobSpec

    jobs = [
        zygote.run(
            JobSpec(
                target="tests.sandbox.targets:allocate",
                payload={"mib": 32},
                isolate=True,
                wall_s=20,
                memory_bytes=128 << 20,
            )
        )
        for _ in range(4)
    ]
    for job in jobs:
        facts = job.wait(30)
        assert facts.exit_code == 0 and not facts.memory_exceeded, facts.output_tail


def test_jobs_die_with_their_zygote(plan):
    from sandbox import JobSpec, ZygoteClient

    need(plan, "pid")
    z = ZygoteClient([], "doomed-zygote").start()
    z.wait_ready(60)
    ours, theirs = socket.socketpair()
    z.run(
        JobSpec(target="tests.sandbox.targets:detach", payload={"hang": True}, isolate=True, wall_s=60),
        [theirs.fileno()],
    )
    theirs.close()
    time.sleep(0.5)
    z._proc.kill()
    z._proc.wait()
    assert _eof_within(ours, 5), "a job outlived its zygote"
    z.close()
    if plan["memory"] == "active":  # the next zygote on this cgroup sweeps the dead one's groups
        from sandbox.cgroups import Cgroups

        Cgroups()
        assert not _job_groups(z._proc.pid)


def _job_groups(zygote_pid: int) -> list[str]:
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(root, d) for d in dirs if d.startswith(f"pj-{zygote_pid}-")]
        if root.count("/") > 6:
            dirs.clear()
    return found
