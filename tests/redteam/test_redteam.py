"""Red-team corpus: submissions for exercise 100 that are wrong *and* attack the judge.

Each file in submissions/ starts with a header:

    # expect: <verdict>[|<verdict>]   the verdict it must get (never accepted)
    # needs: a|b, c                   layers whose absence lets the attack through: skipped (with the
                                      reason) where run.layers says they are off, unless
                                      PRACTICE_REDTEAM_STRICT=1 asks to see the hole
    # safety: a, b                    layers without which running the attack would harm this host:
                                      always skipped where they are off
    # modes: submit, run              judged in each mode (default submit)
    # via: cli                        judged by `python practice/judge.py ... --json` in a subprocess
                                      whose environment holds the secret canary (default: a shared Judge)
    # via: cli-text                   the same without --json: the terminal text must show exactly one
                                      verdict line, no raw escape sequences, and exit status 1
    # problem: 106                    the exercise it is judged on (default 100)
    # events: hidden-held             the hidden cases' events must reach the client in one burst, after
                                      the hidden pass (their timing would tell the hidden inputs)

`@@CANARY@@` in a submission becomes a fresh per-case token (carried by every file, process and
packet the attack makes, so the test can tell its traces from other engineers' work on this machine);
`@@PATHMARK@@` becomes the marker this module appends to PATH before the Judge starts, which every
process forked from the Judge's zygotes inherits in its initial environment.

For every case: the verdict matches and is not accepted; the listener on 127.0.0.1/::1 got nothing;
no file outside the scratch folder carries the canary and the scratch folders are gone; no process
carrying the marks survives; the learner-facing report and events hold no hidden test name,
"test_hidden", hidden-test or reference line, secret canary or /etc/shadow line; the judge's own
processes stayed under 1.5 GiB. Everything an attack left is undone afterwards, pass or fail.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge import Judge, Verdict
from judge.settings import Settings
from tests.redteam import hostcheck as hc

HERE = Path(__file__).resolve().parent
SUBMISSIONS = sorted((HERE / "submissions").glob("*.py"))
PROBLEM_ID = "100"
STRICT = os.environ.get("PRACTICE_REDTEAM_STRICT") == "1"
STRICT_FS = os.environ.get("PRACTICE_REDTEAM_STRICT_FS") == "1"  # also fail on changes nobody can attribute
PORTS = range(47000, 47011)
RSS_LIMIT_MIB = 1536


@dataclass(frozen=True)
class Attack:
    path: Path
    expect: frozenset
    needs: tuple
    safety: tuple
    modes: tuple
    via: str
    known_hole: str = ""
    problem: str = PROBLEM_ID
    events: str = ""

    @classmethod
    def load(cls, path: Path) -> Attack:
        header = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            key, _, value = line[1:].partition(":")
            header[key.strip()] = value.strip()
        split = lambda text: tuple(t.strip() for t in text.split(",") if t.strip())  # noqa: E731
        return cls(
            path=path,
            expect=frozenset(Verdict(v.strip()) for v in header["expect"].split("|")),
            needs=split(header.get("needs", "")),
            safety=split(header.get("safety", "")),
            modes=split(header.get("modes", "submit")),
            via=header.get("via", "judge"),
            known_hole=header.get("known-hole", ""),
            problem=header.get("problem", PROBLEM_ID),
            events=header.get("events", ""),
        )

    @property
    def name(self) -> str:
        return self.path.stem

    def source(self, canary: str, path_mark: str) -> str:
        text = INCLUDE.sub(
            lambda m: (HERE / "includes" / m[1]).read_text(encoding="utf-8"), self.path.read_text(encoding="utf-8")
        )
        return text.replace("@@CANARY@@", canary).replace("@@PATHMARK@@", path_mark) + f"\n# {canary}\n"


# A submission is judged as one file, so parts several attacks share are spliced in from includes/.
INCLUDE = re.compile(r"^# @@INCLUDE ([A-Za-z0-9_]+\.py)@@\n", re.M)


ATTACKS = [Attack.load(p) for p in SUBMISSIONS]


@dataclass
class Marks:
    path_mark: str
    secret: str
    scratch_root: Path
    files: Path  # where CLI cases keep their submission (outside the scratch parent)


@dataclass
class Host:
    layers: hc.Layers
    marks_visible: bool


@dataclass
class Secrets:
    hidden_names: set
    lines: list
    shadow: list

    def __repr__(self) -> str:  # never print the secrets themselves into a test log
        return (
            f"Secrets({len(self.hidden_names)} hidden names, {len(self.lines)} lines, {len(self.shadow)} shadow lines)"
        )


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def marks():
    """PATH marker + secret canary in the environment, and a private parent for scratch folders,
    all in place before the Judge starts its zygotes."""
    run = uuid.uuid4().hex[:12]
    saved_env = {k: os.environ.get(k) for k in ("PATH", "PRACTICE_SECRET_CANARY")}
    saved_tempdir = tempfile.tempdir
    root = Path(tempfile.mkdtemp(prefix=f"pj-redteam-{run}-"))
    root.chmod(0o1777)  # like /tmp: a worker uid may create entries here, as it could in /tmp
    m = Marks(
        path_mark=f"/nonexistent/practice-redteam-{run}",
        secret=f"pj-secret-{uuid.uuid4().hex}",
        scratch_root=root,
        files=Path(tempfile.mkdtemp(prefix=f"redteam-files-{run}-")),
    )
    os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + os.pathsep + m.path_mark
    os.environ["PRACTICE_SECRET_CANARY"] = m.secret
    tempfile.tempdir = str(root)
    try:
        yield m
    finally:
        tempfile.tempdir = saved_tempdir
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(m.files, ignore_errors=True)


@pytest.fixture(scope="module")
def judge(marks):
    with Judge(Settings()) as j:
        yield j


@pytest.fixture(scope="module")
def problem(judge):
    return judge.problem(PROBLEM_ID)


@pytest.fixture(scope="module")
def host(judge, problem, marks):
    """Judge the reference once (it must be accepted) to learn the worker's layers on this host."""
    report = judge.grade(PROBLEM_ID, problem.reference_path.read_text(encoding="utf-8"))
    assert report.verdict == Verdict.accepted, f"the reference is not accepted: {report.message}\n{report.detail}"
    doctor = hc.doctor_layers()
    zygotes = hc.zygote_pids()
    visible = bool(zygotes) and zygotes <= set(hc.tagged_processes([marks.path_mark]))
    print(
        f"\nworker layers (run.layers): {json.dumps(report.run.layers, ensure_ascii=False)}"
        f"\njudge doctor --json layers: {json.dumps(doctor, ensure_ascii=False) if doctor else 'unavailable'}"
        f"\nPATH marker visible in zygotes: {visible}"
    )
    return Host(layers=hc.Layers(dict(report.run.layers), doctor), marks_visible=visible)


