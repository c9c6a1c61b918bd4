"""Errors a learner or caller may see, each with a safe message in both languages and an HTTP status for the web."""

from __future__ import annotations

from judge.report.i18n import Text


class JudgeError(Exception):
    """.text: both languages (a front end shows .text.get(lang)); .message: the English side, for logs and callers."""

    http_status = 400

    def __init__(self, message: str | Text):
        self.text = message if isinstance(message, Text) else Text.same(str(message))
        self.message = self.text.en
        super().__init__(self.message)


class UnknownProblem(JudgeError):
    http_status = 404


class BadSubmission(JudgeError):
    """Empty, too large, or not UTF-8: nothing was judged."""

    http_status = 422


class ProblemInvalid(JudgeError):
    """A problem folder is malformed: the author's fault, not the learner's."""

    http_status = 500


class CannotJudgeHere(JudgeError):
    """This judge lacks what the exercise needs (a GPU runner, a package such as Triton): nothing was judged."""

    http_status = 409
