"""Registration documents: Canvas's developer-key JSON, Moodle's URLs, and LTI Dynamic Registration (/lti/register)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import requests

from judge.report.catalog import say
from web.lti.adapter import http_session
from web.lti.launches import Refused
from web.lti.registry import Platform, RegistrationError
from web.lti.tool import LtiTool

TITLE = "practice-judge"
DESCRIPTION = "Auto-graded practice exercises of the CUDA / PyTorch handbook (scores go to the gradebook)."
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"


def moodle_urls(base: str) -> dict[str, Any]:
    """What Moodle's "Configure a tool manually" form asks for, field by field (docs/lti.md walks through it)."""
    return {
        "Tool URL": f"{base}/lti/launch",
        "LTI version": "LTI 1.3",
        "Public key type": "Keyset URL",
        "Public keyset": f"{base}/lti/jwks",
        "Initiate login URL": f"{base}/lti/login",
        "Redirection URI(s)": f"{base}/lti/launch",
        "Supports Deep Linking (Content-Item Message)": True,
        "Content Selection URL": f"{base}/lti/launch",
        "Custom parameters": "exercise=100",
        "IMS LTI Assignment and Grade Services": "Use this service for grade sync and column management",
        "IMS LTI Names and Role Provisioning": "Use this service to retrieve members' information",
        "Dynamic registration URL": f"{base}/lti/register",
    }


def canvas_json(base: str) -> dict[str, Any]:
    """Canvas's "LTI Key" developer key, pasted as JSON (Admin > Developer Keys > + LTI Key > Paste JSON)."""
    domain, launch = urlsplit(base).netloc, f"{base}/lti/launch"
    return {
        "title": TITLE,
        "description": DESCRIPTION,
        "oidc_initiation_url": f"{base}/lti/login",
        "target_link_uri": f"{base}/lti/launch",
        "public_jwk_url": f"{base}/lti/jwks",
        "scopes": SCOPES,
        "extensions": [
            {
                "domain": domain,
                "tool_id": TITLE,
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {
                    "text": TITLE,
                    "placements": [
                        {"placement": where, "message_type": "LtiDeepLinkingRequest", "target_link_uri": launch}
                        for where in ("assignment_selection", "link_selection")
                    ],
                },
            }
        ],
    }


def _tool_registration(base: str) -> dict[str, Any]:
    domain = urlsplit(base).netloc
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": f"{base}/lti/login",
        "redirect_uris": [f"{base}/lti/launch"],
        "client_name": TITLE,
        "jwks_uri": f"{base}/lti/jwks",
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(SCOPES),
        TOOL_CONFIGURATION: {
            "domain": domain,
            "description": DESCRIPTION,
            "target_link_uri": f"{base}/lti/launch",
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [
                {"type": "LtiResourceLinkRequest", "target_link_uri": f"{base}/lti/launch"},
                {"type": "LtiDeepLinkingRequest", "target_link_uri": f"{base}/lti/launch"},
            ],
        },
    }


def _fail(why: str) -> Refused:
    return Refused(400, say("lti.refused.login", why=why), why)


def register(tool: LtiTool, base: str, openid_configuration: str, registration_token: str | None) -> str:
    """Fetch the platform's configuration, register this tool at its registration endpoint, store the platform.
    Returns the platform's issuer."""
    if not openid_configuration.startswith(("https://", "http://")):
        raise _fail("openid_configuration is missing or not an http(s) URL")
    http = http_session()
    try:
        config = http.get(openid_configuration).json()
        issuer = str(config["issuer"])
        if not openid_configuration.startswith(issuer.rstrip("/")):
            raise _fail(f"the configuration's issuer {issuer!r} is not where it was served from")
        headers = {"Authorization": f"Bearer {registration_token}"} if registration_token else {}
        answer = http.post(config["registration_endpoint"], json=_tool_registration(base), headers=headers)
        if not answer.ok:
            raise _fail(f"the platform refused the registration: HTTP {answer.status_code} {answer.text[:300]}")
        registered = answer.json()
        deployment = str((registered.get(TOOL_CONFIGURATION) or {}).get("deployment_id") or "1")
        tool.registry.add(
            Platform(
                id=0,
                issuer=issuer,
                client_id=str(registered["client_id"]),
                auth_login_url=str(config["authorization_endpoint"]),
                auth_token_url=str(config["token_endpoint"]),
                key_set_url=str(config["jwks_uri"]),
                deployments=[deployment],
            )
        )
    except (requests.RequestException, ValueError, KeyError, TypeError, RegistrationError) as exc:
        raise _fail(f"{type(exc).__name__}: {exc}"[:300]) from exc
    return issuer
