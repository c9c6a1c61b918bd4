"""The names LMS downloads give their files: Canvas, Moodle, Gradescope, Blackboard (who sent it, when, late)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

CANVAS, MOODLE, GRADESCOPE, BLACKBOARD, PLAIN = "canvas", "moodle", "gradescope", "blackboard", "plain"
GRADESCOPE_METADATA = "submission_metadata.yml"

# Canvas: lastfirst_userid_submissionid_file.py, or lastfirst_LATE_userid_submissionid_file.py (its bulk download).
_CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
_CANVAS_REUPLOAD = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>\.[A-Za-z0-9]+)$")
# Moodle: "Full Name_12345_assignsubmission_file_" (a folder), or flat: "Full Name_12345_assignsubmission_file_x.py".
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<user>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)$")
# Gradescope's export: one folder per submission, submission_<id>/, beside submission_metadata.yml.
_GRADESCOPE = re.compile(r"^submission_(?P<sub>\d+)$")
# Blackboard: "Assignment_user_attempt_2024-03-01-10-20-30_file.py" (and the receipt ..._attempt_<date>.txt), or the
# short form "name_user_attempt_2024-03-01.py". Anchored on the first _attempt_<date>: the file's own name may hold
# anything. The name alone cannot tell where an assignment name with underscores ends and a user id with underscores
# begins: the user is its last part unless the download says the assignment's name (blackboard_assignment).
_BLACKBOARD = re.compile(
    r"^(?P<head>(?P<prefix>.+?)_(?P<user>[^_]+))_attempt_(?P<date>\d{4}-\d{2}-\d{2}(?:-\d{2}-\d{2}-\d{2})?)"
    r"(?P<rest>.*)$"
)
_BLACKBOARD_LONG_DATE = re.compile(r"^\d{4}(?:-\d{2}){5}$")


@dataclass(frozen=True)
class Named:
    """What an LMS's file name says: whose it is, under which id, and (where it says) when and whether late."""

    layout: str
    student: str  # the LMS's id: Canvas user id, Moodle participant id, Gradescope submission id, Blackboard user
    name: str = ""  # the student's name where the layout gives one
    file: str = ""  # the file's own name inside the student's submission ("" for a folder that is the submission)
    submitted: datetime | None = None
    late: bool = False  # the LMS marked it late (Canvas's _LATE_)
    attempt: str = ""  # tells attempts of one student apart (Blackboard's date, Gradescope's submission)
    receipt: bool = False  # Blackboard's .txt receipt: read for the name, not a submission
    order: tuple[int, int] = (0, 0)  # the LMS's own order of uploads of one file (Canvas's -N), before any file time


def parse_name(name: str, is_file: bool, assignment: str | None = None) -> Named | None:
    """The layout a top-level file or folder name follows, or None for a plain name (alice.py, alice/).

    assignment: the name a Blackboard download's long-form names start with (blackboard_assignment); the user id is
    then all that follows it up to _attempt_, underscores included (j_doe)."""
    if not is_file:
        if match := _GRADESCOPE.match(name):
            return Named(GRADESCOPE, match["sub"], attempt=match["sub"])
        if (match := _MOODLE.match(name)) and match["file"] == "":
            return Named(MOODLE, match["user"], name=match["name"].strip())
        return None
    if match := _BLACKBOARD.match(name):
        rest, when, user = match["rest"], _blackboard_date(match["date"]), match["user"]
        head = match["head"]
        if assignment and _blackboard_long(match) and head.startswith(f"{assignment}_") and head != f"{assignment}_":
            user = head[len(assignment) + 1 :]  # all after the assignment's name: j_doe, not doe
        if rest.startswith("_"):  # long form: assignment_user_attempt_date_file
            return Named(BLACKBOARD, user, file=rest[1:], submitted=when, attempt=match["date"])
        if rest.lower() == ".txt":
            return Named(BLACKBOARD, user, file=name, submitted=when, attempt=match["date"], receipt=True)
        if rest.startswith("."):  # short form: name_user_attempt_date.py
            return Named(
                BLACKBOARD, match["user"], name=match["prefix"].replace("_", " "), file=f"{match['user']}{rest}",
                submitted=when, attempt=match["date"],
            )  # fmt: skip
    if match := _MOODLE.match(name):
        return Named(MOODLE, match["user"], name=match["name"].strip(), file=match["file"] or name)
    if match := _CANVAS.match(name):
        # A re-upload of the same file name gets "-N" before its extension (101-1.py): a newer attempt at that file,
        # not a second file of the submission (the number after the user id is each file's own, not the attempt's).
        # N orders the uploads of one file, whatever the files' times say (a copy without -p resets them).
        file, again = match["file"], 0
        if upload := _CANVAS_REUPLOAD.match(file):
            file, again = upload["stem"] + upload["ext"], int(upload["n"])
        return Named(CANVAS, match["user"], name=match["name"], file=file, late=bool(match["late"]), order=(0, again))
    return None


