"""What a caller asks of a sandboxed job (JobSpec) and what the sandbox observed of it (JobFacts)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# A worker that catches an allocation failure exits with this code so that the sandbox can
# report memory_exceeded even where no cgroup watches it (rlimit-only hosts).
EXIT_MEMORY = 86
# A planned isolation layer could not be applied in the child, so the job did not run (the judge's fault).
EXIT_LAYER = 87
# The worker found, when its session ended, that the submission changed what the judge trusts beyond a reply's
# check (the dispatcher's kernel table): whatever the checker saw is not believed.
EXIT_TAMPERED = 88
STACK_BYTES = 64 << 10  # the most of a job's stack descriptor the zygote keeps


@dataclass
class JobSpec:
    target: str  # "package.module:function", called as function(fds, payload) in the child
    payload: dict = field(default_factory=dict)
    wall_s: float = 60.0
    memory_bytes: int | None = None  # None: no memory limit
    output_bytes: int = 1 << 20  # stdout+stderr budget; more kills the job
    workdir: str | None = None  # scratch folder: cwd, HOME and TMPDIR of the child
    env: dict[str, str] = field(default_factory=dict)
    isolate: bool = False  # apply the untrusted-code layers (rlimits, namespaces, ...)
    threads: int = 1  # torch intra-op threads in the child; also the CPU cgroup quota (cores)
    # Used only with isolate=True, where the host offers the layer:
    scratch_bytes: int = 256 << 20  # private tmpfs holding the (copied) workdir: cwd, HOME, TMPDIR, caches
    scratch_exec: bool = True  # False: scratch is noexec, so no program or library the job writes can run
    shm_bytes: int = 64 << 20  # private /dev/shm
    max_pids: int = 128  # processes and threads (pids cgroup); a fork bomb stops here
    hide: list[str] = field(default_factory=list)  # more host paths the job must not see (e.g. the problems folder)
    skip: list[str] = field(default_factory=list)  # layer names not to apply (reported as skipped)
    degrade: bool = False  # a layer that fails in the child: False fails the job (EXIT_LAYER), True runs on
    # GPU jobs (judge.runners.base.GPU_POLICY): device nodes the job may open read-write besides /dev/null,
    # /dev/zero and /dev/full (globs, expanded in the child: /dev/nvidia*), and no address-space rlimit,
    # since CUDA reserves far more address space than any limit would allow; a cgroup or container bounds them.
    devices_rw: list[str] = field(default_factory=list)
    address_space_limit: bool = True
    # A second way out, after the job's own descriptors: one end of a socket pair whose other end the zygote reads
    # when the job ends (JobFacts.stack). The job's trusted start hands it to what must write there (the worker's
    # stack at a time limit) and fences it from the rest (judge.worker.guard): text its later code cannot forge.
    stack: bool = False
    # A parked job (judge.grading.parking): started before its work is known, waiting for it. Its time limit runs
    # from the client's start_clock, not from the fork; until then it may wait this long, then dies as timed out.
    parked_s: float = 0.0

    def to_wire(self) -> dict:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict) -> JobSpec:
        return cls(**data)


@dataclass
class JobFacts:
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    memory_exceeded: bool = False
    output_exceeded: bool = False
    wall_s: float = 0.0
    peak_memory_mib: float | None = None
    output_tail: str = ""
    layers: dict[str, str] = field(default_factory=dict)
    setup_s: float | None = None  # fork to target start: the sandbox's own cost for this job
    sandbox_error: str = ""  # an isolation layer failed to apply: an infrastructure fault, not the learner's
    leftover_processes: int = 0  # processes of the job still alive when its end was reported (0: none outlived it)
    stack: str = ""  # what the job wrote on its JobSpec.stack descriptor (at most STACK_BYTES)

    def to_wire(self) -> dict:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict) -> JobFacts:
        return cls(**data)
