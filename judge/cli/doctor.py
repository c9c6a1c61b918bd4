"""`judge doctor`: which isolation layers a worker gets on this host, why any is missing, and a look from inside."""

from __future__ import annotations

import json
import os
import platform
import sys

from judge.settings import Settings
from judge.versions import installed_version

CHECK_TIMEOUT_S = 60


def _print_table(rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")


def _live_check(settings: Settings) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Run the self-test in a real isolated job (a zygote without torch starts in a fraction of a second).

    Returns what the job saw from the inside and the layers the zygote reported for it.
    """
    from sandbox import JobSpec, ZygoteClient  # noqa: PLC0415

    zygote = ZygoteClient([], "doctor-zygote").start()
    try:
        zygote.wait_ready(CHECK_TIMEOUT_S)
        secret = [str(settings.problems_dir)]
        facts = zygote.run(
            JobSpec(
                target="sandbox.selftest:check",
                isolate=True,
                wall_s=20,
                memory_bytes=2 << 30,
                hide=secret,
                payload={"secret": secret},
            )
        ).wait(CHECK_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - the doctor reports, it does not crash
        return [("self-test", f"could not run a sandboxed job: {type(exc).__name__}: {exc}")], {}
    finally:
        zygote.close()
    if facts is None:
        return [("self-test", "did not finish")], {}
    for line in facts.output_tail.splitlines():
        if line.startswith("SELFTEST "):
            rows = list(json.loads(line[len("SELFTEST ") :]).items())
            return rows + [("layer setup", f"{facts.setup_s * 1000:.0f} ms" if facts.setup_s else "-")], facts.layers
    return [
        ("self-test", f"failed (exit {facts.exit_code}, signal {facts.signal}): {facts.output_tail[-500:]}")
    ], facts.layers


def _runner_rows(settings: Settings) -> list[tuple[str, str]]:
    """Which runner judges each problem (and each tier), and why."""
    from judge.problem.folders import ProblemSet  # noqa: PLC0415
    from judge.runners import plan as tier_plans  # noqa: PLC0415

    try:
        problems = ProblemSet(settings.problems_dir).all()
    except Exception as exc:  # noqa: BLE001 - the doctor reports, it does not crash
        return [("problems", f"could not be loaded: {exc}")]
    docker_host = os.environ.get("DOCKER_HOST", "the default socket")
    rows = [(f"{p.id}-{p.meta.slug}", tier_plans.plan(p.meta, settings).why) for p in problems]
    return rows + [("docker engine", f"{docker_host} (used by the docker runners only)")]


def gpu_runner_status(settings: Settings, live: bool = True) -> dict[str, dict[str, object]]:
    """Each configured GPU runner: its canary's answer (judge.runners.canary) and its jobs' isolation layers."""
    from judge.runners import canary  # noqa: PLC0415
    from judge.runners import plan as tier_plans  # noqa: PLC0415

    key = tier_plans.gpu_runner(settings)
    if key is None:
        return {}
    if not live:
        return {key: {"ready": False, "why": "not checked (--no-live: the canary is a sandboxed job)", "layers": []}}
    from judge.service import Judge  # noqa: PLC0415

    with Judge(settings) as judge:
        try:
            result = canary.check(judge.runner(key))
        except Exception as exc:  # noqa: BLE001 - the doctor reports, it does not crash
            result = canary.CanaryResult(False, f"the runner could not start: {type(exc).__name__}: {exc}")
    return {key: {"ready": result.ready, "why": result.why, "layers": result.active_layers()}}


def run_doctor(settings: Settings, live: bool = True, as_json: bool = False) -> int:
    from sandbox import host, layers  # noqa: PLC0415
    from sandbox.base import JobSpec  # noqa: PLC0415

    versions = {
        "python": f"{platform.python_version()} ({sys.executable})",
        "torch": installed_version("torch", "not installed"),
        "judge": installed_version("practice-judge", "not installed"),
        "pyseccomp": installed_version("pyseccomp", "not installed"),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
    }
    inside, plan = _live_check(settings) if live else ([], {})
    # The zygote's own report is the truth; probing here (another process) is the fallback.
    plan = plan or layers.plan(JobSpec(target="-", isolate=True, memory_bytes=2 << 30))
    details = {**host.current().details(), "problems folder": str(settings.problems_dir)}
    runners = _runner_rows(settings)
    gpu_runners = gpu_runner_status(settings, live)
    if as_json:
        print(
            json.dumps(
                {
                    "versions": versions,
                    "layers": plan,
                    "details": details,
                    "inside": dict(inside),
                    "runners": dict(runners),
                    "gpu_runners": gpu_runners,
                }
            )
        )
        return 0
    print("practice-judge doctor")
    _print_table(list(versions.items()))
    print("\nisolation layers of a worker:")
    _print_table(list(plan.items()))
    print("\ndetails:")
    _print_table(list(details.items()))
    print("\nrunners (PRACTICE_SANDBOX, PRACTICE_GPU_RUNNER):")
    _print_table(runners)
    if gpu_runners:
        print("\nGPU runners (the canary: CUDA, an allocation, a Triton kernel, in a sandboxed job):")
        _print_table(
            [
                (name, str(seen["why"]) if seen["ready"] else f"not ready: {seen['why']}")
                for name, seen in gpu_runners.items()
            ]
        )
    if inside:
        print("\nfrom inside a sandboxed job:")
        _print_table(inside)
    missing = [name for name, state in plan.items() if state != "active"]
    print(
        "\n"
        + (
            "every layer is active"
            if not missing
            else f"judging works, with weaker isolation: {', '.join(missing)} not active (reasons above)"
        )
    )
    return 0
