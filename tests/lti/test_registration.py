"""`judge lti` against the service's database, a platform added while the server runs, and the key's rotation."""

from __future__ import annotations

import httpx
import pytest

from tests.lti.conftest import Lms, PlatformServer, judge_cli, launch, register
from tests.web.conftest import Server

pytestmark = pytest.mark.slow  # starts the tool and a platform on loopback: the full lane's, not the fast lane's


def test_add_list_remove_and_rotate_from_the_command_line(tmp_path):
    platform = PlatformServer(tmp_path / "p", "http://127.0.0.1:1")  # not started: only its URLs are registered
    added = register(tmp_path, platform)
    assert added.returncode == 0 and "deployments ['deployment-1']" in added.stdout
    listed = judge_cli(tmp_path, "lti", "platforms")
    assert platform.url in listed.stdout and "client_id=judge-client" in listed.stdout
    bad = judge_cli(
        tmp_path,
        "lti",
        "add-platform",
        "--issuer",
        "x",
        "--client-id",
        "c",
        "--deployment-id",
        "d",
        "--auth-login-url",
        "ftp://x",
        "--auth-token-url",
        "https://t",
        "--key-set-url",
        "https://k",
    )
    assert bad.returncode == 2 and "not an http(s) URL" in bad.stdout
    assert judge_cli(tmp_path, "lti", "remove-platform").returncode == 2  # which one?
    gone = judge_cli(tmp_path, "lti", "remove-platform", "--issuer", platform.url)
    assert gone.returncode == 0 and "removed platform" in gone.stdout
    assert "no platform registered" in judge_cli(tmp_path, "lti", "platforms").stdout
    rotated = judge_cli(tmp_path, "lti", "rotate-key")
    assert rotated.returncode == 0 and "new signing key" in rotated.stdout


def test_a_platform_added_while_serving_launches_at_once_and_a_rotated_key_stays_served(tmp_path):
    lms = Lms(tmp_path)
    lms.tool.start()  # no platform yet
    try:
        lms.platform.start()
        lms.platform.link("rl-100", "100")
        with httpx.Client(timeout=60) as browser:
            refused = browser.get(lms.tool.url + "/lti/login", params={"iss": lms.platform.url, "login_hint": "x"})
            assert refused.status_code == 400
            assert register(lms.tool.data_dir, lms.platform).returncode == 0  # no restart
            assert launch(browser, lms, "learner-1", "rl-100").status_code == 303
        before = httpx.get(lms.tool.url + "/lti/jwks").json()["keys"]
        assert len(before) == 1 and "d" not in before[0]  # public parts only
        assert judge_cli(lms.tool.data_dir, "lti", "rotate-key").returncode == 0
        after = httpx.get(lms.tool.url + "/lti/jwks").json()["keys"]
        assert len(after) == 2 and before[0]["kid"] in {k["kid"] for k in after}
    finally:
        lms.stop()


def test_registration_documents_name_the_tools_urls(tmp_path):
    server = Server(tmp_path).start()
    try:
        canvas = httpx.get(server.url + "/lti/config/canvas.json").json()
        assert canvas["oidc_initiation_url"] == server.url + "/lti/login"
        assert canvas["target_link_uri"] == server.url + "/lti/launch"
        assert canvas["public_jwk_url"] == server.url + "/lti/jwks"
        assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in canvas["scopes"]
        moodle = httpx.get(server.url + "/lti/config/moodle").json()
        assert moodle["Initiate login URL"] == server.url + "/lti/login"
        assert moodle["Redirection URI(s)"] == server.url + "/lti/launch"
    finally:
        server.stop()


def test_dynamic_registration_registers_both_sides_then_launches(tmp_path):
    lms = Lms(tmp_path)
    lms.tool.start()
    try:
        lms.platform.start()
        lms.platform.link("rl-100", "100")
        for query in ({}, {"openid_configuration": "ftp://x"}, {"openid_configuration": "http://127.0.0.1:1/x"}):
            refused = httpx.get(lms.tool.url + "/lti/register", params=query, timeout=30)
            assert refused.status_code == 400 and "text/html" in refused.headers["content-type"], query
        config = lms.platform.url + "/.well-known/openid-configuration"
        wrong_token = {"openid_configuration": config, "registration_token": "guess"}
        assert httpx.get(lms.tool.url + "/lti/register", params=wrong_token, timeout=30).status_code == 400
        done = httpx.get(
            lms.tool.url + "/lti/register",
            params={"openid_configuration": config, "registration_token": "reg-token"},
            headers={"accept-language": "en"},
            timeout=30,
        )
        assert done.status_code == 200 and "registered with" in done.text and "/lti/static/close.js" in done.text
        asked = lms.platform.read("tool_registration.json", {})
        assert asked["initiate_login_uri"] == lms.tool.url + "/lti/login"
        assert asked["jwks_uri"] == lms.tool.url + "/lti/jwks"
        listed = judge_cli(lms.tool.data_dir, "lti", "platforms").stdout
        assert "client_id=dyn-client" in listed and "deployments=dyn-deployment" in listed
        with httpx.Client(timeout=60) as browser:
            assert launch(browser, lms, "learner-1", "rl-100").headers["location"] == "/problems/100"
    finally:
        lms.stop()
