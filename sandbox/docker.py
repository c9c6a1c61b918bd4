"""Host side of the docker runner: a long-lived worker container driven by the host's ZygoteClient.

One container per GPU or per CPU slot: no network, memory and pids limits, every capability dropped,
no-new-privileges, a read-only root, a tmpfs scratch, a non-root user, and for a GPU runner one device.
Inside runs sandbox.listen (a worker zygote); the host connects to its unix socket through a bind-mounted
folder and sends jobs with their fds as it does to a local zygote. The checker never enters the container.
DOCKER_HOST (and the rest of docker's environment) is honoured through docker.from_env().
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from docker.models.containers import Container
from docker.types import DeviceRequest, Mount

import docker
from sandbox.client import ZygoteClient, ZygoteDied

RUN_DIR = "/pj/run"  # in the container: where its zygote's socket appears (bind mount, read-write)
INBOX_DIR = "/pj/inbox"  # in the container: the host's job folders (bind mount, read-only)
USER = "10001:10001"
# A container with walls of its own per job (ContainerSpec.walls): its zygote is root in the container, with
# only the capabilities it needs to give each job a uid of its own (setuid/setgid, chown of the job folder)
# and namespaces of its own (sys_admin, for unshare: pid, ipc, uts, network), and to kill what a job leaves.
# Each job drops every capability when it leaves root (sandbox.privileges), before the learner's code runs.
WALLS_USER = "0:0"
WALLS_CAPS = ["SETUID", "SETGID", "SYS_ADMIN", "KILL", "CHOWN", "FOWNER", "DAC_OVERRIDE"]
START_TIMEOUT_S = 120
HEALTH_TIMEOUT_S = 10
ROLE_LABEL = "practice-judge.role"


@dataclass(frozen=True)
class ContainerSpec:
    image: str
    preload: tuple[str, ...]
    memory_bytes: int = 4 << 30
    pids: int = 512
    gpu: str | None = None  # a device id ("0") or None for a CPU runner
    scratch_bytes: int = 512 << 20
    scratch_exec: bool = False  # the tmpfs scratch may hold programs and libraries (Triton's, on a GPU)
    name: str = "worker"
    env: dict[str, str] = field(default_factory=dict)
    walls: bool = False  # per-job uid and namespaces inside the container (WALLS_USER, WALLS_CAPS)


def client() -> docker.DockerClient:
    return docker.from_env(timeout=300)


def run_kwargs(spec: ContainerSpec, run_dir: Path, inbox: Path) -> dict:
    """The container's walls, as arguments of docker's containers.run."""
    scratch = f"rw,nosuid,nodev,{'exec' if spec.scratch_exec else 'noexec'},size={spec.scratch_bytes}"
    return dict(
        command=["--socket", f"{RUN_DIR}/zygote.sock", "--preload", ",".join(spec.preload)],
        detach=True,
        init=True,
        network_mode="none",
        user=WALLS_USER if spec.walls else USER,
        read_only=True,
        cap_drop=["ALL"],
        cap_add=list(WALLS_CAPS) if spec.walls else None,
        security_opt=["no-new-privileges"],
        mem_limit=spec.memory_bytes,
        memswap_limit=spec.memory_bytes,
        pids_limit=spec.pids,
        tmpfs={"/tmp": scratch, "/dev/shm": "rw,nosuid,nodev,noexec,size=64m"},
        mounts=[Mount(RUN_DIR, str(run_dir), type="bind"), Mount(INBOX_DIR, str(inbox), type="bind", read_only=True)],
        device_requests=[DeviceRequest(device_ids=[spec.gpu], capabilities=[["gpu"]])] if spec.gpu else None,
        environment={
            "HOME": "/tmp",
            "USER": "judge",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            # What the NVIDIA toolkit mounts in: the driver's compute libraries and nvidia-smi (the health check).
            **({"NVIDIA_DRIVER_CAPABILITIES": "compute,utility"} if spec.gpu else {}),
            **spec.env,
        },
        labels={ROLE_LABEL: "worker"},
    )


class ContainerZygote(ZygoteClient):
    """A worker zygote in its own container; close() removes the container."""

    def __init__(self, spec: ContainerSpec, docker_client: docker.DockerClient | None = None):
        super().__init__(list(spec.preload), f"container-{spec.name}")
        self.spec = spec
        self.docker = docker_client or client()
        self.state = Path(tempfile.mkdtemp(prefix="pj-docker-"))
        self.run_dir, self.inbox = self.state / "run", self.state / "inbox"
        self.run_dir.mkdir()
        self.inbox.mkdir(mode=0o755)
        _owned_by_container(self.run_dir, 0 if spec.walls else int(USER.split(":")[0]))
        self.container: Container | None = None

    def start(self) -> ContainerZygote:
        self.container = self.docker.containers.run(self.spec.image, **run_kwargs(self.spec, self.run_dir, self.inbox))
        self._sock = self._connect()
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-reader", daemon=True)
        self._reader.start()
        return self

    def _connect(self) -> socket.socket:
        path, deadline = self.run_dir / "zygote.sock", time.monotonic() + START_TIMEOUT_S
        container = self.container
        assert container is not None  # start() runs the container first
        while time.monotonic() < deadline:
            if path.exists():
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(path))
                return sock
            container.reload()
            if container.status in ("exited", "dead"):
                break
            time.sleep(0.05)
        logs = container.logs(tail=20).decode(errors="replace")
        self.close()
        raise ZygoteDied(f"the worker container did not start its zygote: {logs}")

    @property
    def alive(self) -> bool:
        return self._sock is not None and self._reader is not None and self._reader.is_alive()

    def healthy(self) -> str:
        """'' when the container still runs its zygote (and still sees its GPU), else what is wrong; between jobs."""
        if not self.alive or self.container is None:
            return "its zygote is gone"
        try:
            self.container.reload()
            if self.container.status != "running":
                return f"the container is {self.container.status}"
            if self.spec.gpu:  # a daemon-reload of the host can take a long-lived container's GPU away
                code, out = self.container.exec_run(["timeout", str(HEALTH_TIMEOUT_S), "nvidia-smi", "-L"])
                if code != 0:
                    said = out.decode(errors="replace")[-200:] if isinstance(out, bytes) else "?"  # not streamed
                    return f"the container lost its GPU (nvidia-smi -L: exit {code}: {said})"
        except docker.errors.DockerException as exc:
            return f"the docker engine did not answer: {exc}"
        return ""

    def new_inbox(self) -> tuple[Path, str]:
        """A job folder: its path on this host, and the same folder as the container sees it."""
        folder = Path(tempfile.mkdtemp(prefix="job-", dir=self.inbox))
        folder.chmod(0o755)
        return folder, f"{INBOX_DIR}/{folder.name}"

    def close(self) -> None:
        super().close()
        if self.container is not None:
            try:
                self.container.remove(force=True)
            except docker.errors.APIError:
                pass
            self.container = None
        shutil.rmtree(self.state, ignore_errors=True)


def _owned_by_container(folder: Path, uid: int) -> None:
    """The socket folder: the container's user writes its socket there, and no one else may (never 0777).

    A judge that is not root cannot give a folder away, so there it stays the judge's own, group- and
    world-writable only as a last resort (then said in docs/threat-model.md)."""
    if os.geteuid() == 0:
        os.chown(folder, uid, uid)
        folder.chmod(0o700)
    elif uid == os.geteuid():
        folder.chmod(0o700)
    else:
        folder.chmod(0o777)


def describe_host() -> str:
    return os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock (default)")
