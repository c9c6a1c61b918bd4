"""The steps of bench/gpu_check.sh: each prints one JSON object {"step", "ok", "summary", ...} as its last line.

    python bench/gpu_check.py STEP [--runner local|docker]

Steps: facts, fork, layers, walls, exercise, attacks, concurrent, post. Nothing here is timed against a
wall-clock target: the shell script gives each step its own timeout and collects the lines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PIN = "2.13.0"
EXERCISE = "107"


def _sh(*argv: str, timeout: float = 20) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        return (done.stdout + done.stderr).strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _torch_label() -> dict[str, Any]:
    import torch

    on_pin = torch.__version__.split("+")[0] == PIN
    return {"torch": torch.__version__, "cuda": torch.version.cuda, "pin": "on-pin" if on_pin else "OFF-PIN"}


def facts(args: argparse.Namespace) -> dict[str, Any]:
    """The host: nvidia-smi, device nodes, kernel, versions, and whether the Triton launcher is built at run time."""
    found: dict[str, Any] = {"kernel": platform.release(), "python": platform.python_version()}
    found["nvidia_smi"] = _sh("nvidia-smi", "--query-gpu=index,name,driver_version,memory.total", "--format=csv")
    found["device_nodes"] = sorted(n for n in os.listdir("/dev") if n.startswith("nvidia"))
    found.update(_torch_label())
    try:
        import triton
        import triton.backends.nvidia.driver as driver

        code = Path(driver.__file__).read_text()
        found["triton"] = triton.__version__
        # 3.x: CudaUtils compiles driver.c (cuda_utils, the generic launcher) with compile_module_from_file.
        found["launcher_built_at_run_time"] = "compile_module_from_file" in code or "compile_module_from_src" in code
        found["cc"] = os.environ.get("CC") or _sh("sh", "-c", "command -v gcc || command -v clang") or "none"
    except Exception as exc:  # noqa: BLE001 - a fact, not a failure of the step
        found["triton"] = f"not importable: {exc}"
    found["docker"] = _sh("docker", "version", "--format", "{{.Server.Version}}")
    found["toolkit"] = _sh("nvidia-container-cli", "--version")[:200]
    ok = bool(found["device_nodes"]) and "not importable" not in str(found.get("triton"))
    summary = f"{found['torch']} ({found['pin']}), triton {found.get('triton')}, nodes {len(found['device_nodes'])}"
    return {"ok": ok, "summary": summary, **found}


def _zygote(preload: list[str]) -> Any:
    from sandbox import ZygoteClient

    zygote = ZygoteClient(preload, "gpu-check").start()
    zygote.wait_ready(180)
    return zygote


def _run_canary(zygote: Any, **spec_fields: Any) -> dict[str, Any]:
    """The canary job straight through a zygote, with the GPU policy's spec changed by spec_fields."""
    import tempfile

    from judge.runners import canary
    from judge.runners.base import WorkerLaunch, worker_spec
    from judge.runners.local import GPU_LOCAL_POLICY

    launch = WorkerLaunch(
        source="",
        probes_path=None,
        display_name="canary.py",
        wall_s=120,
        memory_bytes=8 << 30,
        output_bytes=1 << 16,
        target=canary.TARGET,
    )
    scratch = tempfile.mkdtemp(prefix="pj-check-")
    spec = worker_spec(launch, GPU_LOCAL_POLICY, scratch, env={"CUDA_VISIBLE_DEVICES": os.environ.get("GPU", "0")})
    for name, value in spec_fields.items():
        setattr(spec, name, value)
    started = time.monotonic()
    facts = zygote.run(spec).wait(180)
    seconds = round(time.monotonic() - started, 2)
    if facts is None:
        return {"ok": False, "why": "did not finish in 180 s", "s": seconds}
    for line in reversed(facts.output_tail.splitlines()):
        if line.startswith(canary.MARK):
            seen = json.loads(line[len(canary.MARK) :])
            return {"ok": seen["ok"], "why": seen["why"], "s": seconds}
    return {"ok": False, "why": facts.sandbox_error or facts.output_tail[-300:], "s": seconds}


