"""Learner-facing text in both languages (zh, the handbook's, and en) and picking the reader's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")
DEFAULT_LANG: Lang = "zh"


class Text(BaseModel):
    """One message in both languages; a front end shows .get(lang) and switches without judging again."""

    model_config = ConfigDict(frozen=True)

    zh: str = ""
    en: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_str(cls, value: object) -> object:
        """A plain string reads the same in both languages (file names, an exception's own words)."""
        return {"zh": value, "en": value} if isinstance(value, str) else value

    def get(self, lang: Lang) -> str:
        return self.en if lang == "en" else self.zh

    def __bool__(self) -> bool:
        return bool(self.zh or self.en)

    @classmethod
    def same(cls, text: str) -> Text:
        """Text that reads the same in both languages (a file name, an exception's own words)."""
        return cls(zh=text, en=text)

    def map(self, fn: Callable[[str], str]) -> Text:
        """Apply fn(str) -> str to both languages."""
        return Text(zh=fn(self.zh), en=fn(self.en))

    def __add__(self, other: Text | str) -> Text:
        if isinstance(other, str):
            other = Text.same(other)
        return Text(zh=self.zh + other.zh, en=self.en + other.en)


def pick_lang(*candidates: str | None) -> Lang:
    """The first candidate that names a language we have ('en', 'en-US', 'zh-CN;q=0.8', ...); else zh."""
    for candidate in candidates:
        for part in (candidate or "").split(","):
            tag = part.split(";")[0].strip().lower()[:2]
            if tag in LANGS:
                return tag
    return DEFAULT_LANG
