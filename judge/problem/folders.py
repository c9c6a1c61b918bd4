"""Discover, load and validate problem folders (problems/<id>-<slug>/)."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import ValidationError

from judge.errors import CannotJudgeHere, ProblemInvalid, UnknownProblem
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.models import Mode, ProblemMeta, Verdict

FOLDER = re.compile(r"^(?P<id>[0-9]{1,4})-(?P<slug>[a-z0-9][a-z0-9-]*)$")
EXPECT = re.compile(r"^#\s*expect:\s*(?P<verdict>[a-z_]+)\s*$")


@dataclass(frozen=True)
class Problem:
    """One exercise folder with validated metadata."""

    root: Path
    meta: ProblemMeta

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests"

    @property
    def probes_path(self) -> Path:
        return self.tests_dir / "probes.py"

    @property
    def starter_path(self) -> Path:
        return self.root / "starter.py"

    @property
    def reference_path(self) -> Path:
        return self.root / "solutions" / "reference.py"

    @cached_property
    def digest(self) -> str:
        """sha256 over problem.toml and every file under tests/: what a cached verdict depends on."""
        files = [
            self.root / "problem.toml",
            *sorted(p for p in self.tests_dir.rglob("*") if p.is_file() and "__pycache__" not in p.parts),
        ]
        h = hashlib.sha256()
        for path in files:
            h.update(path.relative_to(self.root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        return h.hexdigest()

    def test_files(self, mode: Mode) -> list[Path]:
        # test_declarations.py: the source's literal declarations against the dispatcher (judge.problem.declarations)
        public = ["test_public.py", "test_declarations.py"]
        names = public if mode == "run" else [*public, "test_hidden.py"]
        return [self.tests_dir / n for n in names if (self.tests_dir / n).exists()]

    def prompt(self, lang: Lang) -> str:
        return (self.root / f"prompt.{lang}.md").read_text(encoding="utf-8")

    def valid_solutions(self) -> list[Path]:
        return sorted((self.root / "solutions" / "valid").glob("*.py"))

    def wrong_solutions(self) -> list[tuple[Path, Verdict]]:
        """Each known-wrong solution with the verdict its first line declares."""
        out = []
        for path in sorted((self.root / "solutions" / "wrong").glob("*.py")):
            first = path.read_text(encoding="utf-8").splitlines()[:1]
            match = EXPECT.match(first[0]) if first else None
            if not match:
                raise ProblemInvalid(f"{path}: first line must be '# expect: <verdict>'")
            out.append((path, Verdict(match["verdict"])))
        return out


class ProblemFile:
    """A learner-facing data file in a problem folder (hints.toml, try.toml), read once by what it is for; an absent
    file offers nothing."""

    FILE = ""

    def __init__(self, problem: Problem):
        self.problem = problem

    @property
    def path(self) -> Path:
        return self.problem.root / self.FILE


def load_problem(root: Path) -> Problem:
    match = FOLDER.match(root.name)
    if not match:
        raise ProblemInvalid(f"{root.name}: problem folders are named <id>-<slug>")
    try:
        meta = ProblemMeta.model_validate(tomllib.loads((root / "problem.toml").read_text(encoding="utf-8")))
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ProblemInvalid(f"{root.name}/problem.toml: {exc}") from exc
    if (meta.id, meta.slug) != (match["id"], match["slug"]):
        raise ProblemInvalid(f"{root.name}: problem.toml says {meta.id}-{meta.slug}")
    return Problem(root=root, meta=meta)


class ProblemSet:
    """All problems under one folder, loaded once and looked up by id."""

    def __init__(self, folder: Path):
        self.folder = folder

    @cached_property
    def _by_id(self) -> dict[str, Problem]:
        found: dict[str, Problem] = {}
        for root in sorted(p for p in self.folder.iterdir() if p.is_dir() and FOLDER.match(p.name)):
            problem = load_problem(root)
            if problem.id in found:
                raise ProblemInvalid(f"problem id {problem.id} is used by two folders")
            found[problem.id] = problem
        return found

    def all(self) -> list[Problem]:
        return sorted(self._by_id.values(), key=lambda p: int(p.id))

    def get(self, problem_id: str) -> Problem:
        problem = self._by_id.get(str(problem_id).strip())
        if problem is None:
            known = ", ".join(self._by_id) or "none"
            raise UnknownProblem(say("usage.unknown_problem", id=problem_id, known=known))
        return problem


def missing_needs(problem: Problem) -> list[str]:
    """The packages the exercise needs (problem.toml `needs`) that this Python cannot import."""
    return [name for name in problem.meta.needs if importlib.util.find_spec(name) is None]


def require_needs(problem: Problem, on_server: bool = False) -> None:
    """Refuse (nothing judged) an exercise whose packages are missing here: a learner's judge says which extra to
    install; a server says it cannot judge the exercise (the learner cannot install anything there)."""
    missing = missing_needs(problem)
    if not missing:
        return
    names = ", ".join(missing)
    if on_server:
        raise CannotJudgeHere(say("needs.server", id=problem.id, names=names))
    install = say("needs.install", extras=",".join(missing))
    raise CannotJudgeHere(say("needs.missing", id=problem.id, names=names, install=install))


@functools.lru_cache(maxsize=16)
def _chapters(folder: Path) -> dict[str, dict[str, str]]:
    path = folder / "chapters.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    return {
        slug: {key: str(entry.get(key, "")) for key in ("zh", "en", "url")}
        for slug, entry in data.items()
        if isinstance(entry, dict)
    }


def chapter_of(problem: Problem) -> dict[str, str]:
    """The chapter a problem closes: {"zh", "en", "url"} from chapters.toml beside the problem folders (the
    handbook's title, and its section's address where one is published); the slug itself where none is named."""
    slug = problem.meta.chapter
    return _chapters(problem.root.parent).get(slug) or {"zh": slug, "en": slug, "url": ""}
