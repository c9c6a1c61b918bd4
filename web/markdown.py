"""Statements: markdown -> HTML on the server (the configuration lives in judge.prompt_markdown, which `judge check`
renders with too)."""

from __future__ import annotations

from judge.prompt_markdown import pygments_css, render

__all__ = ["pygments_css", "render"]