def fork(args: argparse.Namespace) -> dict[str, Any]:
    """No CUDA in the zygote (its preload), and a child forked from it can use CUDA."""
    from judge.runners.base import WORKER_PRELOAD

    zygote = _zygote(list(WORKER_PRELOAD))
    try:
        plain = _run_canary(zygote, isolate=False)
    finally:
        zygote.close()
    return {"ok": plain["ok"], "summary": plain["why"], "forked_child": plain}


# Each row changes one thing of the GPU policy; `expect` says whether CUDA should still work.
LAYER_ROWS: list[tuple[str, dict[str, Any], bool]] = [
    ("GPU policy (all layers)", {}, True),
    ("without landlock", {"skip": ["landlock"]}, True),
    ("without seccomp", {"skip": ["seccomp"]}, True),
    ("without mount", {"skip": ["mount"]}, True),
    ("without pid/ipc/uts/network", {"skip": ["pid", "ipc", "uts", "network"]}, True),
    ("without uid", {"skip": ["uid"]}, True),
    ("with the CPU policy's address-space rlimit", {"address_space_limit": True, "skip": ["memory"]}, False),
    ("Landlock without the device nodes", {"devices_rw": []}, False),
    ("noexec scratch", {"scratch_exec": False}, False),
]


def layers(args: argparse.Namespace) -> dict[str, Any]:
    """The canary under each layer combination: the table shows which layer breaks CUDA."""
    from judge.runners.base import WORKER_PRELOAD

    zygote = _zygote(list(WORKER_PRELOAD))
    rows = []
    try:
        for name, fields, expect in LAYER_ROWS:
            seen = _run_canary(zygote, **fields)
            rows.append({"row": name, "cuda": seen["ok"], "expected": expect, "why": seen["why"][:160]})
    finally:
        zygote.close()
    ok = all(row["cuda"] == row["expected"] for row in rows)
    broken = [row["row"] for row in rows if not row["cuda"]]
    return {"ok": ok, "summary": f"CUDA fails: {', '.join(broken) or 'nowhere'}", "rows": rows}


def _judge(runner: str, problems_dir: Path | None = None) -> Any:
    from judge import Judge
    from judge.settings import Settings

    where = {"problems_dir": problems_dir} if problems_dir else {}
    return Judge(Settings(gpu_runner=runner, **where)).warm()  # type: ignore[arg-type]


def _walls_job(runner: Any, target: str, payload: dict[str, str] | None = None) -> dict[str, Any]:
    from judge.runners import walls_jobs
    from judge.runners.base import WorkerLaunch

    ours, theirs = socket.socketpair()
    run = runner.start(
        WorkerLaunch(
            source="",
            probes_path=None,
            display_name="walls.py",
            wall_s=60,
            memory_bytes=8 << 30,
            output_bytes=1 << 16,
            target=f"judge.runners.walls_jobs:{target}",
            payload=payload or {},
        ),
        theirs.fileno(),
    )
    theirs.close()
    try:
        facts = run.wait(90)
    finally:
        run.close()
        ours.close()
    if facts is None:
        return {"error": "did not finish"}
    for line in reversed(facts.output_tail.splitlines()):
        if line.startswith(walls_jobs.MARK):
            return {**json.loads(line[len(walls_jobs.MARK) :]), "layers": facts.layers}
    return {"error": facts.sandbox_error or facts.output_tail[-300:]}


def walls(args: argparse.Namespace) -> dict[str, Any]:
    """Walls between GPU jobs: own uid and pid namespace, no signal to the zygote, leftovers gone, device memory."""
    from judge.runners.plan import GPU_DOCKER, GPU_LOCAL

    key = GPU_DOCKER if args.runner == "docker" else GPU_LOCAL
    with _judge(args.runner) as judge:
        runner = judge.runner(key)
        first = _walls_job(runner, "look", {"leave": "1"})
        second = _walls_job(runner, "look")
        left = _walls_job(runner, "leave_pattern")
        found = _walls_job(runner, "find_pattern")
    checks = {
        "own uid": first.get("uid") not in (None, 0, 10001),
        "own pid namespace": first.get("pid") in (1, 2),
        "cannot signal pid 1": first.get("signal_1") != "allowed",
        "leftovers gone": "left-by-a-job" not in second.get("tmp", []) + second.get("shm", []),
        "device memory not readable by the next job": found.get("found", 1) == 0,
    }
    if key == GPU_LOCAL:  # a local job's /tmp is its own mount namespace's anyway
        checks["leftovers gone"] = checks["leftovers gone"] or first.get("layers", {}).get("mount") == "active"
    bad = [name for name, good in checks.items() if not good]
    return {
        "ok": not bad,
        "summary": "all walls hold" if not bad else f"open: {', '.join(bad)}",
        "checks": checks,
        "jobs": {"first": first, "second": second, "left": left, "found": found},
    }


