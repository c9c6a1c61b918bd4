"""The LTI tool's state in a running service: its database, platforms, keys, service connectors and sessions."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from pylti1p3.names_roles import NamesRolesProvisioningService

from web.judgelike import JudgeLike
from web.lti.adapter import TimedConnector, ToolConf, registration_of
from web.lti.db import LtiDb
from web.lti.registry import Registry
from web.lti.settings import LtiSettings

SESSION_COOKIE = "practice_lti"
SESSION_LIFETIME_S = 12 * 3600
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


@dataclass
class LtiSession:
    """Who a browser is after a launch: one person in one course (and the link they came by, if any)."""

    learner: str
    issuer: str
    client_id: str
    deployment_id: str
    context_pk: int
    sub: str
    name: str
    instructor: bool
    launch_id: str
    link_id: int | None = None
    exercise: str | None = None
    origins: list[str] = field(default_factory=list)


class LtiTool:
    def __init__(self, db: LtiDb, judge: JudgeLike, key: bytes, settings: LtiSettings | None = None):
        self.db, self.judge, self.key = db, judge, key
        self.settings = settings or LtiSettings()
        self.registry = Registry(db)
        self.conf = ToolConf(self.registry)
        self._connectors: dict[tuple[str, ...], TimedConnector] = {}
        self._lock = threading.Lock()

    def learner_id(self, issuer: str, deployment_id: str, context_id: str, sub: str) -> str:
        """One person in one course, keyed by this service's secret: no one can name it from the claims alone (a
        Moodle `sub` is a small number), so no made-up learner cookie reaches an LTI learner's submissions."""
        message = "\0".join((issuer, deployment_id, context_id, sub)).encode()
        return "lti-" + hmac.new(self.key, message, hashlib.sha256).hexdigest()[:40]

    # -- sessions --

    def open_session(self, session: LtiSession) -> str:
        token = secrets.token_urlsafe(32)
        self.db.put(f"session-{token}", asdict(session), SESSION_LIFETIME_S)
        return token

    def session(self, token: str | None) -> LtiSession | None:
        if not token or len(token) > 100:
            return None
        data = self.db.get(f"session-{token}")
        return LtiSession(**data) if isinstance(data, dict) else None

    # -- services --

    def connector(self, issuer: str, client_id: str) -> TimedConnector | None:
        """One connector per registration and signing key, kept: its access tokens are reused until they expire.
        A rotated key (`judge lti rotate-key`, any process) or changed URLs make a new one at the next call."""
        platform = self.registry.find(issuer, client_id)
        if platform is None:
            return None
        kid = self.registry.signing_key().kid
        key = (issuer, client_id, platform.auth_token_url, platform.auth_audience or "", kid)
        with self._lock:
            known = self._connectors.get(key)
            if known is None:
                known = self._connectors[key] = TimedConnector(registration_of(platform, self.registry))
            return known

    def members(self, issuer: str, client_id: str, memberships_url: str) -> list[dict[str, Any]]:
        connector = self.connector(issuer, client_id)
        if connector is None:
            raise LookupError("the platform is no longer registered")
        service = NamesRolesProvisioningService(connector, {"context_memberships_url": memberships_url})
        return [dict(m) for m in service.get_members()]
