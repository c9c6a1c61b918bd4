"""The GPU policy and the GPU container's arguments, built and asserted without a GPU."""

from __future__ import annotations

import os
import resource
import stat
from pathlib import Path

import pytest

from judge.runners import plan as tier_plans
from judge.runners.base import GPU_DEVICE_NODES, GPU_MEMORY_ENV, WorkerLaunch, worker_spec
from judge.runners.local import GPU_LOCAL_POLICY, LOCAL_POLICY, LocalRunner
from judge.settings import Settings
from sandbox import JobSpec, ZygoteClient, host, landlock, layers
from sandbox.client import zygote_env

LAUNCH = WorkerLaunch(
    source="x = 1\n", probes_path=None, display_name="107.py", wall_s=30, memory_bytes=1 << 30, output_bytes=1 << 16
)


def test_gpu_jobs_get_device_nodes_exec_scratch_and_no_address_space_limit():
    spec = worker_spec(LAUNCH, GPU_LOCAL_POLICY, "/tmp/pj-x", env={"CUDA_VISIBLE_DEVICES": "3"})
    assert spec.devices_rw == list(GPU_DEVICE_NODES)
    assert {"/dev/nvidiactl", "/dev/nvidia[0-9]*", "/dev/nvidia-uvm*"} <= set(spec.devices_rw)
    assert spec.address_space_limit is False and spec.scratch_exec is True
    assert "landlock" not in spec.skip  # Landlock is kept on GPU jobs, with the device nodes allowed
    assert spec.env["CUDA_VISIBLE_DEVICES"] == "3" and float(spec.env[GPU_MEMORY_ENV]) < 1
    cpu = worker_spec(LAUNCH, LOCAL_POLICY, "/tmp/pj-x")
    assert cpu.devices_rw == [] and cpu.address_space_limit is True and cpu.scratch_exec is False
    assert "CUDA_VISIBLE_DEVICES" not in cpu.env


def test_docker_gpu_policy_keeps_landlock_and_asks_no_mount_namespace():
    pytest.importorskip("docker")
    from judge.runners.docker import CPU_POLICY, GPU_POLICY, GPU_WALLS

    spec = worker_spec(LAUNCH, GPU_POLICY, "/pj/inbox/job-1")
    assert "landlock" not in spec.skip and "mount" in spec.skip
    assert spec.address_space_limit is False and spec.devices_rw == list(GPU_DEVICE_NODES)
    assert "memory" in GPU_WALLS and "uid" not in GPU_WALLS and "pid" not in GPU_WALLS  # the job's own, not claimed
    assert worker_spec(LAUNCH, CPU_POLICY, "/pj/inbox/job-1").address_space_limit is True


