"""The IMS Security Framework's attacks on a launch, each refused with a 4xx page that says why, nothing stored.

The attacker here holds what a real one could: a token the platform signed for someone else, the platform's
form to replay, or (to forge claims) the platform's own key, used to sign tokens the tool must still refuse."""

from __future__ import annotations

import sqlite3
import time

import httpx
import jwt
import pytest

from tests.lti.conftest import Lms, launch

pytestmark = pytest.mark.slow  # starts the tool and a platform on loopback: the full lane's, not the fast lane's

LTI_TABLES = ("lti_users", "lti_contexts", "lti_links", "lti_passbacks")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    lms = Lms(tmp_path_factory.mktemp("lti-security")).start()
    lms.platform.link("rl-100", "100")
    lms.platform.link("rl-none", None)
    try:
        yield lms
    finally:
        lms.stop()


def stored(lms: Lms) -> dict[str, int]:
    """Rows the tool keeps about courses and people, and launch data (its OIDC states and nonces aside)."""
    with sqlite3.connect(lms.tool.data_dir / "practice.sqlite3") as db:
        counts = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in LTI_TABLES}
        counts["launches"] = db.execute("SELECT count(*) FROM lti_values WHERE key LIKE '%launch%'").fetchone()[0]
        counts["sessions"] = db.execute("SELECT count(*) FROM lti_values WHERE key LIKE 'session-%'").fetchone()[0]
        return counts


def resign(lms: Lms, **changes):
    """A tamper step: the token's claims changed, signed again with the platform's own key and header."""

    def tamper(fields: dict[str, str]) -> dict[str, str]:
        header = jwt.get_unverified_header(fields["id_token"])
        claims = jwt.decode(fields["id_token"], options={"verify_signature": False})
        claims.update(changes)
        key = (lms.platform.folder / "platform.pem").read_text()
        return {**fields, "id_token": jwt.encode(claims, key, algorithm="RS256", headers={"kid": header["kid"]})}

    return tamper


def flip_signature(fields: dict[str, str]) -> dict[str, str]:
    head, body, signature = fields["id_token"].split(".")
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    return {**fields, "id_token": f"{head}.{body}.{flipped}"}


def flip_claim(fields: dict[str, str]) -> dict[str, str]:
    """The payload changed (the learner becomes an instructor) and the platform's signature kept."""
    import base64
    import json

    head, body, signature = fields["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
    ]
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return {**fields, "id_token": f"{head}.{forged}.{signature}"}


NOW = int(time.time())
ATTACKS = {
    "bad signature": (flip_signature, "Signature verification failed"),
    "payload changed under the signature": (flip_claim, "Signature verification failed"),
    "wrong aud": (lambda lms: resign(lms, aud="someone-else"), "Client id not registered"),
    "expired token": (lambda lms: resign(lms, exp=NOW - 600, iat=NOW - 1200), "expired"),
    "unknown issuer": (lambda lms: resign(lms, iss="https://evil.example"), "Registration not found"),
    "unknown deployment": (
        lambda lms: resign(lms, **{"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "other"}),
        "Unable to find deployment",
    ),
    "state not the cookie's": (lambda fields: {**fields, "state": "state-forged"}, "State not found"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_tampered_launch_is_refused_and_nothing_is_stored(setup, attack):
    make, why = ATTACKS[attack]
    tamper = make(setup) if make.__code__.co_varnames[:1] == ("lms",) else make
    before = stored(setup)
    with httpx.Client(timeout=30) as browser:
        answer = launch(browser, setup, "learner-1", "rl-100", tamper=tamper)
        assert 400 <= answer.status_code < 500, answer.text[:300]
        assert "text/html" in answer.headers["content-type"] and why in answer.text
        assert "practice_lti" not in answer.cookies
    assert stored(setup) == before


def test_a_replayed_launch_is_refused_state_and_nonce_alike(setup):
    before = stored(setup)
    with httpx.Client(timeout=30) as browser:
        kept: dict[str, str] = {}

        def keep(fields):
            kept.update(fields)
            return fields

        first = launch(browser, setup, "learner-1", "rl-100", tamper=keep)
        assert first.status_code == 303
        after_first = stored(setup)
        again = browser.post(setup.tool.url + "/lti/launch", data=kept)  # the same form, the same cookie
        assert again.status_code == 401 and "State already used" in again.text
        # a fresh login (a new state and its cookie), then the old token: its nonce was spent
        replay = launch(browser, setup, "learner-1", "rl-100", tamper=lambda f: {**f, "id_token": kept["id_token"]})
        assert replay.status_code == 401 and "Nonce" in replay.text
    assert after_first["sessions"] == before["sessions"] + 1
    assert stored(setup) == after_first  # neither replay stored a thing


def test_a_link_without_an_exercise_is_refused_with_what_to_do(setup):
    before = stored(setup)
    with httpx.Client(timeout=30) as browser:
        answer = launch(browser, setup, "learner-1", "rl-none")
    assert answer.status_code == 400
    assert "exercise=-" in answer.text and "100" in answer.text  # names the known exercises
    assert stored(setup) == before


def test_an_unregistered_platforms_login_is_refused(setup):
    answer = httpx.get(
        setup.tool.url + "/lti/login",
        params={"iss": "https://evil.example", "login_hint": "x"},
        headers={"accept-language": "en"},
        timeout=30,
    )
    assert answer.status_code == 400 and "not registered" in answer.text


def test_a_learner_gets_403_on_the_course_view_and_the_picker(setup):
    with httpx.Client(timeout=30) as browser:
        assert launch(browser, setup, "learner-2", "rl-100").status_code == 303
        for path in ("/lti/course", "/lti/picker", "/lti/course/export.csv"):
            answer = browser.get(setup.tool.url + path)
            assert answer.status_code == 403, path
        forged = browser.post(setup.tool.url + "/lti/course/regrade", data={"csrf": "x"})
        assert forged.status_code == 403
    assert httpx.get(setup.tool.url + "/lti/course", timeout=30).status_code == 401  # no session at all
