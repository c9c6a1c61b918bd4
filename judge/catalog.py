"""The judge's own learner-facing texts, one catalogue keyed by message id, each in zh and en."""

from __future__ import annotations

from judge.i18n import Text

# id -> (zh, en); str.format fields are filled by say(). Problems' own texts live in their tests (judge.feedback).
MESSAGES: dict[str, tuple[str, str]] = {
    "internal_error": ("判题系统内部错误（不是你的代码的问题），请重试或报告给我们",
                       "Internal error of the judge (not a problem with your code): try again or report it to us"),
    "internal_error.problem": ("判题系统内部错误（题目文件有问题），请报告给我们",
                               "Internal error of the judge (the exercise's files are broken): please report it to us"),
}


def say(msg_id: str, **fields) -> Text:
    """The catalogue's message msg_id in both languages, with fields filled in."""
    zh, en = MESSAGES[msg_id]
    return Text(zh=zh.format(**fields), en=en.format(**fields))
