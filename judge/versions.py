"""Installed versions of the packages a verdict depends on, read without importing them (torch costs seconds)."""

from __future__ import annotations

import platform
from importlib import metadata


def installed_version(distribution: str, missing: str = "dev") -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return missing


def judge_versions() -> dict[str, str]:
    """What a Report names as having produced it (with the problem's digest: the cache key of a verdict)."""
    return {
        "python": platform.python_version(),
        "torch": installed_version("torch"),
        "judge": installed_version("practice-judge"),
    }
