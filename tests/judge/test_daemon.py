"""The warm local judge behind `python practice/judge.py`: same output as in-process, private, replaced when stale."""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.cli import daemon_client
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS

# One xdist worker for the module: its tests share the module's folder and the warm judges started there.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("daemon")]
REPO = Path(__file__).resolve().parents[2]
GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a * b\n"
# Slow only on its first call, so that the test can stop the warm judge while it is judging this file.
SLOW_ONCE = (
    "import time\ncalls = []\ndef add(a, b):\n    calls.append(1)\n    if len(calls) == 1:\n"
    "        time.sleep(3)\n    return a + b\n"
)
SECONDS = re.compile(r"\d+(\.\d+)?( s| 秒)")


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder of its own: the problems (copied, so one can change), the runtime folder, the learner's files."""
    root = tmp_path_factory.mktemp("warm")
    shutil.copytree(FIXTURE_PROBLEMS, root / "problems")
    (root / "run").mkdir(mode=0o700)
    yield root
    daemon_client.stop_all(settings(root))


def settings(root: Path, **extra) -> Settings:
    return Settings(problems_dir=root / "problems", daemon_dir=root / "run", **extra)


def practice(root: Path, *args: str, daemon: bool = True, env: dict | None = None, wait: bool = True):
    env = {
        **os.environ,
        "PRACTICE_PROBLEMS_DIR": str(root / "problems"),
        "PRACTICE_SOLUTIONS_DIR": str(root / "solutions"),
        "PRACTICE_DAEMON_DIR": str(root / "run"),
        "PRACTICE_DAEMON": "1" if daemon else "0",
        "PRACTICE_LANG": "zh",
        **(env or {}),
    }
    command = [sys.executable, str(REPO / "practice" / "judge.py"), *args]
    if not wait:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=root, timeout=300)


def write(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text, encoding="utf-8")
    return name


def statuses(root: Path, **extra) -> list[dict]:
    return [a for p in daemon_client.daemons(settings(root, **extra)) if (a := daemon_client.ask(p, "status"))]


def shown(result) -> tuple[int, str, str]:
    """What the learner saw, with the measured seconds taken out (they differ from run to run)."""
    return result.returncode, SECONDS.sub("N s", result.stdout), SECONDS.sub("N s", result.stderr)


def test_output_and_exit_status_are_those_of_judging_in_process(place):
    name = write(place, "解答 一.py", BAD)  # the file's own name, shown as it is
    here = practice(place, "900", name, daemon=False)
    first = practice(place, "900", name)  # starts the warm judge
    again = practice(place, "900", name)  # uses it
    assert here.returncode == 1 and "解答 一.py" in here.stdout
    assert shown(first) == shown(here) and shown(again) == shown(here), (here.stderr, again.stderr)
    [status] = statuses(place)
    assert status["busy"] == 0 and status["identity"]["problems_dir"] == str((place / "problems").resolve())
    good = write(place, "good.py", GOOD)
    warm = timeless(json.loads(practice(place, "900", good, "--json").stdout))
    assert warm["verdict"] == "accepted" and warm == timeless(
        json.loads(practice(place, "900", good, "--json", daemon=False).stdout)
    )