def _solution(name: str) -> str:
    (folder,) = ROOT.glob(f"problems/{EXERCISE}-*")
    return (folder / "solutions" / name).read_text()


def _verdict_line(source: str) -> str:
    first = source.splitlines()[0] if source else ""
    return first.split(":", 1)[1].strip() if first.startswith("# expect:") else "accepted"


def exercise(args: argparse.Namespace) -> dict[str, Any]:
    """107's reference and two wrong solutions through both tiers; the GPU tier must have run."""
    names = ["reference.py", "wrong/missing_mask.py", "wrong/store_unmasked.py"]
    rows = []
    with _judge(args.runner) as judge:
        for name in names:
            source = _solution(name)
            started = time.monotonic()
            report = judge.grade(EXERCISE, source)
            failed = [c for c in report.cases if c.outcome.value not in ("passed", "skipped")]
            gpu_failed = [f"{c.name}: {c.message.en[:100]}" for c in failed if "cuda" in c.name or "gpu" in c.name]
            rows.append(
                {
                    "solution": name,
                    "expect": _verdict_line(source),
                    "verdict": report.verdict.value,
                    "tiers": report.tiers,
                    "passed": f"{report.passed}/{report.total}",
                    "s": round(time.monotonic() - started, 1),
                    "gpu_messages": gpu_failed[:3],
                    "detail": report.detail[:300],
                }
            )
    # A wrong solution must also fail on the GPU tier with that tier's own message (its cuda-parametrised or
    # gpu-marked cases), not only on the interpreter's CPU tier.
    ok = all(
        r["verdict"] == r["expect"]
        and r["tiers"].get("gpu") == "ran"
        and (r["solution"] == "reference.py" or r["gpu_messages"])
        for r in rows
    )
    return {"ok": ok, "summary": "; ".join(f"{r['solution']}: {r['verdict']} {r['tiers']}" for r in rows), "rows": rows}


# GPU attacks on the tests' two-tier fixture (950: wall 30 s, `add` on both tiers): each acts at import on the
# GPU pass only (the CPU pass runs under TRITON_INTERPRET=1), so the verdict is the attack's. (name, source, fine)
ATTACK_PROBLEM, ATTACK_PROBLEMS = "950", ROOT / "tests" / "docker" / "fixtures" / "problems"
ATTACK_HEAD = "import os\n\n\ndef add(a, b):\n    return a + b\n\n\nif os.environ.get('TRITON_INTERPRET') != '1':\n"
ATTACKS: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "endless kernel",
        "import torch, triton, triton.language as tl\n@triton.jit\ndef k(p):\n    i = 0\n"
        "    while tl.load(p) >= 0:\n        i += 1\n"
        "x = torch.zeros(1, device='cuda')\nk[(1,)](x)\ntorch.cuda.synchronize()\n",
        ("time_limit_exceeded", "compile_error"),
    ),
    (
        "far out-of-bounds store",
        "import torch, triton, triton.language as tl\n@triton.jit\ndef k(p):\n    tl.store(p + (1 << 40), 1.0)\n"
        "x = torch.zeros(1, device='cuda')\nk[(1,)](x)\ntorch.cuda.synchronize()\n",
        ("compile_error", "runtime_error"),
    ),
    (
        "VRAM hog",
        "import torch\nheld = []\nwhile True:\n"
        "    held.append(torch.empty(1 << 28, dtype=torch.uint8, device='cuda'))\n",
        ("compile_error", "runtime_error", "memory_limit_exceeded"),
    ),
    (
        "signal to the zygote",
        "import os, signal\nfor pid in (os.getppid(), 1):\n    try:\n        os.kill(pid, signal.SIGSTOP)\n"
        "    except OSError:\n        pass\n",
        ("compile_error", "wrong_answer", "runtime_error", "accepted"),  # accepted: the signals did nothing
    ),
    (
        "native-extension takeover",
        "import os, subprocess, sys\nsrc = os.path.join(os.getcwd(), 'x.c')\n"
        "open(src, 'w').write('#include <Python.h>\\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, \"x\"};\\n"
        "PyMODINIT_FUNC PyInit_x(void) { return PyModule_Create(&m); }\\n')\n"
        "import sysconfig\nso = os.path.join(os.getcwd(), 'x' + sysconfig.get_config_var('EXT_SUFFIX'))\n"
        "inc = '-I' + sysconfig.get_paths()['include']\n"
        "subprocess.run(['gcc', '-shared', '-fPIC', inc, src, '-o', so], check=True)\n"
        "sys.path.insert(0, os.getcwd())\nimport x\nraise SystemExit('NATIVE CODE LOADED')\n",
        ("compile_error", "runtime_error"),
    ),
]


