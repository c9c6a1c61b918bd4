"""Find each student's submission in a folder, a folder of folders or a zip of either, laid out as LMS downloads are."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from judge.batch import layouts
from judge.batch.exercise import Exercise
from judge.batch.layouts import GRADESCOPE, Named
from judge.batch.notebooks import NotebookError, to_source
from judge.errors import BadSubmission, JudgeError
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.source import check_source

MAX_FILE = 16 << 20  # read at most this much of one file: larger is a rejected row, never loaded whole
MAX_ENTRIES = 20_000  # zip members
MAX_TOTAL = 1 << 30  # sum of the zip's declared uncompressed sizes
MAX_NESTING = 2  # a student's zip inside the class's zip is opened; a zip inside that one too; no deeper
JUNK = {"__MACOSX", "__pycache__", ".git", ".DS_Store", "Thumbs.db"}
_UNSAFE = re.compile(r"[^\w.@+~-]", re.UNICODE)
NOT_A_SUBMISSION = "neither a .py file, a notebook (.ipynb) nor a zip: not a student's submission"
NOTEBOOK = ".ipynb"
# Why a member of a student's zip, or a file of their folder, was not judged: the same words in every layout
# (catalogue: left_out.<key>), naming the member as the download holds it.
LEFT_OUT_WHY = ("traversal", "other_file", "nested", "unreadable", "too_large")


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
    name: str = ""  # the student's name, where the LMS's layout gives one
    layout: str = layouts.PLAIN
    submitted: datetime | None = None  # from the name or the metadata, else the file's time
    submitted_from: str = ""  # where that time came from: "lms", "file", "submitted-at", "worksheet" (lateness.py)
    late_marker: bool = False  # the LMS marked it late
    attempts: list[str] = field(default_factory=list)  # the student's other attempts, not judged
    versions: list[Entry] = field(default_factory=list)  # every attempt, oldest first, when there are several
    attempt: str = ""  # the attempt as the download names it (a file, or a folder of one attempt's files)
    told: list[Text] = field(default_factory=list)  # what the student's feedback says of the file (left out, notebook)
    aliases: list[str] = field(default_factory=list)  # other ids the LMS knows the student by (Gradescope's sid)


@dataclass
class Skipped:
    path: str
    reason: str


@dataclass
class Discovery:
    entries: list[Entry]
    skipped: list[Skipped]


@dataclass
class Node:
    """A file or folder of the submissions tree, read lazily (a file's bytes up to MAX_FILE + 1)."""

    name: str
    path: str
    read: Callable[[], bytes] | None = None  # None for a folder
    size: int = 0
    mtime: datetime | None = None
    children: dict[str, Node] = field(default_factory=dict)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (member, why: LEFT_OUT_WHY) of an archive

    @property
    def is_file(self) -> bool:
        return self.read is not None

    def latest(self) -> datetime | None:
        times = [t for t in (self.mtime, *(c.latest() for c in self.children.values())) if t is not None]
        return max(times, default=None)


@dataclass
class _Attempt:
    node: Node
    named: Named | None
    origin: str
    uploads: dict[str, tuple[tuple[int, int], str]] = field(default_factory=dict)  # file -> (order, path) kept
    # Earlier uploads of one of its files (Canvas renames a re-upload 101-1.py): (order, file name, node), each an
    # attempt of its own, made of this one's files with that upload in place.
    older: list[tuple[tuple[int, int], str, Node]] = field(default_factory=list)
    when_seen: datetime | None = None  # an earlier upload's own file time (its attempt has the LMS's time)

    @property
    def when(self) -> datetime | None:
        return self.when_seen or (self.named.submitted if self.named else None) or self.node.latest()


def discover(path: Path, solution_file: str | Exercise, skip: Path | None = None) -> list[Entry]:
    """Every student's entry, ids unique, sorted by id (see scan)."""
    return scan(path, solution_file, skip).entries


def scan(path: Path, exercise: str | Exercise, skip: Path | None = None, attempt: str = "last") -> Discovery:
    """Every student's entry (one per student: the attempt `attempt` names, ATTEMPT_CHOICES) and the files that are
    no one's submission.

    skip: a folder inside SUBMISSIONS that is not a student's (the --out folder, when it lies there)."""
    exercise = exercise if isinstance(exercise, Exercise) else Exercise(exercise)
    if not path.exists():
        raise BadSubmissions(f"no such file or folder: {path}")
    root = _zip_tree(path) if path.is_file() else _folder_tree(path)
    skipped = [Skipped(member, say(f"left_out.{why}").en) for member, why in root.left_out]  # no student's
    if skip is not None and path.is_dir() and skip.resolve().parent == path.resolve():
        root.children.pop(skip.name, None)
    if path.is_file():
        while len(root.children) == 1 and not next(iter(root.children.values())).is_file:
            root = next(iter(root.children.values()))  # a single top-level folder is looked through
    groups = _group(root, skipped)
    entries = [_entry_of(key, attempts, exercise, attempt) for key, attempts in groups.items()]
    return Discovery(_unique(entries), sorted(skipped, key=lambda s: s.path))


def one_submission(folder: Path, solution_file: str | Exercise, student: str = "submission") -> Entry:
    """The file to judge in one student's folder (Gradescope's /autograder/submission), or why there is none."""
    exercise = solution_file if isinstance(solution_file, Exercise) else Exercise(solution_file)
    entry = _entry(_folder_tree(folder), exercise)
    entry.student = student
    return entry


def student_id(name: str, is_file: bool) -> str:
    stem = name.rsplit(".", 1)[0] if is_file and "." in name.lstrip(".") else name
    return _UNSAFE.sub("_", stem).lstrip(".") or "_"


def _group(root: Node, skipped: list[Skipped]) -> dict[tuple[str, str], list[_Attempt]]:
    """(layout, id) -> the student's attempts; each attempt a file or folder node (an LMS's files of one attempt
    gathered in a folder of their own names)."""
    meta_node = root.children.get(layouts.GRADESCOPE_METADATA)
    metadata = {}
    if meta_node is not None and meta_node.is_file:
        del root.children[layouts.GRADESCOPE_METADATA]
        metadata = layouts.gradescope_metadata(_text(meta_node) or "")
        skipped.append(Skipped(meta_node.path, "Gradescope's submission metadata (read for names and times)"))
    groups: dict[tuple[str, str], dict[str, _Attempt]] = {}
    names: dict[tuple[str, str], str] = {}
    assignment = _blackboard_assignment(root)
    for node in sorted(root.children.values(), key=lambda n: n.name):
        named = layouts.parse_name(node.name, node.is_file, assignment)
        if named is None:
            if node.is_file and not _judgeable(node.name):
                skipped.append(Skipped(node.path, NOT_A_SUBMISSION))
                continue
            key = (layouts.PLAIN, f"{node.name}\0{len(groups)}")  # plain entries never merge: ids are made unique
            groups[key] = {"": _Attempt(node, None, node.path)}
            continue
        if named.layout == layouts.GRADESCOPE:
            info = metadata.get(node.name)
            if info is not None:
                named = Named(GRADESCOPE, named.student, info.name, submitted=info.submitted, attempt=named.student)
            key = (layouts.GRADESCOPE, info.who if info is not None and info.who else named.student)
        else:
            key = (named.layout, named.student)
        if named.receipt:
            names.setdefault(key, layouts.receipt_name(_text(node) or ""))
            skipped.append(Skipped(node.path, "Blackboard's submission receipt (read for the name)"))
            continue
        if named.name:
            names.setdefault(key, named.name)
        attempts = groups.setdefault(key, {})
        if node.is_file:  # an LMS's flat files: gather one attempt's files in a folder of their own names
            attempt = attempts.get(named.attempt)
            if attempt is None:
                folder = Node(named.student, node.path)
                attempt = attempts[named.attempt] = _Attempt(folder, named, node.path)
            file = named.file or node.name
            kept = attempt.uploads.get(file)
            upload = Node(file, node.path, node.read, node.size, node.mtime)
            if kept is not None and kept[0] > named.order:  # an older upload of a file already kept
                attempt.older.append((named.order, file, upload))
                continue
            if kept is not None:  # a newer upload of that file (Canvas's 101-1.py after 101.py)
                attempt.older.append((kept[0], file, attempt.node.children[file]))
            attempt.uploads[file] = (named.order, node.path)
            attempt.node.children[file] = Node(file, node.path, node.read, node.size, node.mtime)
            attempt.named = _later(attempt.named, named)
        else:
            attempts[named.attempt or node.name] = _Attempt(node, named, node.path)
    out: dict[tuple[str, str], list[_Attempt]] = {}
    for key, attempts in groups.items():
        for attempt in attempts.values():
            if attempt.named is not None and names.get(key) and not attempt.named.name:
                attempt.named = Named(**{**attempt.named.__dict__, "name": names[key]})
            if attempt.named is not None and len(attempt.node.children) == 1 and key[0] != layouts.GRADESCOPE:
                only = next(iter(attempt.node.children.values()))
                if only.is_file:
                    attempt.origin = only.path
        out[key] = list(attempts.values())
    return out


def _blackboard_assignment(root: Node) -> str | None:
    """The assignment's name a Blackboard download's long-form names start with, from its receipts and names, so
    that user ids with underscores stay whole (layouts.blackboard_assignment)."""
    heads: list[str] = []
    receipts: list[tuple[str, str]] = []
    for node in root.children.values():
        found = layouts.blackboard_head(node.name) if node.is_file else None
        if found is not None:
            heads.append(found[0])
            if found[1]:
                receipts.append((found[0], layouts.receipt_user(_text(node) or "")))
    return layouts.blackboard_assignment(heads, receipts)


def _later(kept: Named | None, seen: Named) -> Named:
    """One attempt's files share its name and time; the late mark of any of them marks the attempt."""
    if kept is None:
        return seen
    return Named(**{**kept.__dict__, "late": kept.late or seen.late, "name": kept.name or seen.name})


def _judgeable(name: str) -> bool:
    return name.lower().endswith((".py", ".zip", NOTEBOOK))


ATTEMPT_CHOICES = ("last", "first", "best")  # --attempt: which of a student's attempts is graded


def _entry_of(key: tuple[str, str], attempts: list[_Attempt], exercise: Exercise, choice: str = "last") -> Entry:
    """The student's chosen attempt (the latest, by the LMS's time, else the files' time; or the first), the others
    listed. With several, each attempt is also kept, oldest first, in `versions` (--attempt best: choose_best)."""
    epoch = datetime.min.replace(tzinfo=UTC)
    ordered = sorted(attempts, key=lambda a: (a.when or epoch, a.origin))
    versions: list[_Attempt] = []
    for attempt in ordered:  # a re-uploaded file's earlier uploads are earlier attempts
        for _order, file, upload in sorted(attempt.older, key=lambda o: o[0]):
            files = Node(attempt.node.name, attempt.node.path, children={**attempt.node.children, file: upload})
            origin = upload.path if len(files.children) == 1 else attempt.origin
            versions.append(_Attempt(files, attempt.named, origin, when_seen=upload.mtime))
        versions.append(attempt)
    chosen = versions[0] if choice == "first" else versions[-1]
    entry = _one_entry(chosen, exercise)
    if key[0] == layouts.GRADESCOPE and key[1] != entry.student:  # its SID (or email): what a roster names it by
        entry.aliases = [key[1]]
    if len(versions) > 1:
        entry.versions = [_one_entry(v, exercise) for v in versions]
        _name_attempts(entry, versions.index(chosen), choice)
    return entry


def _name_attempts(entry: Entry, index: int, choice: str) -> None:
    """The attempts column and the note that says which attempt was judged and which were left out."""
    chosen = entry.versions[index]
    entry.attempts = [v.attempt for i, v in enumerate(entry.versions) if i != index]
    which = {"first": "the first", "best": "each; kept the best score, the latest of equals"}.get(choice, "the latest")
    entry.notes = [n for n in entry.notes if " attempts: judged " not in n]
    entry.notes.append(
        f"{len(entry.versions)} attempts: judged {which} ({chosen.attempt}); left out: {', '.join(entry.attempts)}"
    )


def choose_best(entry: Entry, scores: dict[str, float]) -> Entry:
    """The entry's attempt with the best score (scores: by origin; one never judged counts as 0), the latest of
    equals, carrying the attempts and the note."""
    if not entry.versions:
        return entry
    best = max(range(len(entry.versions)), key=lambda i: (scores.get(entry.versions[i].origin, 0.0), i))
    chosen = entry.versions[best]
    chosen.student, chosen.versions = entry.student, entry.versions  # the id as made unique (id~2)
    chosen.aliases = entry.aliases
    chosen.notes = [n for n in entry.notes if " attempts: judged " not in n]
    # each attempt keeps its own time: a times file's (the student's latest hand-in) is on the latest (apply_times)
    _name_attempts(chosen, best, "best")
    return chosen


def _one_entry(attempt: _Attempt, exercise: Exercise) -> Entry:
    named = attempt.named
    if named is None:
        entry = _entry(attempt.node, exercise)
        entry.student = student_id(attempt.node.name, attempt.node.is_file)
    else:
        entry = _entry(attempt.node, exercise, origin=attempt.origin)
        entry.student = _UNSAFE.sub("_", named.student) or "_"
        entry.name, entry.layout, entry.late_marker = named.name, named.layout, named.late
    entry.submitted = attempt.when
    entry.submitted_from = "lms" if named is not None and named.submitted else ("file" if attempt.when else "")
    entry.attempt = attempt.origin
    return entry


def _entry(node: Node, exercise: Exercise, origin: str | None = None, depth: int = 0) -> Entry:
    student = student_id(node.name, node.is_file)
    if node.is_file and node.name.lower().endswith(".zip"):
        opened = _open_nested(node, depth)
        if isinstance(opened, str):
            return Entry(student, node.path, reason=opened)
        entry = _entry(opened, exercise, depth=depth + 1)
        entry.student = student
        return entry
    left: list[tuple[str, str]] = []
    chosen = node if node.is_file else _choose(node, exercise, left, depth)
    notes = [_left_note(path, why) for path, why in left]
    told = [say("feedback.left_out", path=path, why=say(f"left_out.{why}")) for path, why in left]
    if isinstance(chosen, str):
        return Entry(student, origin or node.path, reason=chosen, notes=notes, told=told)
    if chosen.size > MAX_FILE:
        return Entry(student, chosen.path, reason=f"the file is {chosen.size} bytes; far over any source limit")
    data = chosen.read() if chosen.read else b""
    if chosen.name.lower().endswith(NOTEBOOK):
        return _notebook_entry(student, chosen, data, notes, told)
    return Entry(student, chosen.path, data=data, notes=notes, told=told)


def _notebook_entry(student: str, chosen: Node, data: bytes, notes: list[str], told: list[Text]) -> Entry:
    """A notebook's code cells as the file to judge (judge.batch.notebooks), or why it cannot be judged."""
    try:
        converted = to_source(data, chosen.name)
    except NotebookError as exc:
        return Entry(student, chosen.path, reason=str(exc), notes=notes, told=told)
    notes = [*notes, f"a notebook: judged its {converted.cells} code cells in order"]
    told = [*told, say("feedback.notebook", cells=converted.cells)]
    if converted.dropped:
        notes.append("IPython lines left out: " + "; ".join(converted.dropped))
        told.append(say("feedback.notebook_dropped", lines="; ".join(converted.dropped)))
    return Entry(student, chosen.path, data=converted.source.encode("utf-8"), notes=notes, told=told)


def _left_note(path: str, why: str) -> str:
    """The instructor's note for a file left out: the same words in every layout."""
    return f"left out {path}: {say(f'left_out.{why}').en}"


def _choose(folder: Node, exercise: Exercise, left: list[tuple[str, str]], depth: int) -> Node | str:
    """The file named like the exercise anywhere in the student's folder (its .py, else a notebook of its name),
    else its only .py file or notebook, else the only one that defines the exercise's operators; else why none. Zips
    inside are opened (same limits). left: (path, why) of each file left out, for the notes."""
    files = list(_files(folder, depth, left))
    solution_file = exercise.solution_file
    notebook_name = solution_file.rsplit(".", 1)[0] + NOTEBOOK
    code = [f for f in files if f.name.lower().endswith((".py", NOTEBOOK))]
    named = [f for f in files if f.name == solution_file] or [f for f in files if f.name == notebook_name]
    if len(named) > 1:
        return f"several files named {named[0].name}: " + ", ".join(f.path for f in named)
    chosen: Node | None = named[0] if named else code[0] if len(code) == 1 else None
    if chosen is None and len(code) > 1:
        defining = [f for f in code if _defines(f, exercise)]
        chosen = defining[0] if len(defining) == 1 else None
    if chosen is None:
        if not code:
            return f"no .py file or notebook in the folder (expected {solution_file})"
        return (
            f"several .py files or notebooks and none named {solution_file}: "
            + ", ".join(f.path for f in code[:5])
            + f"; rename the solution {solution_file}"
        )
    others = [f.path for f in code if f is not chosen]
    left += [(path, "other_file") for path in others]
    return chosen


def _defines(node: Node, exercise: Exercise) -> bool:
    text = _text(node) if node.size <= MAX_FILE else None
    if text is not None and node.name.lower().endswith(NOTEBOOK):
        try:
            text = to_source(text.encode("utf-8"), node.name).source
        except NotebookError:
            return False
    return bool(exercise.operators) and text is not None and exercise.defines_operators(text)


def _text(node: Node) -> str | None:
    """A file's text as the judge reads a submission (judge/source.py: BOM, coding line), or None."""
    if node.read is None:
        return None
    try:
        return check_source(node.read(), MAX_FILE)
    except BadSubmission:
        return None


def _files(folder: Node, depth: int, left: list[tuple[str, str]]) -> Iterator[Node]:
    left += folder.left_out
    for child in folder.children.values():
        if not child.is_file:
            yield from _files(child, depth, left)
        elif child.name.lower().endswith(".zip"):
            opened = _open_nested(child, depth)
            if isinstance(opened, str):
                left.append((child.path, _why_not_opened(child, depth)))
            else:
                yield from _files(opened, depth + 1, left)
        else:
            yield child


def _why_not_opened(node: Node, depth: int) -> str:
    if depth >= MAX_NESTING:
        return "nested"
    return "too_large" if node.size > MAX_FILE or node.read is None else "unreadable"


def _open_nested(node: Node, depth: int) -> Node | str:
    """A student's own zip as a folder (its members' paths under the zip's), or why it was not opened."""
    if depth >= MAX_NESTING:
        return f"{node.path}: a zip nested more than {MAX_NESTING} deep was not opened"
    if node.size > MAX_FILE or node.read is None:
        return f"{node.path}: the zip is {node.size} bytes; over the {MAX_FILE}-byte limit of one file"
    try:
        archive = zipfile.ZipFile(io.BytesIO(node.read()))
        tree = _archive_tree(archive, node.path, prefix=node.path)
    except (zipfile.BadZipFile, OSError, BadSubmissions) as exc:
        return f"{node.path}: not a readable zip ({exc})"
    tree.name, tree.path = node.name, node.path
    return tree


def _unique(entries: list[Entry]) -> list[Entry]:
    seen: dict[str, Entry] = {}
    for entry in sorted(entries, key=lambda e: (e.student, e.origin)):
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
            stat = child.stat()
            node.children[child.name] = Node(
                child.name,
                child.relative_to(top).as_posix(),
                read=_file_reader(child),
                size=stat.st_size,
                mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
            )
    return node


def _file_reader(path: Path) -> Callable[[], bytes]:
    def read() -> bytes:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE + 1)

    return read


