"""`judge gradescope PROBLEM --out autograder.zip`: the setup.sh / run_autograder bundle Gradescope runs."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

from judge.batch.policy import DEFAULT_POINTS
from judge.problem.folders import ProblemSet
from judge.settings import REPO_ROOT, Settings

BUNDLE = Path(__file__).parent / "bundle"
# What the bundle carries of this repository (besides the one problem): enough to `pip install` the judge.
SOURCE = ["pyproject.toml", "README.md", "judge", "sandbox"]
SKIP = {"__pycache__", ".pytest_cache"}


def build_bundle(
    problem_id: str, out: Path, settings: Settings, lang: str | None = None, points: float | None = None
) -> Path:
    """Write the zip: setup.sh and run_autograder at its root (Gradescope unzips it into /autograder/source),
    README.txt (the total to set), the judge's source, and the exercise's folder under problems/ (hidden tests
    included: the autograder runs on Gradescope's servers, where students cannot read it)."""
    problem = ProblemSet(settings.problems_dir).get(problem_id)
    total = points or DEFAULT_POINTS
    out.parent.mkdir(parents=True, exist_ok=True)
    run = (BUNDLE / "run_autograder").read_text(encoding="utf-8")
    run = run.replace("@PROBLEM@", problem.id).replace("@LANG@", lang or settings.lang)
    run = run.replace("@POINTS@", f"{total:g}")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        _add(bundle, "setup.sh", (BUNDLE / "setup.sh").read_bytes(), executable=True)
        _add(bundle, "run_autograder", run.encode("utf-8"), executable=True)
        _add(bundle, "README.txt", readme(problem.id, total).encode("utf-8"))
        for name in SOURCE:
            for path in _files(REPO_ROOT / name):
                _add(bundle, path.relative_to(REPO_ROOT).as_posix(), path.read_bytes())
        for path in _files(problem.root):
            _add(bundle, f"problems/{problem.root.name}/{path.relative_to(problem.root).as_posix()}", path.read_bytes())
    return out


def readme(problem_id: str, total: float) -> str:
    return (
        f"Autograder for exercise {problem_id}.\n\n"
        f"Set the assignment's total points to {total:g}: each results.json scores out of {total:g} (the tests' "
        "weights share it out).\n"
        "setup.sh installs torch's CPU build from TORCH_INDEX_URL (PyTorch's CPU index unless you set another).\n"
    )


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    for child in sorted(path.rglob("*")):
        if child.is_file() and not SKIP & set(child.parts) and child.suffix not in (".pyc", ".so"):
            yield child


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)
