"""The verdict the page's stream ends with is already where the terminal's --list reads it (data_dir/progress.json):
a learner who looks at the terminal after the page says "done" never finds the verdict before."""

from __future__ import annotations

import threading

from judge import Judge
from judge.queue import progress
from judge.report import models
from web.config import WebSettings
from web.service import WebService


class _Judge(Judge):
    """The real exercises, and a judgement that ends at once with its report (no worker starts)."""

    def grade(self, problem_id, source_code, mode="submit", on_event=None, display_name=None, cancel=None):
        return models.internal_error(problem_id, mode, "the report this test stores")


def test_the_terminal_finds_the_verdict_before_the_stream_says_done(tmp_path):
    settings = WebSettings(data_dir=tmp_path, database_url=None, queue_url=None)  # what the environment says aside
    service = WebService(settings, _Judge())
    publish, done = service.broadcast.publish, threading.Event()
    shared_at_done: list[str | None] = []

    def watch(submission_id: str) -> None:  # each notice the stream wakes on; the last one follows the stored report
        stored = service.store.get(submission_id)
        if stored is not None and stored.finished_at is not None and not done.is_set():
            entry = progress.read(tmp_path).page.get("100")
            shared_at_done.append(entry.verdict if entry else None)
            done.set()
        publish(submission_id)

    service.broadcast.publish = watch  # type: ignore[method-assign]
    try:
        service.submit("learner", "100", "x = 1\n", "run")
        assert done.wait(60)
    finally:
        service.close()
    assert shared_at_done == ["internal_error"]
