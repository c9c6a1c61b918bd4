"""PyLTI1p3 for FastAPI: its request, cookie, session, redirect and launch-data storage seams, over our database.

PyLTI1p3 ships adapters for Django and Flask only; these are the same small classes for a Starlette request.
Where the library is lax (it reuses a nonce, accepts a state twice, skips `aud`, has no clock leeway, keeps
access tokens forever and sends HTTP requests with no timeout), the subclasses here tighten it."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any, Literal

import jwt
import requests
from fastapi.responses import RedirectResponse, Response
from pylti1p3.cookie import CookieService
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request as LtiRequestBase
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService
from pylti1p3.tool_config.abstract import ToolConfAbstract

from web.lti.db import LtiDb
from web.lti.registry import Platform, Registry

LEEWAY_S = 60  # clock skew allowed on exp and iat (the Security Framework asks for "a small leeway")
HTTP_TIMEOUT_S = 10  # a platform that hangs must not hold a launch or the passback loop
STATE_LIFETIME_S = 300  # between /lti/login and /lti/launch
LAUNCH_LIFETIME_S = 12 * 3600  # how long a launch's data (deep-linking settings, service claims) is kept


class TimeoutSession(requests.Session):
    """requests with a default timeout: PyLTI1p3 passes none, and a silent platform would block forever."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", HTTP_TIMEOUT_S)
        return super().request(method, url, *args, **kwargs)


def http_session() -> requests.Session:
    session = TimeoutSession()
    session.headers["User-Agent"] = "practice-judge-lti (PyLTI1p3)"
    return session


class FastAPIRequest(LtiRequestBase):
    """A Starlette request's parameters (query and the form already read), cookies and scheme."""

    def __init__(self, params: Mapping[str, str], cookies: Mapping[str, str], secure: bool):
        self.params, self.cookies, self.secure = dict(params), dict(cookies), secure

    @property
    def session(self) -> None:
        return None

    def is_secure(self) -> bool:
        return self.secure

    def get_param(self, key: str) -> str:
        return self.params.get(key, "")

    def get_cookie(self, key: str) -> str | None:
        return self.cookies.get(key)


def set_cookie(response: Response, key: str, value: str, max_age: int | None, secure: bool) -> None:
    """Inside an LMS's iframe a cookie needs SameSite=None, which browsers take only with Secure (so: over
    HTTPS), and Partitioned (CHIPS) keeps it where third-party cookies are blocked. Over plain HTTP (a
    developer's loopback) Lax is the best there is: the LMS must open the tool in a new window, or be same-site.
    (Starlette writes Partitioned only on Python 3.14: the attribute is appended here.)"""
    samesite: Literal["none", "lax"] = "none" if secure else "lax"
    response.set_cookie(key, value, max_age=max_age, path="/", secure=secure, httponly=True, samesite=samesite)
    if secure:
        name, last = response.raw_headers[-1]
        response.raw_headers[-1] = (name, last + b"; Partitioned")


