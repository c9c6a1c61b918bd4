"""`python practice/judge.py ID PATH --server URL`: judge through a judge server's web API, print as locally."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import httpx

from judge import exits
from judge.cli.learner_files import LearnerFiles
from judge.cli.learner_io import announce, consoles, learner_target, read_submission
from judge.cli.render import LiveMarks, print_judged
from judge.report.events import CaseFinished, Collected, Done, EventSink
from judge.report.i18n import Lang
from judge.report.models import PublicReport, Verdict
from judge.settings import Settings

RECONNECTS = 5
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}\.py$")  # the file names the server accepts for its messages


class ServerError(Exception):
    """The server refused or could not be reached; the message says what to do."""


def sse_events(response: httpx.Response) -> Iterator[tuple[str | None, str, str]]:
    """Parse a text/event-stream body into (id, event, data) triples."""
    event_id: str | None = None
    kind, data = "message", list[str]()
    for line in response.iter_lines():
        if not line:
            if data:
                yield event_id, kind, "\n".join(data)
            kind, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                event_id = value
            elif field == "event":
                kind = value
            elif field == "data":
                data.append(value)


def submit(client: httpx.Client, body: dict[str, Any]) -> str:
    try:
        response = client.post("/api/submissions", json=body)
    except httpx.HTTPError as exc:
        raise ServerError(f"cannot reach the judge server {client.base_url}: {exc}") from None
    if response.status_code != 202:
        try:
            detail = response.json().get("detail")
        except ValueError:
            detail = response.text[:200]
        retry = f" (retry after {response.headers['retry-after']} s)" if "retry-after" in response.headers else ""
        raise ServerError(f"the server refused the submission ({response.status_code}): {detail}{retry}")
    return str(response.json()["id"])


def follow(client: httpx.Client, submission_id: str, lang: Lang, on_event: EventSink) -> PublicReport:
    """Stream the submission's events (reconnecting with Last-Event-ID) until `done`; return its report."""
    last = None
    for _ in range(RECONNECTS):
        headers: dict[str, str] = {"Last-Event-ID": last} if last else {}
        try:
            with client.stream(
                "GET",
                f"/api/submissions/{submission_id}/events",
                params={"lang": lang},
                headers=headers,
                timeout=httpx.Timeout(30, read=120),
            ) as response:
                response.raise_for_status()
                for event_id, kind, data in sse_events(response):
                    last = event_id or last
                    payload = json.loads(data)
                    if kind == "collected":
                        on_event(Collected(total=payload["total"]))
                    elif kind == "case":
                        on_event(CaseFinished.model_validate(payload))
                    elif kind == "done":
                        report = PublicReport.model_validate(payload["report"])
                        on_event(Done(verdict=report.verdict))
                        return report
        except httpx.HTTPError:
            continue  # the stream broke: reconnect and get only what came after `last`
    raise ServerError(
        f"lost the connection to {client.base_url} while judging; "
        f"the verdict is kept there: {client.base_url}/api/submissions/{submission_id}"
    )


def run_remote(
    problem_id: str, path: str | None, as_json: bool, public: bool, server: str, settings: Settings, hints: int = 0
) -> int:
    """judge.cli.terminal.run_problem's output and exit status, judged by the server at `server`."""
    from judge.problem.folders import ProblemSet  # noqa: PLC0415
    from judge.source import check_source  # noqa: PLC0415

    lang, (out, err) = settings.lang, consoles()
    files = LearnerFiles(settings.solutions_dir, lang)
    problem = ProblemSet(settings.problems_dir).get(problem_id)
    target = learner_target(problem, path, files, err, lang)
    source = read_submission(target, settings.max_source_bytes)
    # The checks a local judgement makes before judging, with the same messages (a usage error, exit 2).
    code = check_source(source, min(problem.meta.limits.source_kib << 10, settings.max_source_bytes))
    if not as_json:
        announce(err, problem, target, public, lang)
    try:
        with httpx.Client(base_url=server.rstrip("/"), timeout=30, follow_redirects=True) as client:
            submission_id = submit(
                client,
                {
                    "problem_id": problem.id,
                    "code": code,
                    "mode": "run" if public else "submit",
                    "file_name": target.name if SAFE_NAME.match(target.name) else None,
                },
            )
            report = follow(client, submission_id, lang, (lambda e: None) if as_json else LiveMarks(out, lang))
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exits.USAGE
    files.record_judged(problem, source, report, target)
    print_judged(out, report, as_json, str(target), hints)
    if report.verdict == Verdict.internal_error:
        return exits.USAGE
    return exits.OK if report.verdict == Verdict.accepted else exits.NOT_ACCEPTED
