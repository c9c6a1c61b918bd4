"""The judge's own learner-facing texts, one catalogue keyed by message id, each in zh and en.

The texts live in judge/report/texts/*.toml, one file per area (verdicts, cases, the terminal, the page,
instructors...), where a translator reads and edits them without Python around them: `[id]` then `zh = "..."`
and `en = "..."`, with `{name}` fields that say() fills. A problem's own texts live in its tests (feedback.py).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from judge.report.i18n import Lang, Text

TEXTS = Path(__file__).with_name("texts")


def _messages(table: dict[str, Any], prefix: str = "") -> dict[str, tuple[str, str]]:
    """Flatten a texts file's tables: a table holding zh and en is one message (its path is the id); the tables
    inside it are messages of their own (`[web.unavailable]` and `[web.unavailable.database]`)."""
    found: dict[str, tuple[str, str]] = {}
    if isinstance(table.get("zh"), str) and isinstance(table.get("en"), str):
        found[prefix] = (table["zh"], table["en"])
    for key, value in table.items():
        if isinstance(value, dict):
            found.update(_messages(value, f"{prefix}.{key}" if prefix else key))
        elif key not in ("zh", "en"):
            raise ValueError(f"{prefix}.{key}: a text is a table with zh and en")
    return found


def load(folder: Path = TEXTS) -> dict[str, tuple[str, str]]:
    """Every message of the catalogue: id -> (zh, en). An id given twice, in one file or two, is an error."""
    messages: dict[str, tuple[str, str]] = {}
    for path in sorted(folder.glob("*.toml")):
        found = _messages(tomllib.loads(path.read_text(encoding="utf-8")))
        again = messages.keys() & found.keys()
        if again:
            raise ValueError(f"{path.name}: {sorted(again)} given twice")
        messages.update(found)
    return messages


# id -> (zh, en); str.format fields are filled by say().
MESSAGES: dict[str, tuple[str, str]] = load()


def words(prefix: str, lang: Lang) -> dict[str, str]:
    """Every message under `prefix.` in one language, unformatted, keyed by the rest of its id: the labels a
    template fills itself (the class report's)."""
    side = 1 if lang == "en" else 0
    return {key[len(prefix) + 1 :]: texts[side] for key, texts in MESSAGES.items() if key.startswith(prefix + ".")}


def say(msg_id: str, **fields: object) -> Text:
    """The catalogue's message msg_id in both languages, with fields filled in.

    A field given as a Text fills each language with its own side (a hint inside a sentence)."""
    zh, en = MESSAGES[msg_id]
    return Text(zh=zh.format(**_side(fields, "zh")), en=en.format(**_side(fields, "en")))


def _side(fields: dict[str, object], lang: Lang) -> dict[str, object]:
    return {key: value.get(lang) if isinstance(value, Text) else value for key, value in fields.items()}
