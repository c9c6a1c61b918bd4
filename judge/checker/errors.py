"""Exceptions a test sees when it calls into the learner's worker."""

from judge.report.i18n import Text


class WorkerLost(Exception):
    """The worker died, was killed for a limit, or broke the protocol; no reply will come."""


class Tampered(WorkerLost):
    """The worker's guard found code the judge trusts changed (or a torch mode left on): no reply is believed."""


class OutOfMemory(WorkerLost):
    """An allocation the learner's code asked for was refused by the memory limit; the worker said where (its
    last reply) and ended. `line` is the learner's line, `said` what the allocator said."""

    def __init__(self, said: str, line: int | None):
        self.said, self.line = said, line
        super().__init__(f"out of memory: {said}")


class LearnerError(Exception):
    """The learner's code raised inside a probe; carries the worker's description of it."""

    def __init__(self, type_name: str, message: str, learner_line: int | None = None):
        self.type_name = type_name
        self.message = message
        self.learner_line = learner_line
        where = f" (line {learner_line})" if learner_line else ""
        super().__init__(f"{type_name}: {message}{where}")


class Refused(Exception):
    """What the learner's code handed back is of a kind the statement does not ask for (a tensor subclass): the case
    fails with this text, whatever the test would have compared."""

    def __init__(self, text: Text):
        self.text = text
        super().__init__(text.en)
