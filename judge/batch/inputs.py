"""Find each student's submission in a folder, a folder of folders, or a zip of either (as LMS exports look)."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from judge.errors import JudgeError

MAX_FILE = 16 << 20  # read at most this much of one file: larger is a rejected row, never loaded whole
MAX_ENTRIES = 20_000  # zip members
MAX_TOTAL = 1 << 30  # sum of the zip's declared uncompressed sizes
JUNK = {"__MACOSX", "__pycache__", ".git", ".DS_Store", "Thumbs.db"}
_UNSAFE = re.compile(r"[^\w.@+~-]", re.UNICODE)


class BadSubmissions(JudgeError):
    """The SUBMISSIONS argument cannot be read at all (missing, not a zip, a zip bomb): a usage error."""


@dataclass
class Entry:
    """One student's submission: the bytes to judge, or the reason there are none."""

    student: str
    origin: str  # where it came from, relative to SUBMISSIONS
    data: bytes | None = None
    reason: str = ""  # set when data is None: why no file was chosen
    notes: list[str] = field(default_factory=list)


@dataclass
class Node:
    """A file or folder of the submissions tree, read lazily (a file's bytes up to MAX_FILE + 1)."""

    name: str
    path: str
    read: object = None  # callable -> bytes for a file; None for a folder
    size: int = 0
    children: dict[str, Node] = field(default_factory=dict)

    @property
    def is_file(self) -> bool:
        return self.read is not None


def discover(path: Path, solution_file: str, skip: Path | None = None) -> list[Entry]:
    """Every student's entry, ids unique (duplicates suffixed ~2, ~3 and noted), sorted by id.

    skip: a folder inside SUBMISSIONS that is not a student's (the --out folder, when it lies there)."""
    if not path.exists():
        raise BadSubmissions(f"no such file or folder: {path}")
    root = _zip_tree(path) if path.is_file() else _folder_tree(path)
    if skip is not None and path.is_dir() and skip.resolve().parent == path.resolve():
        root.children.pop(skip.name, None)
    if path.is_file():
        while len(root.children) == 1 and not next(iter(root.children.values())).is_file:
            root = next(iter(root.children.values()))  # a single top-level folder is looked through
    entries = [_entry(node, solution_file) for node in sorted(root.children.values(), key=lambda n: n.name)]
    return _unique(entries)


def one_submission(folder: Path, solution_file: str, student: str = "submission") -> Entry:
    """The file to judge in one student's folder (Gradescope's /autograder/submission), or why there is none."""
    entry = _entry(_folder_tree(folder), solution_file)
    entry.student = student
    return entry


def student_id(name: str, is_file: bool) -> str:
    stem = name.rsplit(".", 1)[0] if is_file and "." in name.lstrip(".") else name
    return _UNSAFE.sub("_", stem).lstrip(".") or "_"


def _entry(node: Node, solution_file: str) -> Entry:
    student = student_id(node.name, node.is_file)
    chosen = node if node.is_file else _choose(node, solution_file)
    if isinstance(chosen, str):
        return Entry(student, node.path, reason=chosen)
    if chosen.size > MAX_FILE:
        return Entry(student, chosen.path, reason=f"the file is {chosen.size} bytes; far over any source limit")
    return Entry(student, chosen.path, data=chosen.read())


def _choose(folder: Node, solution_file: str) -> Node | str:
    """The file named solution_file anywhere in the student's folder, else its only .py file; else why not."""
    files = list(_files(folder))
    named = [f for f in files if f.name == solution_file]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        return f"several files named {solution_file}: " + ", ".join(f.path for f in named)
    python = [f for f in files if f.name.endswith(".py")]
    if len(python) == 1:
        return python[0]
    if not python:
        return f"no .py file in the folder (expected {solution_file})"
    return (
        f"several .py files and none named {solution_file}: "
        + ", ".join(f.path for f in python[:5])
        + f"; rename the solution {solution_file}"
    )


def _files(folder: Node):
    for child in folder.children.values():
        if child.is_file:
            yield child
        else:
            yield from _files(child)


def _unique(entries: list[Entry]) -> list[Entry]:
    seen: dict[str, Entry] = {}
    for entry in entries:
        if entry.student in seen:
            first, number = seen[entry.student], 2
            while f"{entry.student}~{number}" in seen:
                number += 1
            entry.notes.append(
                f"duplicate id {entry.student!r} (also {first.origin}); kept as {entry.student}~{number}"
            )
            first.notes.append(f"duplicate id: {entry.origin} is kept as {entry.student}~{number}")
            entry.student = f"{entry.student}~{number}"
        seen[entry.student] = entry
    return sorted(seen.values(), key=lambda e: e.student)


def _skip(name: str) -> bool:
    return name in JUNK or name.startswith(".") or name.startswith("._")


def _folder_tree(path: Path) -> Node:
    if not path.is_dir():
        raise BadSubmissions(f"{path} is neither a folder nor a zip file")
    return _folder_node(path, path)


def _folder_node(path: Path, top: Path) -> Node:
    node = Node(path.name, path.relative_to(top).as_posix())
    for child in sorted(path.iterdir()):
        if _skip(child.name) or child.is_symlink():  # a link may point anywhere on the host: not a submission
            continue
        if child.is_dir():
            node.children[child.name] = _folder_node(child, top)
        elif child.is_file():
            node.children[child.name] = Node(
                child.name, child.relative_to(top).as_posix(), read=_file_reader(child), size=child.stat().st_size
            )
    return node


def _file_reader(path: Path):
    def read() -> bytes:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE + 1)

    return read


def _zip_tree(path: Path) -> Node:
    try:
        archive = zipfile.ZipFile(path)
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise BadSubmissions(f"{path} is not a readable zip file: {exc}") from None
    if len(members) > MAX_ENTRIES or sum(m.file_size for m in members) > MAX_TOTAL:
        raise BadSubmissions(
            f"{path}: {len(members)} entries, {sum(m.file_size for m in members)} bytes "
            "uncompressed; that is not a class's submissions (zip bomb?)"
        )
    root = Node("", "")
    for member in members:
        parts = _safe_parts(member.filename)
        if parts is None or member.is_dir():
            continue
        folder = root
        for part in parts[:-1]:
            folder = folder.children.setdefault(part, Node(part, f"{folder.path}/{part}".lstrip("/")))
        folder.children[parts[-1]] = Node(
            parts[-1], "/".join(parts), read=_member_reader(archive, member), size=member.file_size
        )
    return root


def _safe_parts(name: str) -> list[str] | None:
    """A member's path parts, or None for one to skip: junk, absolute, or climbing out with '..'."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or any(p in ("..", "") for p in pure.parts) or ":" in pure.parts[0]:
        return None
    if any(_skip(p) for p in pure.parts):
        return None
    return list(pure.parts) or None


def _member_reader(archive: zipfile.ZipFile, member: zipfile.ZipInfo):
    def read() -> bytes:
        with archive.open(member) as handle:
            return handle.read(MAX_FILE + 1)  # the declared size can lie: never read more than this

    return read
