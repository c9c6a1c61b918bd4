"""`judge doctor` in sentences, in the learner's language: the machine, the sandbox's layers and why any is missing,
what a sandboxed job saw from inside, how each exercise is judged, and a verdict. `--json` keeps the machine form."""

from __future__ import annotations

import re

from judge.report.catalog import MESSAGES, say
from judge.report.i18n import Lang, Text

# What the sandbox's self-test reports (sandbox/selftest.py), by its key, as the catalogue's doctor.fact.* words.
FACTS = {
    "uid": "uid",
    "pid in namespace": "pid",
    "open an inet socket": "inet",
    "read /etc/shadow": "shadow",
    "write outside scratch (/var/tmp)": "outside",
    "write in scratch": "scratch",
    "write to a fenced channel": "fenced",
    "layer setup": "setup",
    "self-test": "failed",
}
BLOCKED = re.compile(r"^blocked \((?P<code>[A-Z0-9]+)\)$")


def layer_name(name: str) -> Text:
    key = f"doctor.layer.{name}"
    return say(key) if key in MESSAGES else Text.same(name)


def _joined(texts: list[Text], lang: Lang) -> str:
    return ("、" if lang == "zh" else ", ").join(t.get(lang) for t in texts)


def _outcome(value: str) -> Text:
    """`blocked (EPERM)` / `allowed` in words; anything else (a uid, a time) as it is."""
    blocked = BLOCKED.match(value)
    if blocked:
        return say("doctor.blocked", code=blocked["code"])
    return say("doctor.allowed") if value == "allowed" else Text.same(value)


def fact(key: str, value: str) -> Text:
    if key.startswith("see "):
        return say("doctor.fact.see", path=key.removeprefix("see "), value=_outcome(value))
    if key in FACTS:
        return say(f"doctor.fact.{FACTS[key]}", value=_outcome(value))
    return Text.same(f"{key}: {value}")


def layers_said(plan: dict[str, str], lang: Lang) -> list[str]:
    """The layers in one sentence, then one per missing layer with the sandbox's own reason."""
    active = [layer_name(name) for name, state in plan.items() if state == "active"]
    missing = {name: state for name, state in plan.items() if state != "active"}
    names = _joined(active, lang)
    head = (
        say("doctor.all_active", n=len(plan), names=names)
        if not missing
        else say("doctor.some_active", n=len(plan), active=len(active), names=names)
    )
    return [head.get(lang)] + [
        "  " + say("doctor.missing", name=layer_name(name), why=why.rstrip(".")).get(lang)
        for name, why in missing.items()
    ]


def inside_said(inside: dict[str, str], lang: Lang) -> str:
    if not inside:
        return say("doctor.no_inside").get(lang)
    facts = ("；" if lang == "zh" else "; ").join(fact(k, v).get(lang) for k, v in inside.items())
    return say("doctor.inside", facts=facts).get(lang)


def runs_said(runs: list[tuple[str, str, str, str | None]], lang: Lang) -> list[str]:
    """runs: (problem, device, CPU runner key, GPU runner key or None), grouped into one sentence per way."""
    groups: dict[tuple[str, str, str | None], list[str]] = {}
    for problem, device, cpu, gpu in runs:
        groups.setdefault((device, cpu, gpu), []).append(problem)
    lines = [say("doctor.runs").get(lang)]
    for (device, cpu, gpu), ids in groups.items():
        where, named = say(f"doctor.where.{cpu}"), ("、" if lang == "zh" else ", ").join(ids)
        if device == "cpu":
            said = say("doctor.runs_cpu", ids=named, where=where)
        elif gpu is None:
            said = say("doctor.runs_cuda_skipped", ids=named, where=where)
        else:
            said = say("doctor.runs_cuda", ids=named, where=where, gpu=say(f"doctor.where.{gpu}"))
        lines.append("  " + said.get(lang))
    return lines


def gpu_said(gpu_runners: dict[str, dict[str, object]], lang: Lang) -> list[str]:
    return [
        say("doctor.gpu_ready" if seen["ready"] else "doctor.gpu_not_ready", name=name, why=str(seen["why"])).get(lang)
        for name, seen in gpu_runners.items()
    ]


def verdict_said(plan: dict[str, str], lang: Lang) -> str:
    missing = [layer_name(name) for name, state in plan.items() if state != "active"]
    return (say("doctor.weaker", names=_joined(missing, lang)) if missing else say("doctor.ok")).get(lang)