def _blackboard_long(match: re.Match[str]) -> bool:
    """The long form's name (assignment_user_attempt_<date-time>_file) or its receipt's (..._<date-time>.txt)."""
    return bool(_BLACKBOARD_LONG_DATE.match(match["date"])) and (
        match["rest"].startswith("_") or match["rest"].lower() == ".txt"
    )


def blackboard_head(name: str) -> tuple[str, bool] | None:
    """The "assignment_user" of a Blackboard long-form name, and whether it is a receipt's; else None."""
    match = _BLACKBOARD.match(name)
    if match is None or not _blackboard_long(match):
        return None
    return match["head"], match["rest"].lower() == ".txt"


def blackboard_assignment(heads: list[str], receipts: list[tuple[str, str]]) -> str | None:
    """The assignment's name that every long-form name of one Blackboard download starts with, so that a user id
    after it may hold underscores (j_doe), or None when the download does not say (the user is then the last part).

    heads: the names' "assignment_user" parts (blackboard_head); receipts: (head, the user its text names). A receipt
    ("Name: Jane Doe (j_doe)") says it exactly; else the longest start up to an underscore that all the download's
    heads share, when there are two or more (user ids that share a start up to an underscore, s_1 and s_2, then
    lose it, as they did before: still one row each)."""
    for head, user in receipts:
        if user and head.endswith(f"_{user}") and len(head) > len(user) + 1:
            return head[: -len(user) - 1]
    distinct = sorted(set(heads))
    if len(distinct) < 2:
        return None
    shared = os.path.commonprefix(distinct)
    cut = shared.rfind("_")
    return shared[:cut] if cut > 0 else None


def _blackboard_date(text: str) -> datetime | None:
    form = "%Y-%m-%d-%H-%M-%S" if text.count("-") == 5 else "%Y-%m-%d"
    try:
        return datetime.strptime(text, form).replace(tzinfo=UTC)  # Blackboard names carry no zone: read as UTC
    except ValueError:
        return None


def receipt_name(text: str) -> str:
    """The student's name from a Blackboard receipt ("Name: Alice Smith (asmith)")."""
    match = re.search(r"^Name:\s*(.+?)\s*(?:\([^()]*\))?\s*$", text, re.MULTILINE)
    return match[1] if match else ""


def receipt_user(text: str) -> str:
    """The student's user id from a Blackboard receipt ("Name: Alice Smith (asmith)"), or ""."""
    match = re.search(r"^Name:.*\(([^()]+)\)\s*$", text, re.MULTILINE)
    return match[1].strip() if match else ""


@dataclass(frozen=True)
class GradescopeSubmission:
    """One entry of submission_metadata.yml: who submitted submission_<id>, and when."""

    who: str  # the submitter's identity across submissions: sid, else email, else name
    name: str
    submitted: datetime | None


def gradescope_metadata(text: str) -> dict[str, GradescopeSubmission]:
    """submission_<id> -> its submitter and time; {} when the file cannot be read (ids still come from folders)."""
    import yaml  # noqa: PLC0415 - only Gradescope exports need it

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    out: dict[str, GradescopeSubmission] = {}
    for key, value in data.items() if isinstance(data, dict) else ():
        if not isinstance(value, dict):
            continue
        people = [p for p in _get(value, "submitters") or [] if isinstance(p, dict)]
        names = " & ".join(str(_get(p, "name") or "") for p in people).strip(" &")
        who = "+".join(str(_get(p, "sid") or _get(p, "email") or _get(p, "name") or "") for p in people)
        out[str(key)] = GradescopeSubmission(who=who, name=names, submitted=_when(_get(value, "created_at")))
    return out


def _get(mapping: dict[Any, Any], key: str) -> Any:
    """Gradescope writes Ruby symbols (":name"); accept plain keys too."""
    return mapping.get(f":{key}", mapping.get(key))


def _when(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        text = re.sub(r"(\.\d{6})\d+", r"\1", value.strip())  # Gradescope writes nanoseconds
        for form in ("%Y-%m-%d %H:%M:%S.%f %z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%dT%H:%M:%S%z"):
            try:
                return datetime.strptime(text, form)
            except ValueError:
                continue
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None
