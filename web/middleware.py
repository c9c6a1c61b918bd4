"""Per-request plumbing: the anonymous learner cookie, security headers, and a cap on request bodies."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
import secrets
from http.cookies import SimpleCookie

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LEARNER_COOKIE = "practice_learner"
LANG_COOKIE = "practice_lang"  # set by the page's zh/en switch (readable by the page's script)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
# /docs is Swagger UI from our own static files; FastAPI's page starts it with an inline script, so that page
# alone may run one (it shows nothing a learner wrote).
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
YEAR = 365 * 24 * 3600
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def sign(token: str, key: bytes) -> str:
    """The cookie's value: the learner's token and an HMAC of it, so only this service can issue one."""
    mac = hmac.new(key, token.encode(), hashlib.sha256).digest()
    return f"{token}.{base64.urlsafe_b64encode(mac[:18]).decode()}"


def learner_of(value: str, key: bytes) -> tuple[str | None, bool]:
    """(the token a cookie names, whether this service signed it). A bare token (a cookie from before signing,
    or one a client made up) still names its learner, so their history stays theirs, but it is not trusted to
    tell learners apart: its submissions count per address until the signed cookie sent back is kept."""
    token, _, mac = value.partition(".")
    if not TOKEN.fullmatch(token):
        return None, False
    return token, bool(mac) and hmac.compare_digest(sign(token, key), value)


def cookies(scope: Scope) -> dict[str, str]:
    jar = SimpleCookie()
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed cookie header is ignored, never a 500
                pass
    return {key: morsel.value for key, morsel in jar.items()}


BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def read_body(receive: Receive) -> bytes:
    """The whole request body (capped by the receive it reads from)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """receive() for the app: the body read already, then what the server sends next (a disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


class NotJsonNumber(ValueError):
    """NaN, Infinity, or a number too large for a float (1e999 reads as inf)."""


class TooManyValues(ValueError):
    """An object with more keys, or a body with more values in all, than any request of this API holds."""


# No request body of this API has more than a handful of keys (a submission has four): a body of one object
# with 150,000 extra keys took the event loop 1.5 s to refuse (each key parsed twice, then validated into an
# error of its own). The parse below stops at the first object over MAX_KEYS, and the walk after it at
# MAX_VALUES, so a refusal costs one C-speed parse of a body under the size cap, whatever it holds.
MAX_KEYS = 64
MAX_VALUES = 4096


def _bounded_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    if len(pairs) > MAX_KEYS:
        raise TooManyValues(f"an object with {len(pairs)} keys (at most {MAX_KEYS})")
    return dict(pairs)


def _refuse_constant(name: str) -> float:
    raise NotJsonNumber(f"{name}, which is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotJsonNumber(f"{text[:20]}, a number out of range")
    return value


# A JSON string, unrolled so that the regex engine runs through it in one pass: what lies outside strings is JSON's
# punctuation, numbers and literals, where each value but the first follows a "," or opens a "[" or "{".
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def too_many_values(body: bytes) -> bool:
    """Whether a body holds more than MAX_VALUES values, told without parsing it: strings cut out and the separators
    counted, at C speed, in time proportional to the body's size (about 2 ms for 2 MiB). A body of 700,000 empty
    objects once took the event loop 0.3 s to parse before it was counted, and eight at once held every other
    client for seconds. In JSON every comma, colon and opening bracket belongs to a value, and none holds more than
    2.5 of them to a value, so more than 3 per allowed value means more values than allowed, whatever the body."""
    outside = _STRING.sub(b"", body)
    separators = outside.count(b",") + outside.count(b":") + outside.count(b"[") + outside.count(b"{")
    return separators > 3 * MAX_VALUES


def unencodable(body: bytes) -> str | None:
    """Why a JSON body cannot be taken (a lone surrogate or a non-finite number anywhere in it, an object of more
    than MAX_KEYS keys, more than MAX_VALUES values in all), or None.

    Python's json reads `"\\ud800"` and `NaN` without complaint, and neither can be stored or written back
    out as JSON: refused here, with 422, before any route or error message handles them. A body that is not
    JSON at all is left to the route (FastAPI answers 422 for it)."""
    if too_many_values(body):
        return f"the body holds more than {MAX_VALUES} values; no request of this API has that many"
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite, object_pairs_hook=_bounded_object)
    except NotJsonNumber as exc:
        return f"the body holds {exc}"
    except TooManyValues as exc:
        return f"the body holds {exc}; no request of this API has that many"
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    except ValueError:  # an integer of more digits than int() reads
        return "the body holds a number too long to read"
    except RecursionError:
        return "the body is nested too deeply"
    stack, seen = [data], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return f"the body holds more than {MAX_VALUES} values; no request of this API has that many"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "the body holds a lone surrogate (\\ud800-\\udfff), which is not text"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class WebMiddleware:
    def __init__(self, app: ASGIApp, max_body: int, cookie_key: bytes):
        self.app, self.max_body, self.key = app, max_body, cookie_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        jar = cookies(scope)
        token, signed = learner_of(jar.get(LEARNER_COOKIE, ""), self.key)
        learner = token or secrets.token_urlsafe(24)
        fresh = not signed
        scope.setdefault("state", {})["learner"] = learner
        # Without a cookie this service signed, a client could be a new learner at every request (no cookie, or
        # one it made up): its submissions count per client address instead. scope["client"] is the peer, or the
        # forwarded address from a proxy uvicorn trusts (--forwarded-allow-ips); a unix-socket peer has none,
        # hence no address limit.
        client = scope.get("client")
        scope["state"]["address"] = str(client[0])[:64] if fresh and client and client[0] else None
        scope["state"]["lang_cookie"] = jar.get(LANG_COOKIE)
        if self._too_large(scope):
            return await self._reject(send, 413, f"the request body is over {self.max_body} bytes")
        receive = self._capped(receive)
        if scope.get("method") in BODY_METHODS:
            try:
                body = await read_body(receive)
            except HTTPException as exc:
                return await self._reject(send, exc.status_code, str(exc.detail))
            problem = unencodable(body)
            if problem is not None:
                return await self._reject(send, 422, problem)
            receive = replay(body, receive)
        docs = scope["path"] == "/docs"
        state = scope["state"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                # An LTI session's LMS may frame the page (web/lti sets the origins); no one else may.
                frames = state.get("frame_ancestors")
                policy = DOCS_CSP if docs else CSP
                if frames:
                    policy = policy.replace("frame-ancestors 'none'", f"frame-ancestors 'self' {frames}")
                if state.get("form_action"):  # the deep-linking response posts back to its LMS
                    policy = policy.replace("form-action 'self'", f"form-action 'self' {state['form_action']}")
                headers += [
                    (b"content-security-policy", policy.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                if not frames:
                    headers.append((b"x-frame-options", b"DENY"))
                if fresh:
                    value = sign(learner, self.key)
                    cookie = f"{LEARNER_COOKIE}={value}; Path=/; Max-Age={YEAR}; HttpOnly; SameSite=Lax"
                    headers.append((b"set-cookie", cookie.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _capped(self, receive: Receive) -> Receive:
        """receive() that counts body bytes as they stream in: a chunked body has no Content-Length to check."""
        seen = 0

        async def capped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:  # raised inside the route: the app's handler answers 413
                    raise HTTPException(413, f"the request body is over {self.max_body} bytes")
            return message

        return capped

    def _too_large(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                return not value.isdigit() or int(value) > self.max_body
        return False

    async def _reject(self, send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"x-content-type-options", b"nosniff"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