@pytest.fixture(scope="module")
def secrets(problem):
    return load_secrets(problem)


def load_secrets(problem) -> Secrets:
    tests = problem.tests_dir
    public = [
        tests / "probes.py",
        tests / "test_public.py",
        tests / "conftest.py",
        problem.starter_path,
        *problem.root.glob("prompt.*.md"),
    ]
    lines = hc.distinctive_lines(tests / "test_hidden.py", public) + hc.distinctive_lines(
        problem.reference_path, public
    )
    return Secrets(
        hidden_names=hc.test_names(tests / "test_hidden.py") - hc.test_names(tests / "test_public.py"),
        lines=lines,
        shadow=hc.shadow_lines(),
    )


class Listener:
    """TCP and UDP sockets on the first free port of PORTS, on 127.0.0.1 and ::1."""

    def __enter__(self):
        self.sockets = []
        for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                for port in PORTS:
                    s = socket.socket(family, kind)
                    try:
                        s.bind((address, port))
                    except OSError:
                        s.close()
                        continue
                    if kind == socket.SOCK_STREAM:
                        s.listen(16)
                    s.setblocking(False)
                    self.sockets.append(s)
                    break
        return self

    def received(self) -> list[str]:
        got = []
        for s in self.sockets:
            while True:
                try:
                    if s.type == socket.SOCK_STREAM:
                        conn, peer = s.accept()
                        conn.settimeout(1)
                        got.append(f"tcp connection from {peer}: {conn.recv(200)!r}")
                        conn.close()
                    else:
                        data, peer = s.recvfrom(200)
                        got.append(f"udp datagram from {peer}: {data!r}")
                except (BlockingIOError, TimeoutError, OSError):
                    break
        return got

    def __exit__(self, *exc):
        for s in self.sockets:
            s.close()