def timeless(value):
    """A JSON report without what differs between two judgements of the same file: when, and how long."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in ("judged_at", "duration_s")}
    return [timeless(v) for v in value] if isinstance(value, list) else value


def test_the_socket_is_private_and_two_terminals_share_one_judge(place):
    practice(place, "900", write(place, "good.py", GOOD))
    [path] = daemon_client.daemons(settings(place))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE((place / "run").stat().st_mode) == 0o700
    runs = [practice(place, "900", write(place, f"t{i}.py", (GOOD, BAD)[i]), "--json", wait=False) for i in (0, 1)]
    verdicts = [json.loads(run.communicate(timeout=300)[0])["verdict"] for run in runs]
    # one judge served both (it may be a fresh one: an edit of the judge's files in between replaces it)
    assert verdicts == ["accepted", "wrong_answer"] and len(statuses(place)) == 1


def test_a_judge_that_dies_mid_run_is_said_once_and_the_verdict_comes_from_in_process(place):
    practice(place, "900", write(place, "good.py", GOOD))  # warm
    pid = statuses(place)[0]["pid"]
    run = practice(place, "900", write(place, "slow.py", SLOW_ONCE), "--lang", "en", wait=False)
    deadline = time.monotonic() + 120
    while not any(s["busy"] for s in statuses(place)):  # the run is under way in the warm judge
        assert time.monotonic() < deadline and run.poll() is None, "the run never reached the warm judge"
        time.sleep(0.05)
    os.killpg(pid, signal.SIGKILL)  # the daemon leads its own session: it and its warm parents go at once
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0 and "Result: accepted" in out, out + err
    assert err.count("the warm local judge ended during this run") == 1


def test_a_changed_problem_restarts_it_and_other_settings_get_their_own(place):
    practice(place, "900", write(place, "good.py", GOOD))
    old = statuses(place)[0]["pid"]
    with open(place / "problems" / "900-echo" / "tests" / "test_public.py", "a", encoding="utf-8") as tests:
        tests.write("\n# changed\n")
    replaced = practice(place, "900", "good.py", env={"PRACTICE_LANG": "en"})
    assert replaced.returncode == 0
    # the replacement says why, in one line (the run is cold: the learner should know it is the judge's doing)
    assert "The warm local judge was out of date (the files of problem 900 changed)" in replaced.stderr, replaced.stderr
    assert [s["pid"] for s in statuses(place)] != [old] and len(statuses(place)) == 1
    other = {"PRACTICE_WORKER_THREADS": "2", "PRACTICE_DAEMON_IDLE": "10"}
    assert practice(place, "900", "good.py", env=other).returncode == 0
    assert len(statuses(place)) == 2  # one per set of judging settings
    deadline = time.monotonic() + 90
    while len(statuses(place)) == 2:  # the second one ends after 10 s idle
        assert time.monotonic() < deadline, "the warm judge did not end when idle"
        time.sleep(0.2)
    # the next run with those settings starts it again, cold, and says why once (it had not been replaced)
    again = practice(place, "900", "good.py", env={**other, "PRACTICE_LANG": "en"})
    assert again.returncode == 0 and "ended by itself after 10 s idle" in again.stderr, again.stderr
    assert "ended by itself" not in practice(place, "900", "good.py", env=other).stderr  # said once


def test_no_daemon_and_daemon_status_and_stop(place):
    write(place, "good.py", GOOD)  # each test writes what it judges: xdist may run it first
    assert practice(place, "900", "good.py", "--no-daemon", "--json").returncode == 0
    stopped = subprocess.run(
        [sys.executable, "-m", "judge.cli", "daemon", "stop", "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PRACTICE_DAEMON_DIR": str(place / "run")},
    )
    assert stopped.returncode == 0 and re.search(r"stopped \d+ warm local judge", stopped.stdout)
    status = subprocess.run(
        [sys.executable, "-m", "judge.cli", "daemon", "status", "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PRACTICE_DAEMON_DIR": str(place / "run")},
    )
    assert status.stdout.strip() == "no warm local judge is running"
    assert practice(place, "900", "good.py", "--no-daemon").returncode == 0 and not statuses(place)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_daemon_status_reads_as_sentences_and_json_keeps_the_machine_form(place, lang):
    from judge.report.catalog import say

    practice(place, "900", write(place, "good.py", GOOD))
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(place / "problems"), "PRACTICE_DAEMON_DIR": str(place / "run")}
    judge = [sys.executable, "-m", "judge.cli", "daemon", "status"]
    text = subprocess.run([*judge, "--lang", lang], capture_output=True, text=True, env=env, timeout=60, check=True)
    machine = subprocess.run([*judge, "--json"], capture_output=True, text=True, env=env, timeout=60, check=True)
    [answer] = json.loads(machine.stdout)
    lines = text.stdout.strip().splitlines()
    assert lines[0] == say("daemon.count", n=1).get(lang) and len(lines) == 2
    assert "{" not in text.stdout and str(answer["pid"]) in lines[1] and answer["socket"] in lines[1]
    assert say("daemon.settings_default").get(lang) in lines[1]  # this judge's settings are the defaults
    assert answer["identity"]["problems_dir"] == str((place / "problems").resolve())
