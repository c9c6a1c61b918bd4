"""What some tests need from the host (Chromium, a docker engine): skipped where missing, but failed in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"  # Debian's build; never `playwright install` (it downloads)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    """A prerequisite is absent: skip the test on a developer's machine, fail it in CI (.ci/run installs it)."""
    if in_ci():
        pytest.fail(f"{reason} (CI installs it in .ci/run: a skip here would hide untested code)")
    pytest.skip(reason)


def need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        missing("Debian's chromium is not installed (apt-get install -y chromium)")


SOFFICE = "/usr/bin/soffice"  # LibreOffice (apt-get install -y libreoffice-calc-nogui)


def need_soffice() -> None:
    if not Path(SOFFICE).exists():
        missing("LibreOffice is not installed (apt-get install -y --no-install-recommends libreoffice-calc-nogui)")