# ---------------------------------------------------------------- judging one attack


def skip_for_layers(attack: Attack, host: Host) -> None:
    """Skip an attack a missing layer makes unsafe or pointless here; where layers are required (CI, root on
    Linux: hc.layers_required) a missing layer fails it instead."""
    unsafe = host.layers.missing(list(attack.safety), both=True)  # run.layers and `judge doctor` must agree
    missing = host.layers.missing(list(attack.needs))
    if (unsafe or missing) and hc.layers_required():
        pytest.fail(
            f"layer(s) {', '.join(unsafe + missing)} off on a host that must offer them (CI or root on "
            f"Linux; PRACTICE_REQUIRE_LAYERS=0 on a weaker host): run.layers {host.layers.reported}, "
            f"doctor {host.layers.doctor}"
        )
    if unsafe:
        pytest.skip(
            f"unsafe here: needs {', '.join(unsafe)} (run.layers: "
            f"{ {k: host.layers.reported.get(k) for k in ('memory', 'pids', 'pid', 'uid')} }; "
            f"doctor: { {k: host.layers.doctor.get(k) for k in ('memory', 'pids', 'pid', 'uid')} })"
        )
    if missing and not STRICT:
        pytest.skip(f"layer(s) {', '.join(missing)} inactive on this host (PRACTICE_REDTEAM_STRICT=1 runs it anyway)")


def judge_in_process(judge, source: str, mode: str, problem_id: str = PROBLEM_ID) -> tuple[dict, list]:
    events, times = [], []

    def record(event):
        events.append(event)
        times.append(time.monotonic())

    report = judge.grade(problem_id, source, mode=mode, on_event=record)
    public = report.public().model_dump(mode="json")
    public["event_times"] = times
    return public, events


def hidden_events_held(events: list, times: list) -> list[str]:
    """The hidden cases' events reach the client together: one burst, well under the time the cases took."""
    hidden = [t for event, t in zip(events, times) if getattr(event, "type", "") == "case_finished" and event.hidden]
    if len(hidden) < 2:
        return [f"only {len(hidden)} hidden case events: nothing to time"]
    spread = max(hidden) - min(hidden)
    return [] if spread < 0.05 else [f"hidden case events spread over {spread:.2f} s: each one's timing shows"]


