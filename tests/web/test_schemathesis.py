"""The web API never answers 5xx and never cuts a stream: requests generated from its own OpenAPI schema
(schemathesis, stateful through the links from POST /api/submissions), and raw bytes the schema cannot describe."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings

from judge.problem.folders import ProblemSet
from judge.report.events import CaseFinished, Collected
from judge.report.models import CaseResult, Outcome, Report, Verdict
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from tests.web.conftest import free_port
from web.app import create_app
from web.config import WebSettings

schemathesis = pytest.importorskip("schemathesis")

CODE = "def add(a, b):\n    return a + b\n"


class InstantJudge:
    """Grades at once: every submission a test makes finishes, so every stream it opens must end with `done`."""

    def __init__(self) -> None:
        self.settings = Settings(problems_dir=FIXTURE_PROBLEMS)
        self.problem_set = ProblemSet(FIXTURE_PROBLEMS)

    def problems(self) -> list[Any]:
        return self.problem_set.all()

    def problem(self, problem_id: str) -> Any:
        return self.problem_set.get(problem_id)

    def grade(self, problem_id: str, code: str, mode: str, on_event: Any = None, **_: Any) -> Report:
        case = CaseResult(name="test_add[small]", outcome=Outcome.passed)
        if on_event is not None:
            on_event(Collected(total=1))
            on_event(CaseFinished.of(case, 1, 1, 0))
        return Report(problem=problem_id, verdict=Verdict.accepted, score=1, passed=1, total=1, mode=mode, cases=[case])


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("schemathesis")
    web = WebSettings(data_dir=data, workers=1, queue_limit=1000, learner_queue_limit=1000)
    server = uvicorn.Server(
        uvicorn.Config(create_app(web, judge=InstantJudge()), host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def api_schema(url: str) -> Any:
    return schemathesis.openapi.from_url(f"{url}/openapi.json")


QUICK = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def no_server_error(response: Any) -> None:
    assert response.status_code < 500, f"{response.status_code}: {response.text[:500]}"
    kind = response.headers.get("content-type") or ""
    kind = kind[0] if isinstance(kind, list) else kind  # schemathesis's response keeps every value of a header
    if kind.startswith("text/event-stream") and response.status_code == 200:
        assert "event: done" in response.text, f"a stream ended without its done event: {response.text[-500:]}"


def test_generated_requests_get_no_5xx(api_schema: Any) -> None:
    """Every operation of the schema, with requests hypothesis generates from it (valid and not)."""
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 7

    for operation in operations:

        @given(case=operation.as_strategy())
        @QUICK
        def check(case: Any) -> None:
            no_server_error(case.call(timeout=20))

        check()


def test_stateful_links_reach_every_route_of_a_submission(api_schema: Any) -> None:
    """Through the OpenAPI links, a created submission's id reaches its GET, events and cancel routes."""
    links = api_schema.raw_schema["paths"]["/api/submissions"]["post"]["responses"]["202"]["links"]
    assert {link["parameters"]["submission_id"] for link in links.values()} == {"$response.body#/id"}
    machine = api_schema.as_state_machine()

    class Checked(machine):  # type: ignore[misc, valid-type]
        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            no_server_error(response)

    Checked.run(settings=settings(max_examples=15, stateful_step_count=4, deadline=None, database=None))


# ---------------------------------------------------------------- what the schema cannot describe


def post_raw(client: httpx.Client, body: bytes) -> httpx.Response:
    return client.post("/api/submissions", content=body, headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    "body",
    [
        b'{"problem_id": "900", "code": "x = \\"\\ud800\\"", "mode": "submit"}',  # a lone surrogate in the code
        b'{"problem_id": "\\udc00", "code": "x", "mode": "submit"}',
        b'{"problem_id": "900", "code": "x", "mode": "submit", "file_name": "\\ud83d.py"}',
        b'{"problem_id": NaN, "code": "x", "mode": "submit"}',
        b'{"problem_id": "900", "code": "x", "mode": "submit", "extra": Infinity}',
        b'{"problem_id": 1e999, "code": "x", "mode": "submit"}',
        b'{"problem_id": ' + b"9" * 5000 + b', "code": "x", "mode": "submit"}',
        b'{"\\ud800": 1}',
    ],
    ids=["surrogate-code", "surrogate-id", "surrogate-file", "nan", "infinity", "overflow", "huge-int", "key"],
)
def test_surrogates_and_non_finite_numbers_anywhere_are_422(url: str, body: bytes) -> None:
    with httpx.Client(base_url=url) as client:
        response = post_raw(client, body)
    assert response.status_code == 422, response.text[:300]
    assert response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [b"\xff\xfe{not json", b'{"problem_id": 900, "code": "x", "mode": "submit"}', b"[" * 50000, b""],
    ids=["not-utf8", "wrong-type", "deep", "empty"],
)
def test_malformed_bodies_are_4xx(url: str, body: bytes) -> None:
    with httpx.Client(base_url=url) as client:
        response = post_raw(client, body)
    assert 400 <= response.status_code < 500, response.text[:300]
    response.json()  # an answer that is itself JSON


def finished_submission(client: httpx.Client) -> str:
    sid = client.post("/api/submissions", json={"problem_id": "900", "code": CODE, "mode": "submit"}).json()["id"]
    with client.stream("GET", f"/api/submissions/{sid}/events", timeout=20) as response:
        assert "event: done" in response.read().decode()
    return sid


def stream_text(client: httpx.Client, sid: str, last_id: bytes) -> tuple[int, str]:
    with client.stream(
        "GET", f"/api/submissions/{sid}/events", headers=[(b"last-event-id", last_id)], timeout=20
    ) as response:
        return response.status_code, response.read().decode()


@pytest.mark.parametrize(
    "last_id",
    ["²".encode(), "١٢".encode(), b"10" * 15, b"1" + b"0" * 30, b"-1", b"99999999999", b"1_000", b"\xff"],
    ids=["superscript", "arabic-indic", "long", "10^30", "negative", "beyond-last", "underscore", "latin1"],
)
def test_last_event_id_beyond_or_not_ascii_replays_from_the_start(url: str, last_id: bytes) -> None:
    with httpx.Client(base_url=url) as client:
        sid = finished_submission(client)
        status, text = stream_text(client, sid, last_id)
    assert status == 200
    assert "event: collected" in text and text.rstrip().splitlines()[-1].startswith("data:")
    assert "event: done" in text, text[-300:]


def test_reconnecting_after_the_done_event_still_ends_with_it(url: str) -> None:
    with httpx.Client(base_url=url) as client:
        sid = finished_submission(client)
        _, text = stream_text(client, sid, b"")
        ids = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("id:")]
        _, again = stream_text(client, sid, ids[-1].encode())
        _, middle = stream_text(client, sid, ids[0].encode())
    sent = lambda text: [line for line in text.splitlines() if line.startswith("id:")]  # noqa: E731
    assert sent(again) == sent(text)[-1:] and "event: done" in again, again[-300:]
    assert sent(middle) == sent(text)[1:] and "event: done" in middle, middle[-300:]
