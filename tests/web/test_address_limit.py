"""Without a learner cookie this service signed, submissions count per client address (PRACTICE_ADDRESS_QUEUE_LIMIT);
over a unix socket there is no address, hence no address limit; a client that keeps its cookie is counted on its own."""

from __future__ import annotations

import secrets
import threading
import time

import httpx
import pytest
import uvicorn

from tests.web.conftest import free_port
from tests.web.test_limits import GatedJudge, post
from web.app import create_app
from web.config import WebSettings
from web.middleware import learner_of


def serve(tmp_path, **where):
    judge = GatedJudge()
    settings = WebSettings(data_dir=tmp_path, workers=1, queue_limit=50, learner_queue_limit=4, address_queue_limit=2)
    server = uvicorn.Server(uvicorn.Config(create_app(settings, judge=judge), log_level="warning", **where))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    return judge, server, thread


@pytest.fixture()
def tcp(tmp_path):
    judge, server, thread = serve(tmp_path, host="127.0.0.1", port=free_port())
    yield judge, f"http://127.0.0.1:{server.config.port}"
    judge.gate.set()
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture()
def uds(tmp_path):
    path = str(tmp_path / "judge.sock")
    judge, server, thread = serve(tmp_path, uds=path)
    yield judge, path
    judge.gate.set()
    server.should_exit = True
    thread.join(timeout=10)


def cookieless(client: httpx.Client) -> httpx.Response:
    client.cookies.clear()  # a client that drops the cookie: every request is a new learner
    return post(client)


def test_dropping_the_cookie_counts_per_address(tcp):
    judge, url = tcp
    with httpx.Client(base_url=url) as client:
        assert [cookieless(client).status_code for _ in range(3)] == [202, 202, 429]
        refused = cookieless(client)
        assert refused.status_code == 429 and "地址" in refused.json()["detail"]  # zh: the default reader language
    with httpx.Client(base_url=url) as browser:  # loads the page first and keeps its cookie, like a browser
        assert browser.get("/api/problems").status_code == 200 and "practice_learner" in browser.cookies
        assert [post(browser).status_code for _ in range(5)] == [202, 202, 202, 202, 429]  # per learner: 4
    judge.gate.set()


def test_a_unix_socket_peer_has_no_address_limit(uds):
    judge, path = uds
    with httpx.Client(transport=httpx.HTTPTransport(uds=path), base_url="http://judge") as client:
        assert [cookieless(client).status_code for _ in range(4)] == [202] * 4
    judge.gate.set()


def made_up(client: httpx.Client) -> httpx.Response:
    client.cookies.clear()
    client.cookies.set("practice_learner", secrets.token_urlsafe(24))  # a well-formed cookie nobody issued
    return post(client)


def test_a_made_up_cookie_counts_per_address(tcp):
    judge, url = tcp
    with httpx.Client(base_url=url) as client:
        assert [made_up(client).status_code for _ in range(3)] == [202, 202, 429]
    judge.gate.set()


def test_a_signed_cookie_from_before_a_restart_still_names_its_learner(tmp_path):
    issued = learner_of_response(WebSettings(data_dir=tmp_path))
    token, signed = learner_of(issued, WebSettings(data_dir=tmp_path).cookie_key())  # the key is kept on disk
    assert signed and issued.startswith(token + ".")
    other = WebSettings(data_dir=tmp_path / "elsewhere").cookie_key()
    assert learner_of(issued, other) == (token, False)  # another key: the same learner, not trusted to be new
    assert learner_of(token + ".forged", WebSettings(data_dir=tmp_path).cookie_key()) == (token, False)
    assert (tmp_path / "cookie-secret").stat().st_mode & 0o077 == 0


def learner_of_response(settings: WebSettings) -> str:
    from fastapi.testclient import TestClient

    with TestClient(create_app(settings, judge=GatedJudge())) as client:
        return client.get("/api/problems").cookies["practice_learner"]