def judge_by_cli(source: str, mode: str, marks: Marks, as_json: bool = True) -> tuple[dict, list]:
    """`python practice/judge.py 100 FILE [--json] [--public]` with the secret canary in its environment.
    As text, the verdict is read from the summary line ("结果: <verdict>"), which must be the only one."""
    path = marks.files / "100.py"
    path.write_text(source, encoding="utf-8")
    env = {**os.environ, "PRACTICE_SECRET_CANARY": marks.secret, "TMPDIR": str(marks.scratch_root)}
    argv = [sys.executable, str(hc.REPO / "practice" / "judge.py"), PROBLEM_ID, str(path)]
    argv += (["--json"] if as_json else []) + (["--public"] if mode == "run" else [])
    out = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=hc.REPO, timeout=400)
    if as_json:
        try:
            return json.loads(out.stdout), []
        except ValueError:
            pytest.fail(
                f"the CLI printed no JSON report (exit {out.returncode}): {out.stdout[-800:]} {out.stderr[-800:]}"
            )
    problems = []
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", out.stdout)  # what a terminal would leave visible
    verdicts = re.findall(r"^结果: (\w+)", shown, flags=re.M)
    if len(verdicts) != 1:
        problems.append(
            f"the terminal shows {len(verdicts)} verdict lines {verdicts} (exit {out.returncode}; "
            f"stderr: {out.stderr.strip()[-300:]!r})"
        )
    if "\x1b" in out.stdout:
        problems.append("raw terminal escape sequences from the learner reach the CLI's output")
    if "Traceback (most recent call last)" in out.stderr:
        problems.append(f"the CLI crashed while reporting: {out.stderr.strip().splitlines()[-1][:300]!r}")
    if out.returncode != 1:
        problems.append(f"the CLI exited {out.returncode} (1 = rejected); stderr: {out.stderr.strip()[-300:]!r}")
    verdict = verdicts[0] if verdicts and verdicts[0] in Verdict.__members__ else "internal_error"
    return {"verdict": verdict, "message": out.stdout[-2000:], "cli_problems": problems}, []


def leaks(texts: list[str], secrets: Secrets, marks: Marks, own_source: str) -> list[str]:
    blob = "\n".join(texts)
    found = [f"'{w}'" for w in ("test_hidden", marks.secret) if w in blob]
    # A whole name (102's hidden test_estimate is the start of its public test_estimate_small_..., which a report
    # of public cases names): a name that is only the prefix of a longer identifier is not that test.
    found += [
        f"hidden test name {n}" for n in sorted(secrets.hidden_names) if re.search(rf"\b{re.escape(n)}(?!\w)", blob)
    ]
    found += [f"secret line {line!r}" for line in secrets.lines if line in blob and line not in own_source]
    found += [f"/etc/shadow line {line[:20]!r}..." for line in secrets.shadow if line in blob]
    return found


def parked(judge: Judge) -> tuple[set[int], set[str]]:
    """The processes and scratch folders of the pairs the judge parked for its next Run, once they are ready."""
    parking = judge.parking
    if parking is None:
        return set(), set()
    assert judge.settle(), "the parked pairs did not get ready"
    pairs = [parked.pair for parked in parking.pairs()]
    roots = {pid for pair in pairs for pid in (pair.worker.pid, pair.checker.pid) if pid is not None}
    return hc.descendants(roots), {pair.worker.scratch.name for pair in pairs}


def check_rss(problems: list[str]) -> None:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if own > RSS_LIMIT_MIB:
        problems.append(f"the judge's own process peaked at {own:.0f} MiB")
    for pid in hc.zygote_pids():
        peak = hc.peak_rss_mib(pid)
        if peak > RSS_LIMIT_MIB:
            problems.append(f"zygote {pid} peaked at {peak:.0f} MiB")


def _param(attack: Attack):
    """A documented hole stays in the corpus as a strict xfail: the day it is closed, the test says so."""
    marks = [pytest.mark.xfail(strict=True, reason=attack.known_hole)] if attack.known_hole else []
    return pytest.param(attack, marks=marks, id=attack.name)


