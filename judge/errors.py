"""Errors a learner or caller may see, each with a safe message and an HTTP status for the web layer."""


class JudgeError(Exception):
    http_status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UnknownProblem(JudgeError):
    http_status = 404


class BadSubmission(JudgeError):
    """Empty, too large, or not UTF-8: nothing was judged."""

    http_status = 422


class ProblemInvalid(JudgeError):
    """A problem folder is malformed: the author's fault, not the learner's."""

    http_status = 500
