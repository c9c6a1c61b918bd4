"""`judge doctor`'s and `judge daemon status`'s sentences (judge/cli/doctor_words.py, daemon_client.status_lines):
a missing layer names why, the self-test's facts read as words, exercises are grouped by how they are judged."""

from __future__ import annotations

import pytest

from judge.cli import doctor_words as words
from judge.report.catalog import say


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_missing_layer_is_a_sentence_with_its_reason_and_the_verdict_says_weaker(lang):
    plan = {"process": "active", "seccomp": "not available: pyseccomp is not installed", "landlock": "no ABI here"}
    lines = words.layers_said(plan, lang)
    assert lines[0] == say("doctor.some_active", n=3, active=1, names=words.layer_name("process").get(lang)).get(lang)
    assert "pyseccomp is not installed" in lines[1] and words.layer_name("seccomp").get(lang) in lines[1]
    assert words.layer_name("landlock").get(lang) in words.verdict_said(plan, lang)
    assert words.verdict_said({"process": "active"}, lang) == say("doctor.ok").get(lang)


def test_the_self_tests_facts_are_words():
    inside = {"open an inet socket": "blocked (EPERM)", "write in scratch": "allowed", "see /p": "blocked (ENOENT)"}
    zh, en = words.inside_said(inside, "zh"), words.inside_said(inside, "en")
    assert "打开网络套接字：被阻止（EPERM）" in zh and "在自己的临时目录里写文件：允许" in zh and "/p" in zh
    assert "opening a network socket: blocked (EPERM)" in en and "blocked" not in zh
    assert words.inside_said({"something new": "42"}, "en").endswith("something new: 42.")


def test_exercises_are_grouped_by_how_they_are_judged():
    runs = [("100", "cpu", "local", None), ("101", "cpu", "local", None), ("107", "cuda", "local", None)]
    zh = words.runs_said(runs, "zh")
    assert zh[1].strip().startswith("100、101：") and "107：" in zh[2] and "PRACTICE_GPU_RUNNER" in zh[2]
    assert words.runs_said([("107", "cuda", "docker", "gpu-docker")], "en")[1].strip() == say(
        "doctor.runs_cuda", ids="107", where=say("doctor.where.docker"), gpu=say("doctor.where.gpu-docker")
    ).get("en")