@pytest.mark.slow
@pytest.mark.parametrize("attack", [_param(a) for a in ATTACKS])
def test_attack_is_contained(attack, judge, host, marks, secrets):
    skip_for_layers(attack, host)
    canary = f"rt{uuid.uuid4().hex[:16]}"
    source = attack.source(canary, marks.path_mark)
    problems: list[str] = []
    before = hc.snapshot([marks.scratch_root])
    changes = hc.FileChanges()
    left: dict[int, str] = {}
    parked_pids, parked_scratch = set(), set()
    try:
        with Listener() as listener:
            for mode in attack.modes:
                if attack.via in ("cli", "cli-text"):
                    public, events = judge_by_cli(source, mode, marks, as_json=attack.via == "cli")
                    problems += [f"[{mode}] {what}" for what in public.pop("cli_problems", [])]
                else:
                    public, events = judge_in_process(judge, source, mode, attack.problem)
                    times = public.pop("event_times")
                    if attack.events == "hidden-held":
                        problems += [f"[{mode}] {what}" for what in hidden_events_held(events, times)]
                verdict = Verdict(public["verdict"])
                shown = re.sub(r"[\x00-\x1f\x7f]+", " ", public.get("message", ""))[:160]  # no escapes in our log
                print(
                    f"\n{attack.name} [{mode}] -> {verdict.value} "
                    f"({public.get('passed')}/{public.get('total')}): {shown}"
                )
                if verdict == Verdict.accepted or verdict not in attack.expect:
                    problems.append(
                        f"[{mode}] verdict {verdict.value}, expected "
                        f"{'|'.join(sorted(v.value for v in attack.expect))}: {shown}"
                    )
                texts = hc.strings_in(public) + hc.strings_in(events)
                known = secrets if attack.problem == PROBLEM_ID else load_secrets(judge.problem(attack.problem))
                problems += [
                    f"[{mode}] the learner's report reveals {what}" for what in leaks(texts, known, marks, source)
                ]
            problems += [f"the listener received {what}" for what in listener.received()]
        # The judge's own pairs, parked for the next Run after this one (judge.grading.parking): started after the
        # judgement, from the zygotes, and holding nothing of this submission's (checked below).
        parked_pids, parked_scratch = parked(judge)
        allowed = hc.zygote_pids() | parked_pids
        left = hc.survivors([marks.path_mark, canary], allowed)
        problems += [f"process {pid} outlived the judgement: {cmd[:160]}" for pid, cmd in left.items()]
        carrying = sorted(set(hc.tagged_processes([canary])) & parked_pids)
        problems += [f"the parked process {pid} holds the submission's canary" for pid in carrying]
        if not host.marks_visible:
            print("warning: the PATH marker is not visible in the zygotes; survivors found by canary only")
    finally:
        hc.kill_all(left)
        if left:
            hc.survivors([marks.path_mark, canary], hc.zygote_pids(), settle_s=5)
        segments = hc.sysv_shm_keys()
        for key in range(hc.canary_key(canary), hc.canary_key(canary) + 4):
            if key in segments:
                problems.append(f"a System V shared memory segment (key {key:#x}) outlived the judgement")
                hc.remove_sysv_shm(segments[key])
        changes = hc.diff(before, hc.snapshot([marks.scratch_root]))
        ours = changes.ours(canary, ignore=(str(marks.files),))
        stray = [p for p in hc.canary_files(canary) if p not in ours and not p.startswith(str(marks.files))]
        leftovers = [p.name for p in marks.scratch_root.iterdir()] if marks.scratch_root.exists() else []
        leftovers = [name for name in leftovers if name not in parked_scratch]
        hc.undo(changes, canary)
        for path in stray:
            Path(path).unlink(missing_ok=True)
    problems += [f"file outside the scratch folder written: {p}" for p in ours + stray]
    problems += [f"left in the scratch parent after the judgement: {name}" for name in leftovers]
    if STRICT_FS:
        problems += [
            f"changed while judging (not attributable): {p}"
            for p in changes.new + changes.modified + changes.removed
            if p not in ours
        ]
    check_rss(problems)
    assert not problems, f"{attack.name}:\n  " + "\n  ".join(problems)