def attacks(args: argparse.Namespace) -> dict[str, Any]:
    """Each attack's verdict (never internal_error, never accepted), then a canary: the runner survived it."""
    from judge.runners import canary
    from judge.runners.plan import GPU_DOCKER, GPU_LOCAL

    key = GPU_DOCKER if args.runner == "docker" else GPU_LOCAL
    rows = []
    import textwrap

    with _judge(args.runner, ATTACK_PROBLEMS) as judge:
        for name, body, fine in ATTACKS:
            started = time.monotonic()
            report = judge.grade(ATTACK_PROBLEM, ATTACK_HEAD + textwrap.indent(body, "    "))
            after = canary.check(judge.runner(key))
            rows.append(
                {
                    "attack": name,
                    "verdict": report.verdict.value,
                    "fine": report.verdict.value in fine and report.tiers.get("gpu") == "ran",  # else: tested nothing
                    "gpu_tier": report.tiers.get("gpu"),
                    "canary_after": after.ready,
                    "s": round(time.monotonic() - started, 1),
                    "native_loaded": "NATIVE CODE LOADED" in report.detail + report.run.output_tail,
                    "flags": report.flags,
                }
            )
    ok = all(r["fine"] and r["canary_after"] for r in rows)
    return {"ok": ok, "summary": "; ".join(f"{r['attack']}: {r['verdict']}" for r in rows), "rows": rows}


def concurrent(args: argparse.Namespace) -> dict[str, Any]:
    """Two judgements of 107's reference at once: both accepted, through both tiers."""
    results: list[Any] = [None, None]
    with _judge(args.runner) as judge:
        source = _solution("reference.py")

        def one(slot: int) -> None:
            results[slot] = judge.grade(EXERCISE, source)

        started = time.monotonic()
        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        seconds = round(time.monotonic() - started, 1)
    verdicts = [(r.verdict.value, r.tiers) if r else ("unfinished", {}) for r in results]
    ok = all(v == "accepted" and t.get("gpu") == "ran" for v, t in verdicts)
    return {"ok": ok, "summary": f"{verdicts} in {seconds}s", "s": seconds}


def post(args: argparse.Namespace) -> dict[str, Any]:
    """Postconditions: no GPU process of ours left, device memory back to what it was."""
    apps = _sh("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader")
    used = _sh("nvidia-smi", "--query-gpu=index,memory.used", "--format=csv,noheader")
    leftover = [line for line in apps.splitlines() if line.strip() and "No devices" not in line]
    return {"ok": not leftover and "failed" not in apps.lower(), "summary": f"processes: {leftover or 'none'}; {used}"}


STEPS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "facts": facts,
    "fork": fork,
    "layers": layers,
    "walls": walls,
    "exercise": exercise,
    "attacks": attacks,
    "concurrent": concurrent,
    "post": post,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=sorted(STEPS))
    parser.add_argument("--runner", choices=("local", "docker"), default="local")
    args = parser.parse_args()
    try:
        result = STEPS[args.step](args)
    except Exception as exc:  # noqa: BLE001 - a step that cannot run says why, and the next one runs
        result = {"ok": False, "summary": f"{type(exc).__name__}: {exc}"[:500]}
    try:
        result.setdefault("pin", _torch_label()["pin"])
    except Exception:  # noqa: BLE001
        result.setdefault("pin", "torch not importable")
    print(json.dumps({"step": args.step, "runner": args.runner, **result}, default=str))
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