def _zip_tree(path: Path) -> Node:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BadSubmissions(f"{path} is not a readable zip file: {exc}") from None
    return _archive_tree(archive, str(path))


def _archive_tree(archive: zipfile.ZipFile, label: str, prefix: str = "") -> Node:
    members = archive.infolist()
    if len(members) > MAX_ENTRIES or sum(m.file_size for m in members) > MAX_TOTAL:
        raise BadSubmissions(
            f"{label}: {len(members)} entries, {sum(m.file_size for m in members)} bytes "
            "uncompressed; that is not a class's submissions (zip bomb?)"
        )
    root = Node("", prefix)
    for member in members:
        parts = _safe_parts(member.filename)
        if parts is None and not member.is_dir() and not _junk(member.filename):
            root.left_out.append((f"{prefix}/{member.filename}" if prefix else member.filename, "traversal"))
        if parts is None or member.is_dir():
            continue
        folder = root
        for part in parts[:-1]:
            folder = folder.children.setdefault(part, Node(part, f"{folder.path}/{part}".lstrip("/")))
        folder.children[parts[-1]] = Node(
            parts[-1],
            f"{prefix}/{'/'.join(parts)}".lstrip("/") if prefix else "/".join(parts),
            read=_member_reader(archive, member),
            size=member.file_size,
            mtime=_zip_time(member),
        )
    return root


def _zip_time(member: zipfile.ZipInfo) -> datetime | None:
    try:
        return datetime(*member.date_time, tzinfo=UTC)
    except ValueError:
        return None


def _junk(name: str) -> bool:
    """A member that is metadata of the tool that made the zip (__MACOSX/, .DS_Store): left out without a word."""
    return any(_skip(p) for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("..", "/"))


def _safe_parts(name: str) -> list[str] | None:
    """A member's path parts, or None for one to skip: junk, absolute, or climbing out with '..'."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or any(p in ("..", "") for p in pure.parts) or ":" in pure.parts[0]:
        return None
    if any(_skip(p) for p in pure.parts):
        return None
    return list(pure.parts) or None


def _member_reader(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> Callable[[], bytes]:
    def read() -> bytes:
        with archive.open(member) as handle:
            return handle.read(MAX_FILE + 1)  # the declared size can lie: never read more than this

    return read