def test_device_node_globs_expand_beside_the_harmless_three(tmp_path):
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "other"):
        (tmp_path / name).write_text("")
    found = layers.device_nodes([f"{tmp_path}/nvidia[0-9]*", f"{tmp_path}/nvidiactl", f"{tmp_path}/nvidia-uvm*"])
    assert found[:3] == ["/dev/null", "/dev/zero", "/dev/full"]
    assert found[3:] == [str(tmp_path / n) for n in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm")]
    assert layers.device_nodes(["/nonexistent/nvidia*"]) == ["/dev/null", "/dev/zero", "/dev/full"]


def test_the_cuda_environment_passes_by_allowlist_and_the_device_by_slot():
    given = {
        "PATH": "/usr/bin",
        "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
        "CUDA_HOME": "/usr/local/cuda",
        "TRITON_LIBCUDA_PATH": "/usr/lib/wsl/lib",
        "CUDA_VISIBLE_DEVICES": "0,1",  # never inherited: each job gets its slot's device
        "AWS_SECRET_ACCESS_KEY": "x",
        "PRACTICE_TOKEN": "y",
    }
    env = zygote_env(given)
    assert env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64" and env["CUDA_HOME"] == "/usr/local/cuda"
    assert env["TRITON_LIBCUDA_PATH"] == "/usr/lib/wsl/lib"
    assert "CUDA_VISIBLE_DEVICES" not in env and "AWS_SECRET_ACCESS_KEY" not in env and "PRACTICE_TOKEN" not in env


class _Zygote:
    """Records the specs a LocalRunner sends (no process)."""

    alive = True

    def __init__(self):
        self.specs: list[JobSpec] = []

    def run(self, spec: JobSpec, fds):
        self.specs.append(spec)
        return object()


def test_each_local_gpu_job_sees_its_slots_device_and_a_slot_holds_one_job():
    zygote = _Zygote()
    runner = LocalRunner(zygote, GPU_LOCAL_POLICY, tier_plans.GPU_LOCAL, gpu_slots=["2", "5"])  # type: ignore[arg-type]
    first, second = runner.start(LAUNCH, -1), runner.start(LAUNCH, -1)
    assert [s.env["CUDA_VISIBLE_DEVICES"] for s in zygote.specs] == ["2", "5"]
    assert runner._slots.empty()  # both slots busy: a third judgement waits (bounded) for one
    first.close()
    runner.start(LAUNCH, -1)
    assert zygote.specs[-1].env["CUDA_VISIBLE_DEVICES"] == "2"
    second.close()


def test_make_runner_gives_gpu_local_the_gpu_policy_and_the_configured_devices():
    from judge.runners.make import make_runner

    runner = make_runner(tier_plans.GPU_LOCAL, Settings(gpu_devices=["1", "3"]), _Zygote())  # type: ignore[arg-type]
    assert runner.policy is GPU_LOCAL_POLICY and runner.gpu_slots == ["1", "3"]
    assert make_runner(tier_plans.LOCAL, Settings(), _Zygote()).policy is LOCAL_POLICY  # type: ignore[arg-type]


def test_gpu_container_arguments(tmp_path):
    pytest.importorskip("docker")
    from sandbox.docker import WALLS_CAPS, ContainerSpec, run_kwargs

    gpu = run_kwargs(
        ContainerSpec(image="i", preload=("torch",), gpu="1", scratch_exec=True, walls=True), tmp_path, tmp_path
    )
    (request,) = gpu["device_requests"]
    assert request.device_ids == ["1"] and request.capabilities == [["gpu"]]
    assert gpu["user"] == "0:0" and gpu["cap_drop"] == ["ALL"] and gpu["cap_add"] == WALLS_CAPS
    assert "SYS_ADMIN" in gpu["cap_add"] and "NET_ADMIN" not in gpu["cap_add"]
    assert gpu["network_mode"] == "none" and gpu["read_only"] and "no-new-privileges" in gpu["security_opt"]
    assert ",exec," in gpu["tmpfs"]["/tmp"] and "noexec" in gpu["tmpfs"]["/dev/shm"]
    assert gpu["environment"]["NVIDIA_DRIVER_CAPABILITIES"] == "compute,utility"
    assert gpu["mem_limit"] == gpu["memswap_limit"]  # the container's memory limit bounds a GPU job
    cpu = run_kwargs(ContainerSpec(image="i", preload=()), tmp_path, tmp_path)
    assert cpu["device_requests"] is None and cpu["user"] == "10001:10001" and cpu["cap_add"] is None
    assert "noexec" in cpu["tmpfs"]["/tmp"] and "NVIDIA_DRIVER_CAPABILITIES" not in cpu["environment"]


def test_no_world_writable_host_folder_for_a_container():
    pytest.importorskip("docker")
    if os.geteuid() != 0:
        pytest.skip("giving the socket folder to the container's uid needs root")
    from sandbox.docker import ContainerSpec, ContainerZygote

    for walls, uid in ((True, 0), (False, 10001)):
        zygote = ContainerZygote(ContainerSpec(image="i", preload=(), walls=walls), docker_client=object())
        try:
            for folder in (zygote.state, zygote.run_dir, zygote.inbox):
                mode = folder.stat().st_mode
                assert not mode & stat.S_IWOTH, f"{folder} is world-writable"
            assert zygote.run_dir.stat().st_uid == uid and stat.S_IMODE(zygote.run_dir.stat().st_mode) == 0o700
        finally:
            zygote.close()


# -- the GPU policy in a real sandboxed job (a zygote without torch starts in a fraction of a second) --


def probe_job(fds, payload):
    """In the job: the address-space limit, and which of the given files may be opened for writing."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    print("AS", "unlimited" if soft == resource.RLIM_INFINITY else soft)
    for path in payload["paths"]:
        try:
            with open(path, "r+b"):
                print("OPEN", os.path.basename(path), "ok")
        except OSError as exc:
            print("OPEN", os.path.basename(path), type(exc).__name__)


@pytest.fixture(scope="module")
def bare_zygote():
    zygote = ZygoteClient([], "gpu-policy-test").start()
    zygote.wait_ready(60)
    yield zygote
    zygote.close()


def _run(zygote: ZygoteClient, tmp: Path, **spec: object) -> str:
    paths = [str(tmp / "nvidia0"), str(tmp / "other")]
    for path in paths:
        Path(path).write_text("")
    tmp.chmod(0o755)
    for path in paths:
        os.chmod(path, 0o666)
    facts = zygote.run(
        JobSpec(
            target=f"{__name__}:probe_job",
            isolate=True,
            wall_s=20,
            memory_bytes=1 << 30,
            skip=["memory", "mount", "uid"],  # the address-space fallback is what a GPU job must not get
            payload={"paths": paths},
            **spec,  # type: ignore[arg-type]
        )
    ).wait(60)
    assert facts is not None and facts.exit_code == 0, facts
    return facts.output_tail


def test_a_gpu_job_has_no_address_space_limit_and_opens_only_its_device_nodes(bare_zygote, tmp_path):
    if host.current().status["landlock"] != "active" or host.current().status["rlimits"] != "active":
        pytest.skip(f"needs Landlock and rlimits: {host.current().status['landlock']}")
    gpu = _run(bare_zygote, tmp_path, devices_rw=[f"{tmp_path}/nvidia[0-9]*"], address_space_limit=False)
    assert "AS unlimited" in gpu
    assert "OPEN nvidia0 ok" in gpu and "OPEN other PermissionError" in gpu  # Landlock: only the listed node
    cpu = _run(bare_zygote, tmp_path)
    assert "AS unlimited" not in cpu and "OPEN nvidia0 PermissionError" in cpu


def test_landlock_rules_grant_device_nodes_file_rights_only():
    assert landlock.FILE_RIGHTS & landlock.FS_IOCTL_DEV  # CUDA drives its device nodes by ioctl
    assert not landlock.FILE_RIGHTS & (landlock.FS_MAKE_CHAR | landlock.FS_MAKE_BLOCK | landlock.FS_REMOVE_FILE)
