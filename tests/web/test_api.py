"""The JSON and server-sent-event contract, against a real uvicorn (httpx's in-process transport buffers SSE)."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from tests.web.helpers import REFERENCE, SYNTAX_ERROR, WRONG, events, submit

pytestmark = pytest.mark.slow


def test_problem_list_has_the_contract_fields(client):
    problems = client.get("/api/problems").json()
    assert {"100", "101"} <= {p["id"] for p in problems}
    first = problems[0]
    assert set(first) == {"id", "title", "difficulty", "chapter", "chapter_title", "device", "tags", "needs", "missing"}
    assert set(first["title"]) == {"zh", "en"}
    # the chapter by its title (problems/chapters.toml), not its slug, with the handbook's section where set
    assert first["chapter"] == "dispatcher-custom-ops"
    assert first["chapter_title"] == {
        "zh": "分发器与自定义算子",
        "en": "The dispatcher and custom operators",
        "url": "",
    }


def test_problem_detail_has_statement_starter_limits_public_tests_and_probes(client):
    detail = client.get("/api/problems/100").json()
    for lang in ("zh", "en"):
        assert detail["statement"][lang]["markdown"].startswith("#")
        assert '<pre class="highlight">' in detail["statement"][lang]["html"]  # code highlighted by Pygments
        assert "style=" not in detail["statement"][lang]["html"]  # the CSP forbids inline styles
    assert "custom_op" in detail["starter"]
    assert detail["limits"]["source_kib"] > 0
    assert "def test_" in detail["public_tests"] and "def " in detail["probes"]


def test_reference_run_streams_queued_cases_and_done(client):
    sid = submit(client, REFERENCE, "run")
    stream = events(client, sid)
    kinds = [kind for _, kind, _ in stream]
    assert kinds[0] == "queued" and "position" in stream[0][2]
    assert kinds[-1] == "done"
    cases = [data for _, kind, data in stream if kind == "case"]
    assert cases and all(c["outcome"] == "passed" for c in cases)
    assert len(cases) == stream[-1][2]["report"]["total"]
    assert stream[-1][2]["report"]["verdict"] == "accepted"
    ids = [int(i) for i, _, _ in stream]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)

    # A late client gets the whole story again; one that reconnects with Last-Event-ID only what came after.
    assert [kind for _, kind, _ in events(client, sid)] == kinds
    middle = stream[len(stream) // 2][0]
    assert events(client, sid, last_id=middle) == [e for e in stream if int(e[0]) > int(middle)]

    body = client.get(f"/api/submissions/{sid}").json()
    assert body["status"] == "done" and body["mode"] == "run" and body["finished_at"]
    assert body["report"]["verdict"] == "accepted" and body["code"] == REFERENCE


def test_wrong_answer_is_reprojected_per_language_without_judging_again(client):
    sid = submit(client, WRONG, "run")
    done = events(client, sid, lang="en")[-1][2]
    assert done["report"]["verdict"] == "wrong_answer" and done["report"]["lang"] == "en"
    zh = client.get(f"/api/submissions/{sid}?lang=zh").json()["report"]
    en = client.get(f"/api/submissions/{sid}?lang=en").json()["report"]
    assert zh["judged_at"] == en["judged_at"]  # the same judgement, projected twice
    failing = [(a["message"], b["message"]) for a, b in zip(zh["cases"], en["cases"]) if a["outcome"] != "passed"]
    assert failing and all(m_zh and m_en and m_zh != m_en for m_zh, m_en in failing)
    # Without ?lang: the page's cookie, then Accept-Language, then zh.
    assert (
        client.get(f"/api/submissions/{sid}", headers={"Accept-Language": "en-US,en;q=0.9"}).json()["report"]["lang"]
        == "en"
    )
    client.cookies.set("practice_lang", "en")
    assert client.get(f"/api/submissions/{sid}", headers={"Accept-Language": "zh-CN"}).json()["report"]["lang"] == "en"
    client.cookies.delete("practice_lang")
    assert client.get(f"/api/submissions/{sid}").json()["report"]["lang"] == "zh"


def test_import_error_names_its_line(client):
    sid = submit(client, SYNTAX_ERROR, "run")
    done = events(client, sid)[-1][2]
    assert done["report"]["verdict"] == "compile_error"
    line = next(
        n
        for n, text in enumerate(SYNTAX_ERROR.splitlines(), 1)
        if text.startswith("def ") and not text.rstrip().endswith(":")
    )
    assert done["error_line"] == line


def test_history_belongs_to_the_learner_cookie(server, client):
    import httpx

    sid = submit(client, REFERENCE, "run")
    events(client, sid)
    mine = client.get("/api/submissions", params={"problem_id": "100", "limit": 5}).json()
    assert mine[0]["id"] == sid and mine[0]["verdict"] == "accepted"
    with httpx.Client(base_url=server.url) as stranger:
        assert stranger.get("/api/submissions", params={"problem_id": "100"}).json() == []
        assert stranger.get(f"/api/submissions/{sid}").status_code == 200  # the id works as a share link


@pytest.mark.parametrize(
    "body, status",
    [
        ({"problem_id": "100", "code": "x = 1\n", "mode": "fast"}, 422),
        ({"problem_id": "100", "code": "x = 1\n"}, 422),
        ({"problem_id": "100", "code": 5, "mode": "run"}, 422),
        ({"problem_id": "100", "code": "   \n", "mode": "run"}, 422),
        ({"problem_id": "100", "code": "x = 1\x00", "mode": "run"}, 422),
        ({"problem_id": "999", "code": "x = 1\n", "mode": "run"}, 404),
        ({"problem_id": "../../etc", "code": "x = 1\n", "mode": "run"}, 404),
        ({"problem_id": "100", "code": "#" * (300 << 10), "mode": "run"}, 413),
    ],
    ids=["bad-mode", "no-mode", "code-not-str", "empty", "nul", "unknown-problem", "path-as-id", "over-source-limit"],
)
def test_bad_submissions_get_their_status(client, body, status):
    response = client.post("/api/submissions", json=body)
    assert response.status_code == status, response.text
    assert response.json()["detail"]


def test_malformed_and_oversized_bodies(client):
    assert (
        client.post("/api/submissions", content=b"{not json", headers={"content-type": "application/json"}).status_code
        == 422
    )
    assert (
        client.post("/api/submissions", content=b"\xff\xfe", headers={"content-type": "application/json"}).status_code
        == 422
    )
    assert client.post("/api/submissions", content=b"x" * (3 << 20)).status_code == 413
    lone_surrogate = rb'{"problem_id": "100", "code": "x = \ud800", "mode": "run"}'
    assert (
        client.post(
            "/api/submissions", content=lone_surrogate, headers={"content-type": "application/json"}
        ).status_code
        == 422
    )


def _many_keys(n):
    body = {"problem_id": "100", "code": "x = 1\n", "mode": "run"}
    body.update({f"k{i}": 0 for i in range(n)})
    return json.dumps(body).encode()


def test_a_body_with_many_keys_is_refused_before_validation(client):
    response = client.post("/api/submissions", content=_many_keys(65), headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "keys (at most 64)" in response.json()["detail"]  # the middleware's words, not pydantic's errors
    # the flood of a real report (2 MB, under the size cap): refused by its count of separators, before any parse
    response = client.post(
        "/api/submissions", content=_many_keys(150_000), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422 and "more than 4096 values" in response.json()["detail"]
    wide = json.dumps({"problem_id": "100", "code": "x", "mode": "run", "k": [0] * 10_000}).encode()
    response = client.post("/api/submissions", content=wide, headers={"content-type": "application/json"})
    assert response.status_code == 422 and "more than 4096 values" in response.json()["detail"]


def test_many_key_floods_leave_other_clients_served(server):
    """Four clients each send a 2 MB body of 150,000 keys at once; the latency of another client's GET, measured in
    the same run against its idle latency, stays within a bound that the unbounded parse and validation broke
    (0.94 s against 0.03 s idle, before the refusal moved ahead of validation; 0.16 s after)."""
    under, idle_s = _latency_under_flood(server, _many_keys(150_000), senders=4)
    assert min(under) <= 5 * idle_s + 0.2, (under, idle_s)


def _latency_under_flood(server, body: bytes, senders: int) -> tuple[list[float], float]:
    """Another client's GET latency while `senders` clients post `body` at once (each refused with 422), in three
    trials, and its idle latency (the median of five) measured just before in the same run."""
    with httpx.Client(base_url=server.url, timeout=60) as c:
        idle = []
        for _ in range(5):
            started = time.perf_counter()
            assert c.get("/api/problems/100").status_code == 200
            idle.append(time.perf_counter() - started)
    idle_s = sorted(idle)[len(idle) // 2]

    def send(codes):
        with httpx.Client(base_url=server.url, timeout=60) as c:
            codes.append(c.post("/api/submissions", content=body, headers={"content-type": "application/json"}))

    under = []
    for _ in range(3):  # the best of three: one slow trial on a busy host is noise, three are not
        codes: list = []
        threads = [threading.Thread(target=send, args=(codes,)) for _ in range(senders)]
        for t in threads:
            t.start()
        with httpx.Client(base_url=server.url, timeout=60) as c:
            started = time.perf_counter()
            assert c.get("/api/problems/100").status_code == 200
            under.append(time.perf_counter() - started)
        for t in threads:
            t.join()
        assert [r.status_code for r in codes] == [422] * senders
    return under, idle_s


def test_a_hostile_body_is_counted_without_being_parsed(monkeypatch):
    """A body of 700,000 empty objects (2 MiB) is refused from its separators alone: the parse that would build
    the objects never runs. Strings are cut out first, so commas inside a submission's code count for nothing."""
    from web import middleware

    def no_parse(*args, **kwargs):
        raise AssertionError("the body was parsed")

    monkeypatch.setattr(middleware.json, "loads", no_parse)
    hostile = b"[" + b",".join([b"{}"] * 700_000) + b"]"
    assert (
        middleware.unencodable(hostile) == "the body holds more than 4096 values; no request of this API has that many"
    )
    code = json.dumps({"problem_id": "100", "code": "x = [" + "1," * 200_000 + "]", "mode": "run"}).encode()
    assert not middleware.too_many_values(code)  # 200,000 commas, all inside one string
    assert middleware.too_many_values(json.dumps({"k": [0] * 20_000}).encode())


