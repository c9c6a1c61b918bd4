"""Over HTTPS (as behind a TLS proxy) the OIDC state cookie works inside an LMS's iframe: SameSite=None, Secure,
Partitioned; over plain HTTP it stays Lax. The login redirect carries every parameter the spec names."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from judge import Judge
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from web.app import create_app
from web.config import WebSettings
from web.lti.registry import Platform

ISS = "https://lms.example.edu"


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_the_login_redirect_and_its_state_cookie(tmp_path, scheme):
    judge = Judge(Settings(problems_dir=FIXTURE_PROBLEMS))
    app = create_app(WebSettings(data_dir=tmp_path, workers=1), judge=judge)
    try:
        with TestClient(app, base_url=f"{scheme}://judge.example.edu") as client:
            app.state.lti.registry.add(
                Platform(0, ISS, "cid", f"{ISS}/auth", f"{ISS}/token", f"{ISS}/jwks", deployments=["d1"])
            )
            params = {"iss": ISS, "login_hint": "u1", "lti_message_hint": "m1", "target_link_uri": "x"}
            answer = client.post("/lti/login", data=params, follow_redirects=False)
    finally:
        judge.close()
    assert answer.status_code == 302
    where = urlsplit(answer.headers["location"])
    assert f"{where.scheme}://{where.netloc}{where.path}" == f"{ISS}/auth"
    query = {k: v[0] for k, v in parse_qs(where.query).items()}
    assert query["scope"] == "openid" and query["response_type"] == "id_token"
    assert query["response_mode"] == "form_post" and query["prompt"] == "none"
    assert query["client_id"] == "cid" and query["redirect_uri"] == f"{scheme}://judge.example.edu/lti/launch"
    assert query["login_hint"] == "u1" and query["lti_message_hint"] == "m1"
    assert query["state"].startswith("state-") and len(query["nonce"]) >= 32
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"lti1p3-{query['state']}={query['state']}") and "HttpOnly" in cookie
    if scheme == "https":
        assert "SameSite=none" in cookie and "Secure" in cookie and "Partitioned" in cookie
    else:
        assert "SameSite=lax" in cookie and "Secure" not in cookie
