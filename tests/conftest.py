"""Shared fixtures for the judge's own tests."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from judge import Judge
from judge.settings import Settings
from tests.redteam.summary import pytest_runtest_logreport, pytest_terminal_summary  # noqa: F401 - hooks

FIXTURE_PROBLEMS = Path(__file__).parent / "fixtures" / "problems"
# Every CLI the tests start judges in-process unless a test asks for the warm local judge; those it starts live
# in a folder of this session's own (never the developer's), and the session stops them all when it ends.
os.environ["PRACTICE_DAEMON"] = "0"
DAEMON_DIR = Path(tempfile.mkdtemp(prefix="practice-daemons-"))
os.environ["PRACTICE_DAEMON_DIR"] = str(DAEMON_DIR)


@pytest.fixture(scope="session", autouse=True)
def no_daemon_outlives_the_session():
    yield
    from judge.cli.daemon_client import stop_all

    stop_all(Settings(daemon_dir=DAEMON_DIR))
    shutil.rmtree(DAEMON_DIR, ignore_errors=True)


# The fixture problems' own tests run inside the judge's checker, never in this session.
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(scope="session")
def fixture_settings() -> Settings:
    return Settings(problems_dir=FIXTURE_PROBLEMS)


@pytest.fixture(scope="session")
def fixture_judge(fixture_settings):
    """A warm judge over the small fixture problems (900: add two tensors)."""
    with Judge(fixture_settings) as judge:
        yield judge


@pytest.fixture(scope="session")
def playwright_session():
    """One Playwright per test process: its sync API runs an event loop of its own, and a second one started in the
    same process (another folder's browser tests on the same xdist worker) is refused."""
    from tests.needs import need_chromium

    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser_context(playwright_session):
    """Debian's Chromium with a fresh profile, shared by the browser tests of one process (web, lti)."""
    from tests.needs import CHROMIUM, CHROMIUM_ARGS

    with tempfile.TemporaryDirectory(prefix="practice-chromium-") as profile:
        context = playwright_session.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            viewport={"width": 1440, "height": 900},
            locale="zh-CN",
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture()
def fresh_browser_context(playwright_session):
    """A Chromium context of its own (no cookies or storage from other tests: cookies are per host, not per port,
    so another server's on 127.0.0.1 would otherwise come along), on the process's one Playwright."""
    from tests.needs import CHROMIUM, CHROMIUM_ARGS

    browser = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
        yield context
        context.close()
    finally:
        browser.close()


@pytest.fixture(scope="session")
def judge():
    """A warm judge over the real problems folder."""
    with Judge() as real:
        yield real


# Tests of one folder share that folder's session fixtures (a dockerd, a web server, a browser): under
# pytest-xdist's --dist loadgroup each folder below runs on one worker, so those fixtures start once.
XDIST_GROUPS = ("docker", "web", "scale", "redteam", "batch", "faults", "lti")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups (it registers after conftests)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_dir = Path(__file__).parent
    for item in items:
        parts = Path(item.path).relative_to(tests_dir).parts
        if parts and parts[0] in XDIST_GROUPS:
            item.add_marker(pytest.mark.xdist_group(parts[0]))
        if parts and parts[0] == "docker":
            item.add_marker(pytest.mark.docker)
