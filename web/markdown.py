"""Statements: markdown -> HTML on the server (the configuration lives in judge.problem.statement, which `judge check`
renders with too)."""

from __future__ import annotations

from judge.problem.statement import pygments_css, render

__all__ = ["pygments_css", "render"]
