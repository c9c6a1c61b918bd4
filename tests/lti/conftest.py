"""A third-party LTI platform (lti1p3platform, tests/lti/platform.py) and our tool (`judge serve`), on loopback."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.conftest import REPO, SERVE, Server, free_port

REFERENCE = (REPO / "problems" / "100-custom-op" / "solutions" / "reference.py").read_text(encoding="utf-8")
TOOL_ENV = {
    "PRACTICE_WORKERS": "1",
    "PRACTICE_LTI_RETRY_BASE_S": "0.5",
    "PRACTICE_LTI_RETRY_CAP_S": "1.5",
    "PRACTICE_LTI_POLL_S": "0.2",
}


class PlatformServer:
    """`python -m tests.lti.platform`: stop() is the LMS going down; start() brings it back, state kept."""

    def __init__(self, folder: Path, tool_url: str):
        self.folder, self.port = folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        folder.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "PLATFORM_PORT": str(self.port),
            "PLATFORM_DIR": str(folder),
            "PLATFORM_TOOL": tool_url,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> PlatformServer:
        with open(self.folder / "platform.log", "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.lti.platform"],
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for("the platform to answer", self.answers, timeout=30)
        return self

    def answers(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, (self.folder / "platform.log").read_text()[-2000:]
        try:
            return httpx.get(self.url + "/jwks", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def write(self, name: str, value: object) -> None:
        (self.folder / name).write_text(json.dumps(value))

    def read(self, name: str, default: Any) -> Any:
        path = self.folder / name
        return json.loads(path.read_text()) if path.exists() else default

    def link(self, link_id: str, exercise: str | None, lineitem: str | None = "li-1", **extra: Any) -> None:
        """A resource link in the course (and its line item, scoreMaximum 10: scaled scores are visible)."""
        links = self.read("links.json", {})
        custom = {"exercise": exercise} if exercise is not None else {}
        links[link_id] = {
            "title": f"Exercise {exercise}",
            "custom": custom,
            "lineitem": lineitem,
            **extra,
        }
        self.write("links.json", links)
        if lineitem:
            items = self.read("lineitems.json", {})
            items[lineitem] = {"id": f"{self.url}/lineitems/{lineitem}", "scoreMaximum": 10, "label": "Ex"}
            self.write("lineitems.json", items)

    def gradebook(self) -> dict:
        return httpx.get(self.url + "/gradebook", timeout=10).json()


def judge_cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRACTICE_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-c", SERVE, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def register(data_dir: Path, platform: PlatformServer) -> subprocess.CompletedProcess[str]:
    return judge_cli(
        data_dir,
        "lti",
        "add-platform",
        "--issuer",
        platform.url,
        "--client-id",
        "judge-client",
        "--deployment-id",
        "deployment-1",
        "--auth-login-url",
        platform.url + "/auth",
        "--auth-token-url",
        platform.url + "/token",
        "--key-set-url",
        platform.url + "/jwks",
    )


class Lms:
    """A tool and a platform registered with each other, as a newcomer sets them up (docs/lti.md)."""

    def __init__(self, tmp: Path):
        self.tool = Server(tmp / "tool", **TOOL_ENV)
        self.tool.data_dir.mkdir(parents=True, exist_ok=True)
        self.platform = PlatformServer(tmp / "platform", self.tool.url)

    def start(self) -> Lms:
        self.platform.start()
        done = register(self.tool.data_dir, self.platform)
        assert done.returncode == 0, done.stdout + done.stderr
        self.tool.start()
        return self

    def stop(self) -> None:
        self.tool.stop()
        self.platform.stop()


FORM_FIELD = re.compile(r'name="(id_token|state)" value="([^"]*)"')
FORM_ACTION = re.compile(r'<form method="POST" action="([^"]*)"')


def launch(client: httpx.Client, lms: Lms, user: str, link: str, tamper=None) -> httpx.Response:
    """What a browser does: the platform starts the login, the tool redirects to the platform's auth URL, the
    platform answers with an auto-posting form, the form is posted to the tool. tamper(fields) may change it."""
    page = client.get(f"{lms.platform.url}/launch", params={"user": user, "link": link}, follow_redirects=True)
    assert page.status_code == 200, page.text[:500]
    fields = {name: html.unescape(value) for name, value in FORM_FIELD.findall(page.text)}
    action = html.unescape(found(FORM_ACTION.pattern, page.text)[0])
    if tamper is not None:
        fields = tamper(fields)
    return client.post(action, data=fields)


@pytest.fixture()
def lms(tmp_path):
    setup = Lms(tmp_path).start()
    try:
        yield setup
    finally:
        setup.stop()


def wait_for(what, condition, timeout: float = 90.0):
    """Poll condition() until it returns something truthy (returned), or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.2)


def found(pattern: str, text: str) -> tuple[str, ...]:
    """The groups of pattern's first match in text (the test fails, saying so, where there is none)."""
    match = re.search(pattern, text, re.S)
    assert match is not None, f"{pattern!r} not in {text[:300]!r}"
    return match.groups()