class CookieJar(CookieService):
    """PyLTI1p3's cookies: read from the request, written onto the response by apply()."""

    def __init__(self, request: FastAPIRequest):
        self._request = request
        self._to_set: dict[str, tuple[str, int | None]] = {}

    def _key(self, name: str) -> str:
        return f"{self._cookie_prefix}-{name}"

    def get_cookie(self, name: str) -> str | None:
        return self._request.get_cookie(self._key(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self._to_set[self._key(name)] = (str(value), exp)

    def apply(self, response: Response) -> Response:
        for key, (value, exp) in self._to_set.items():
            set_cookie(response, key, value, exp, self._request.is_secure())
        return response


class DbStorage(LaunchDataStorage[Any]):
    """Launch data, states and nonces in the service's database (so any web process may take the launch).

    No session-id cookie: the OIDC state cookie and the one-use state kept here already bind the browser, and
    one more cookie is one more to lose inside a third-party iframe."""

    _prefix = "lti1p3-"

    def __init__(self, db: LtiDb):
        super().__init__()
        self.db = db

    def get_session_cookie_name(self) -> str | None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return self.db.get(self._prepare_key(key))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        self.db.put(self._prepare_key(key), value, exp or LAUNCH_LIFETIME_S)

    def check_value(self, key: str) -> bool:
        return self.db.get(self._prepare_key(key)) is not None

    def take_value(self, key: str) -> bool:
        return self.db.take(self._prepare_key(key))


class OnceSessionService(SessionService):
    """Nonces are used once (PyLTI1p3 only checks that one exists, so a replayed id_token passed), and a state
    is accepted by its cookie only, never by the hash of a token already launched."""

    def __init__(self, request: FastAPIRequest, storage: DbStorage):
        super().__init__(request)
        self.storage = storage
        self.set_data_storage(storage)
        self._launch_data_lifetime = LAUNCH_LIFETIME_S

    def take_nonce(self, nonce: str) -> bool:
        return self.storage.take_value(self._get_key("nonce", nonce))

    def check_state_is_valid(self, state: str, id_token_hash: str) -> bool:
        return False

    def set_state_valid(self, state: str, id_token_hash: str) -> None:
        return None

    def save_state(self, state: str) -> None:
        self.storage.set_value(self._get_key("issued", state), True, STATE_LIFETIME_S)

    def take_state(self, state: str) -> bool:
        return self.storage.take_value(self._get_key("issued", state))


def registration_of(platform: Platform, registry: Registry) -> Registration:
    key = registry.signing_key()
    registration = (
        Registration()
        .set_issuer(platform.issuer)
        .set_client_id(platform.client_id)
        .set_auth_login_url(platform.auth_login_url)
        .set_auth_token_url(platform.auth_token_url)
        .set_key_set_url(platform.key_set_url)
        .set_tool_private_key(key.private_pem)
        .set_tool_public_key(key.public_pem)
    )
    if platform.auth_audience:
        registration.set_auth_audience(platform.auth_audience)
    return registration


class ToolConf(ToolConfAbstract[FastAPIRequest]):
    """The platforms in the database, read at each call: one added by `judge lti add-platform` works at once."""

    def __init__(self, registry: Registry):
        self.registry = registry

    def check_iss_has_one_client(self, iss: str) -> bool:
        return self.registry.clients_of(iss) <= 1

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return self.registry.clients_of(iss) > 1

    def _registration(self, platform: Platform | None) -> Registration | None:
        return registration_of(platform, self.registry) if platform is not None else None

    # PyLTI1p3 types these as always finding one, and tests the answer for None: an unknown issuer is refused.
    def find_registration_by_issuer(  # type: ignore[override]
        self, iss: str, *args: Any, **kwargs: Any
    ) -> Registration | None:
        return self._registration(self.registry.find(iss))

    def find_registration_by_params(  # type: ignore[override]
        self, iss: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Registration | None:
        return self._registration(self.registry.find(iss, client_id))

    def _deployment(self, platform: Platform | None, deployment_id: str) -> Deployment | None:
        if platform is None or deployment_id not in platform.deployments:
            return None
        return Deployment().set_deployment_id(deployment_id)

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self._deployment(self.registry.find(iss), deployment_id)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        return self._deployment(self.registry.find(iss, client_id), deployment_id)


class FastAPIRedirect(Redirect[Response]):
    def __init__(self, location: str, cookies: CookieJar):
        self._location, self._cookies = location, cookies

    def do_redirect(self) -> Response:
        return self._cookies.apply(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:
        return self.do_redirect()  # our CSP runs no inline script: a plain redirect does the same

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class FastAPIOIDCLogin(OIDCLogin[FastAPIRequest, ToolConf, OnceSessionService, CookieJar, Response]):
    """The third-party-initiated login: remembers each state it issues, once, for STATE_LIFETIME_S."""

    def _get_uuid(self) -> str:
        self._issued = secrets.token_urlsafe(24)
        return self._issued

    def _prepare_redirect_url(self, launch_url: str) -> str:
        url = str(super()._prepare_redirect_url(launch_url))
        self._session_service.save_state("state-" + self._issued)
        return url

    def get_redirect(self, url: str) -> FastAPIRedirect:
        return FastAPIRedirect(url, self._cookie_service)


class FastAPIMessageLaunch(MessageLaunch[FastAPIRequest, ToolConf, OnceSessionService, CookieJar]):
    """A launch, validated in the Security Framework's order; the state and the nonce are spent only once every
    other check has passed (so a forged request cannot burn a real learner's), and nothing is stored before."""

    extra_check: Any = None  # callable(jwt_body) raising LtiException: the tool's own claims (the exercise)

    def _get_request_param(self, key: str) -> str:
        return str(self._request.get_param(key))

    def validate(self) -> FastAPIMessageLaunch:
        if self._restored:
            raise LtiException("Can't validate restored launch")
        self._validated = True
        try:
            self.validate_state().validate_jwt_format().validate_registration().validate_jwt_signature()
            self.validate_deployment().validate_message()
            if not self._jwt.get("body", {}).get("nonce"):
                raise LtiException('"nonce" is empty')
            if self.extra_check is not None:
                self.extra_check(self._jwt["body"])
            state = self._get_request_param("state")
            if not self._session_service.take_state(state):
                raise LtiException("State already used or expired")
            if not self._session_service.take_nonce(self._jwt["body"]["nonce"]):
                raise LtiException("Invalid Nonce: already used or never issued")
            self.save_launch_data()
        except Exception:
            self._validated = False
            raise
        return self

    def validate_jwt_signature(self) -> FastAPIMessageLaunch:
        """PyJWT checks the signature with the platform's key, and aud, exp and iat with LEEWAY_S of skew."""
        assert self._registration is not None
        public_key, key_alg = self.get_public_key()
        try:
            jwt.decode(
                self._get_id_token(),
                public_key,
                algorithms=[key_alg],
                audience=self._registration.get_client_id(),
                leeway=LEEWAY_S,
                options={"require": ["exp", "iat", "aud", "iss", "sub"]},
            )
        except jwt.InvalidTokenError as exc:
            raise LtiException(f"Can't decode id_token: {exc}") from exc
        return self


class TimedConnector(ServiceConnector):
    """PyLTI1p3's connector, with each access token kept only until its expires_in runs out (it kept them
    forever), and dropped when the platform answers 401 to it."""

    MARGIN_S = 30

    def __init__(self, registration: Registration, session: requests.Session | None = None):
        super().__init__(registration, session or http_session())
        self._expiry: dict[str, float] = {}
        self._requests_session.hooks["response"].append(self._note_expiry)
        self._pending_expiry: float | None = None

    def _note_expiry(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if response.request.url == self._registration.get_auth_token_url() and response.ok:
            try:
                lifetime = float(response.json().get("expires_in", 3600))
            except ValueError:
                lifetime = 3600
            self._pending_expiry = time.monotonic() + lifetime - self.MARGIN_S

    def get_access_token(self, scopes: Any) -> str:
        key = "|".join(sorted(scopes))
        if key in self._expiry and time.monotonic() >= self._expiry[key]:
            self._access_tokens.clear()
            self._expiry.clear()
        token = str(super().get_access_token(scopes))
        if self._pending_expiry is not None:
            self._expiry[key], self._pending_expiry = self._pending_expiry, None
        return token

    def forget_tokens(self) -> None:
        self._access_tokens.clear()
        self._expiry.clear()
