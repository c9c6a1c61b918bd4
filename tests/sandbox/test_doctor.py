"""`judge doctor`: every layer with its state, versions, and a look from inside a sandboxed job; exit 0. The text
reads as sentences in the learner's language; `--json` keeps the machine form."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from judge.cli.doctor_words import layer_name
from judge.report.catalog import say
from sandbox.host import LAYERS
from sandbox.paths import REPO_ROOT


def _doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", "doctor", *args], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )


def test_doctor_json():
    done = _doctor("--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(LAYERS) <= set(found["layers"])
    assert all(isinstance(state, str) and state for state in found["layers"].values())
    assert found["versions"]["torch"] and found["versions"]["python"]
    if found["layers"]["seccomp"] == "active":
        assert found["inside"]["open an inet socket"].startswith("blocked")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_doctor_text_reads_as_sentences_in_the_learners_language(lang):
    done = _doctor("--no-live", "--lang", lang)
    assert done.returncode == 0, done.stderr
    found = json.loads(_doctor("--no-live", "--json").stdout)
    out = done.stdout
    assert out.startswith(say("doctor.title").get(lang))
    for name, state in found["layers"].items():  # every layer by its name in this language, and why it is off
        assert layer_name(name).get(lang) in out
        if state != "active":
            assert say("doctor.missing", name=layer_name(name), why=state.rstrip(".")).get(lang) in out
    assert found["versions"]["torch"] in out and say("doctor.no_inside").get(lang) in out
    assert ("判" in out) == (lang == "zh") and "{" not in out  # no JSON dump, no English-only framing in zh
    last = out.strip().splitlines()[-1]
    all_on = all(state == "active" for state in found["layers"].values())
    weaker = say("doctor.weaker", names="").get(lang)[:6]
    assert last == say("doctor.ok").get(lang) if all_on else last.startswith(weaker)