def test_hostile_object_floods_leave_other_clients_served(server):
    """Eight clients each send a 2 MiB body of 690,000 empty objects at once; the latency of another client's GET,
    against its idle latency in the same run, stays within a bound that parsing them on the event loop broke
    (3.15 s against 0.12 s, issue 34)."""
    hostile = b"[" + b",".join([b"{}"] * 690_000) + b"]"  # just under the 2 MiB cap
    under, idle_s = _latency_under_flood(server, hostile, senders=8)
    assert min(under) <= 5 * idle_s + 0.2, (under, idle_s)


def test_chunked_body_without_length_is_capped_while_it_streams(client):
    def chunks():  # no Content-Length: httpx sends it chunked, so only counting the stream can refuse it
        for _ in range(64):
            yield b"x" * (64 << 10)

    response = client.post("/api/submissions", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and "over" in response.json()["detail"]


def test_unknown_things_are_404(client):
    assert client.get("/api/problems/999").status_code == 404
    assert client.get("/api/submissions/nope").status_code == 404
    assert client.get("/api/submissions/nope/events").status_code == 404
    assert client.get("/problems/999").status_code == 404
    assert client.get("/api/submissions/x", params={"lang": "fr"}).status_code in (404, 422)
    assert client.get("/api/submissions", params={"limit": "many"}).status_code == 422
    assert client.get("/api/submissions/nope/events", headers={"Last-Event-ID": "x"}).status_code == 404


def test_security_headers_and_learner_cookie(client):
    page = client.get("/problems/100")
    assert page.status_code == 200 and "<script src=" in page.text and "<script>" not in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    cookie = page.headers["set-cookie"]
    assert cookie.startswith("practice_learner=") and "HttpOnly" in cookie
    assert client.get("/api/problems").headers["x-content-type-options"] == "nosniff"
    assert client.get("/openapi.json").json()["paths"]["/api/submissions"]["post"]


def test_a_bom_and_crlf_file_is_read_as_python_reads_it(client):
    # What a Windows editor saves, pasted or uploaded as text: a byte-order mark and CRLF line ends.
    sid = submit(client, "\ufeff" + REFERENCE.replace("\n", "\r\n"))
    done = [data for _, kind, data in events(client, sid, lang="en") if kind == "done"]
    assert done and client.get(f"/api/submissions/{sid}").json()["report"]["verdict"] == "accepted"