@pytest.mark.slow
def test_planted_conftest_cannot_decide_a_later_judgement(judge, host, marks, problem):
    """Stage two of plant_conftest: after it ran, an ordinary wrong solution must still be wrong."""
    attack = Attack.load(HERE / "submissions" / "plant_conftest.py")
    skip_for_layers(attack, host)
    canary = f"rt{uuid.uuid4().hex[:16]}"
    before = hc.snapshot([marks.scratch_root])
    wrong = problem.root / "solutions" / "wrong" / "rms_ignores_eps.py"
    try:
        judge.grade(PROBLEM_ID, attack.source(canary, marks.path_mark))  # the plant lands during its import
        report = judge.grade(PROBLEM_ID, wrong.read_text(encoding="utf-8"))
        ran = Path(f"/tmp/rt-{canary}-conftest-ran").exists()
    finally:
        changes = hc.diff(before, hc.snapshot([marks.scratch_root]))
        hc.undo(changes, canary)
        for path in hc.canary_files(canary):
            Path(path).unlink(missing_ok=True)
    assert not ran, "a conftest.py planted by a learner ran inside the trusted checker"
    assert report.verdict == Verdict.wrong_answer, (
        f"after plant_conftest, {wrong.name} got {report.verdict.value} (expected wrong_answer)"
    )


def test_corpus_headers_are_well_formed():
    assert len(ATTACKS) >= 30
    for attack in ATTACKS:
        assert attack.expect and Verdict.accepted not in attack.expect, attack.name
        assert set(attack.modes) <= {"submit", "run"} and attack.via in ("judge", "cli", "cli-text"), attack.name
        assert attack.events in ("", "hidden-held") and (HERE.parents[1] / "problems").exists(), attack.name
        assert attack.problem == PROBLEM_ID or attack.via == "judge", f"{attack.name}: the CLI cases judge 100"
        for requirement in attack.needs + attack.safety:
            for token in requirement.split("|"):
                assert token.strip() in hc.TOKENS, f"{attack.name}: unknown layer {token!r}"


@pytest.mark.slow
def test_worker_gets_every_layer_the_host_offers(host):
    """run.layers (what a real job got) against `judge doctor` (the host's offer, found by another process)."""
    if not host.layers.doctor:
        if hc.layers_required():
            pytest.fail("`judge doctor --json` gave no layers: nothing to hold the worker's layers against")
        pytest.skip("`judge doctor --json` is unavailable here")
    off = {
        name: state
        for name, state in host.layers.doctor.items()
        if hc._active(state) and not hc._active(host.layers.reported.get(name, "missing"))
    }
    assert not off, f"layers the host offers but the worker did not get: {off} (run.layers {host.layers.reported})"
    if hc.layers_required():
        inactive = {name: state for name, state in host.layers.reported.items() if not hc._active(state)}
        assert not inactive, f"layers off on a host that must offer them (CI or root on Linux): {inactive}"


@pytest.mark.slow
def test_valid_solution_with_tracebacks_and_logging_is_accepted(judge):
    """The guard refuses frames to learner code, not the helpers that turn frames into text: exercise 100's
    reference with traceback.print_exc(), format_stack(), print_stack(), extract_stack() and logging (caller
    lookup, stack_info, exception) in its kernels, backward and import is accepted, and its logs are shown."""
    source = (HERE / "valid" / "tracebacks_and_logging.py").read_text(encoding="utf-8")
    report = judge.grade(PROBLEM_ID, source, mode="run")
    assert report.verdict == Verdict.accepted, (
        f"{report.verdict.value}: {report.message}\n{report.run.output_tail[-3000:]}"
    )
    tail = report.run.output_tail
    assert "ValueError: debugging kv_write" in tail, tail[-2000:]  # print_exc in a kernel printed its traceback
    assert f"{judge.problem(PROBLEM_ID).meta.solution_file}:" in tail, tail[-2000:]  # the learner's file named
    assert "_debug expected: backward" in tail, tail[-2000:]  # logging found its caller (funcName) in a backward
    assert "Stack (most recent call last)" in tail, tail[-2000:]  # stack_info=True
