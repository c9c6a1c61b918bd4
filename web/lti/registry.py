"""Registered platforms and the tool's own RSA keys: what `judge lti` writes and every launch reads, at once."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from jwcrypto.jwk import JWK
from sqlalchemy import delete, select

from judge.errors import JudgeError
from judge.queue.store import aware, now
from web.lti.db import LtiDb
from web.lti.tables import DeploymentRow, KeyRow, PlatformRow

# A retired key stays in the JWKS this long after `rotate-key`: longer than anything signed with it lives (a
# deep-linking response 10 minutes, a client assertion 1 minute) and than platforms cache a key set.
KEY_OVERLAP = timedelta(hours=1)


class RegistrationError(JudgeError):
    http_status = 400


@dataclass(frozen=True)
class Platform:
    id: int
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    auth_audience: str | None = None
    deployments: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ToolKey:
    kid: str
    private_pem: str
    public_jwk: dict[str, Any]

    @property
    def public_pem(self) -> str:
        return str(JWK(**self.public_jwk).export_to_pem().decode())


def _platform(row: PlatformRow, deployments: list[str]) -> Platform:
    return Platform(
        row.id,
        row.issuer,
        row.client_id,
        row.auth_login_url,
        row.auth_token_url,
        row.key_set_url,
        row.auth_audience,
        sorted(deployments),
    )


class Registry:
    def __init__(self, db: LtiDb):
        self.db = db

    # -- platforms --

    def add(self, platform: Platform) -> Platform:
        """Store a platform, or add a deployment to one (same issuer and client id: its URLs are updated)."""
        for url in (platform.auth_login_url, platform.auth_token_url, platform.key_set_url):
            if not url.startswith(("https://", "http://")):
                raise RegistrationError(f"not an http(s) URL: {url!r}")
        with self.db.session.begin() as s:
            row = s.scalar(
                select(PlatformRow).where(
                    PlatformRow.issuer == platform.issuer, PlatformRow.client_id == platform.client_id
                )
            )
            if row is None:
                row = PlatformRow(issuer=platform.issuer, client_id=platform.client_id, created_at=now())
                s.add(row)
            row.auth_login_url, row.auth_token_url = platform.auth_login_url, platform.auth_token_url
            row.key_set_url, row.auth_audience = platform.key_set_url, platform.auth_audience
            s.flush()
            known = set(s.scalars(select(DeploymentRow.deployment_id).where(DeploymentRow.platform_id == row.id)))
            for deployment in platform.deployments:
                if deployment not in known:
                    s.add(DeploymentRow(platform_id=row.id, deployment_id=deployment))
            platform_id = row.id
        found = self.get(platform_id)
        assert found is not None
        return found

    def get(self, platform_id: int) -> Platform | None:
        with self.db.session() as s:
            row = s.get(PlatformRow, platform_id)
            if row is None:
                return None
            deployments = s.scalars(select(DeploymentRow.deployment_id).where(DeploymentRow.platform_id == row.id))
            return _platform(row, list(deployments))

    def all(self) -> list[Platform]:
        with self.db.session() as s:
            rows = s.scalars(select(PlatformRow).order_by(PlatformRow.id)).all()
            deployments: dict[int, list[str]] = {}
            for d in s.scalars(select(DeploymentRow)):
                deployments.setdefault(d.platform_id, []).append(d.deployment_id)
            return [_platform(r, deployments.get(r.id, [])) for r in rows]

    def find(self, issuer: str, client_id: str | None = None) -> Platform | None:
        """The issuer's registration (with client_id: that one; without: the issuer's only one)."""
        matches = [p for p in self.all() if p.issuer == issuer and (client_id is None or p.client_id == client_id)]
        return matches[0] if len(matches) == 1 else None

    def clients_of(self, issuer: str) -> int:
        return sum(1 for p in self.all() if p.issuer == issuer)

    def remove(self, platform_id: int, deployment: str | None = None) -> bool:
        """Delete a registration (or only one of its deployments); False when there was no such thing."""
        with self.db.session.begin() as s:
            if deployment is not None:
                gone = s.execute(
                    delete(DeploymentRow).where(
                        DeploymentRow.platform_id == platform_id, DeploymentRow.deployment_id == deployment
                    )
                )
                return getattr(gone, "rowcount", 0) == 1
            s.execute(delete(DeploymentRow).where(DeploymentRow.platform_id == platform_id))
            gone = s.execute(delete(PlatformRow).where(PlatformRow.id == platform_id))
            return getattr(gone, "rowcount", 0) == 1

    # -- the tool's keys --

    def signing_key(self) -> ToolKey:
        """The current key, made on first use (a race between processes keeps the first one made)."""
        key = self._current()
        if key is not None:
            return key
        self._make()
        key = self._current()
        assert key is not None
        return key

    def _current(self) -> ToolKey | None:
        with self.db.session() as s:
            row = s.scalar(select(KeyRow).where(KeyRow.drop_at.is_(None)).order_by(KeyRow.created_at.desc()))
            return ToolKey(row.kid, row.private_pem, json.loads(row.public_jwk)) if row is not None else None

    def _make(self) -> str:
        jwk = JWK.generate(kty="RSA", size=2048)
        kid = jwk.thumbprint()
        public = json.loads(jwk.export_public())
        public.update(kid=kid, alg="RS256", use="sig")
        pem = jwk.export_to_pem(private_key=True, password=None).decode()
        with self.db.session.begin() as s:
            s.add(KeyRow(kid=kid, private_pem=pem, public_jwk=json.dumps(public), created_at=now()))
        return str(kid)

    def rotate(self) -> str:
        """A new signing key; the old one is retired but served in the JWKS for KEY_OVERLAP more."""
        old = self._current()
        kid = self._make()
        if old is not None:
            with self.db.session.begin() as s:
                row = s.get(KeyRow, old.kid)
                if row is not None:
                    row.drop_at = now() + KEY_OVERLAP
        return kid

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """The public keys: the current one (made if none yet) and retired ones still within their overlap."""
        self.signing_key()
        moment = now()
        with self.db.session() as s:
            rows = s.scalars(select(KeyRow).order_by(KeyRow.created_at.desc())).all()
            alive = [r for r in rows if r.drop_at is None or (aware(r.drop_at) or moment) > moment]
            return {"keys": [json.loads(r.public_jwk) for r in alive]}
