"""`judge doctor`: which isolation layers a worker gets on this host, why any is missing, and a look from inside."""

from __future__ import annotations

import json
import os
import platform
import sys

from judge.cli import doctor_words as words
from judge.report.catalog import say
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


def _plans(settings: Settings) -> tuple[list[tuple[str, str]], list[tuple[str, str, str, str | None]]]:
    """Which runner judges each problem (and each tier), and why: rows for --json, and (problem, device, CPU
    runner, GPU runner or None) for the sentences."""
    from judge.problem.folders import ProblemSet  # noqa: PLC0415
    from judge.runners import plan as tier_plans  # noqa: PLC0415

    try:
        problems = ProblemSet(settings.problems_dir).all()
    except Exception as exc:  # noqa: BLE001 - the doctor reports, it does not crash
        return [("problems", f"could not be loaded: {exc}")], []
    docker_host = os.environ.get("DOCKER_HOST", "the default socket")
    rows: list[tuple[str, str]] = []
    runs: list[tuple[str, str, str, str | None]] = []
    for p in problems:
        planned = tier_plans.plan(p.meta, settings)
        rows.append((f"{p.id}-{p.meta.slug}", planned.why))
        gpu = next((step.runner for step in planned.passes if step.runner in tier_plans.GPU_RUNNERS), None)
        runs.append((p.id, p.meta.device, planned.passes[0].runner, gpu))
    return rows + [("docker engine", f"{docker_host} (used by the docker runners only)")], runs


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
    runners, runs = _plans(settings)
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
    lang = settings.lang
    print(say("doctor.title").get(lang) + "\n")
    print(
        say("doctor.versions", **{k: versions[k] for k in ("python", "torch", "judge", "pyseccomp", "platform")}).get(
            lang
        )
    )
    print()
    print("\n".join(words.layers_said(plan, lang)))
    print()
    print(words.inside_said(dict(inside), lang))
    print()
    print("\n".join(words.runs_said(runs, lang) + words.gpu_said(gpu_runners, lang)))
    print()
    print(say("doctor.details").get(lang))
    _print_table(list(details.items()))
    print("\n" + words.verdict_said(plan, lang))
    return 0
