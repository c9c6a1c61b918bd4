"""Exercise 100's public tests, unchanged, collected from this module (see conftest.py)."""

from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "problems" / "100-custom-op" / "tests" / "test_public.py"
exec(compile(_SOURCE.read_text(encoding="utf-8"), str(_SOURCE), "exec"))
