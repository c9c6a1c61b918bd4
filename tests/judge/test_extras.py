"""The lean install: the learner's `pip install -e .` leaves out the queue's and the instructor's packages (extras
`scale` and `grade`), nothing the CLI or the page imports needs them, and a command that does names its pip line."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from judge import extras
from judge.cli.subcommands import dispatch

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_base_install_holds_none_of_the_extras_packages():
    base = " ".join(PROJECT["dependencies"]).lower()
    for extra, modules in {
        "scale": ["celery", "redis", "psycopg", "prometheus"],
        "grade": ["copydetect", "openpyxl", "pyyaml"],
    }.items():
        for name in modules:
            assert name not in base, f"{name} is in the base install; it belongs to the {extra} extra"
            assert any(name in dep for dep in PROJECT["optional-dependencies"][extra])
    assert "practice-judge[scale,grade]" in PROJECT["optional-dependencies"]["test"]  # the tests install both


def test_the_cli_and_the_page_import_without_the_extras():
    """Loading the learner's command and the web app with the extras' packages made unimportable."""
    blocked = [m for ms in extras.EXTRAS.values() for m in ms]
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {blocked!r}: raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import judge.cli.learner_command, judge.cli.statement, web.app, web.ops, web.stream\n"
        "from web.app import create_app\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_an_imported_module_without_a_spec_counts_as_installed(monkeypatch):
    """kombu, once imported, has __spec__ None, and find_spec raises for it: /metrics answered 500 in every scrape."""
    import types

    fake = types.ModuleType("kombu_like")
    fake.__spec__ = None
    monkeypatch.setitem(sys.modules, "kombu_like", fake)
    monkeypatch.setitem(extras.EXTRAS, "probe", ("kombu_like",))
    assert extras.missing("probe") == []
    extras.require("probe", "anything")  # raises nothing


@pytest.mark.parametrize(
    "argv,extra",
    [(["worker"], "scale"), (["status"], "scale"), (["grade", "100", "x", "--out", "y"], "grade")],
)
def test_a_command_whose_extra_is_missing_names_its_pip_line(monkeypatch, capsys, argv, extra):
    real = extras._installed  # as if this install lacked the extra (whatever this test process imported already)
    monkeypatch.setattr(extras, "_installed", lambda name: name not in extras.EXTRAS[extra] and real(name))
    monkeypatch.setenv("PRACTICE_LANG", "en")
    assert dispatch(argv) == 2
    err = capsys.readouterr().err
    assert f"pip install -e '.[{extra}]'" in err and "needs the optional" in err, err
