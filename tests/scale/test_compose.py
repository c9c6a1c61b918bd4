"""compose.yaml refers to the Dockerfile's real targets and to real `judge` commands and settings."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from judge.cli.subcommands import build_parser
from judge.settings import Settings
from web.config import WebSettings

REPO = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((REPO / "compose.yaml").read_text())
TARGETS = set(re.findall(r"^FROM \S+ AS (\S+)", (REPO / "Dockerfile").read_text(), re.MULTILINE))
SETTINGS = {f"PRACTICE_{name.upper()}" for name in (*Settings.model_fields, *WebSettings.model_fields)}


def services():
    return COMPOSE["services"].items()


def test_every_build_names_a_dockerfile_target():
    built = {name: spec["build"]["target"] for name, spec in services() if "build" in spec}
    assert built and set(built.values()) <= TARGETS, (built, TARGETS)
    assert {"service", "gpu-runner"} <= set(built.values())


def test_every_judge_command_parses_with_the_real_cli():
    commands = [spec["command"] for _, spec in services() if spec.get("command", [None])[0] == "judge"]
    seen = set()
    for command in commands:
        args = build_parser().parse_args(command[1:])  # SystemExit (a failure) on an unknown command or option
        assert callable(args.handler)
        seen.add(command[1])
    assert {"serve", "worker", "db"} <= seen


def test_the_topology_and_its_settings():
    names = dict(services())
    assert {"web", "cpu-worker", "gpu-worker", "redis", "postgres", "migrate", "proxy"} <= set(names)
    queues = {
        spec["command"][spec["command"].index("--queue") + 1]
        for spec in names.values()
        if "--queue" in spec.get("command", [])
    }
    assert queues == {"cpu", "gpu"}
    for name, spec in names.items():
        for key in spec.get("environment", {}):
            assert not key.startswith("PRACTICE_") or key in SETTINGS, f"{name}: {key} is no setting"
    assert names["web"]["environment"]["PRACTICE_QUEUE_URL"].startswith("redis://")
    assert names["web"]["environment"]["PRACTICE_DATABASE_URL"].startswith("postgresql+psycopg://")
