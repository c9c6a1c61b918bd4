"""`judge lti add-platform|platforms|remove-platform|rotate-key`: the tool's registrations, in the database."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.settings import Settings
    from web.lti.registry import Registry


@contextmanager
def _registry() -> Iterator[Registry]:
    """The registry over the service's database, closed after the command."""
    from web.config import WebSettings  # noqa: PLC0415 - the web stack loads only for this command
    from web.lti.db import LtiDb  # noqa: PLC0415
    from web.lti.registry import Registry  # noqa: PLC0415

    registry = Registry(LtiDb.open(WebSettings().database()))
    try:
        yield registry
    finally:
        registry.db.close()


def _add(args: argparse.Namespace, settings: Settings) -> int:
    from web.lti.registry import Platform, RegistrationError  # noqa: PLC0415

    wanted = Platform(
        id=0,
        issuer=args.issuer,
        client_id=args.client_id,
        auth_login_url=args.auth_login_url,
        auth_token_url=args.auth_token_url,
        key_set_url=args.key_set_url,
        auth_audience=args.auth_audience,
        deployments=[args.deployment_id],
    )
    try:
        with _registry() as registry:
            platform = registry.add(wanted)
    except RegistrationError as exc:
        print(f"judge lti add-platform: {exc.message}")
        return 2
    print(f"platform {platform.id}: {platform.issuer} client {platform.client_id}, deployments {platform.deployments}")
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with _registry() as registry:
        platforms = registry.all()
    if not platforms:
        print("no platform registered: judge lti add-platform --issuer ... (docs/lti.md)")
    for p in platforms:
        print(
            f"{p.id}\t{p.issuer}\tclient_id={p.client_id}\tdeployments={','.join(p.deployments)}\n"
            f"\tlogin={p.auth_login_url}\ttoken={p.auth_token_url}\tkeys={p.key_set_url}"
        )
    return 0


def _remove(args: argparse.Namespace, settings: Settings) -> int:
    if args.id is None and args.issuer is None:
        print("judge lti remove-platform: name the platform (its number from `judge lti platforms`, or --issuer)")
        return 2
    with _registry() as registry:
        matches = [
            p
            for p in registry.all()
            if (args.id is None or p.id == args.id)
            and (args.issuer is None or p.issuer == args.issuer)
            and (args.client_id is None or p.client_id == args.client_id)
        ]
        if len(matches) != 1:
            print(f"judge lti remove-platform: {len(matches)} platforms match; add --client-id or give its number")
            return 2
        removed = registry.remove(matches[0].id, args.deployment_id)
    what = f"deployment {args.deployment_id} of " if args.deployment_id else ""
    print(f"removed {what}platform {matches[0].id} ({matches[0].issuer})" if removed else "nothing removed")
    return 0 if removed else 1


def _rotate(args: argparse.Namespace, settings: Settings) -> int:
    with _registry() as registry:
        kid = registry.rotate()
    print(f"new signing key {kid}; the previous one stays in /lti/jwks for one more hour")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lti = sub.add_parser(
        "lti",
        help="register LMS platforms with the LTI 1.3 tool (judge serve) and rotate its key",
        description="The LTI 1.3 tool's registrations, kept in the service's database (PRACTICE_DATABASE_URL, or "
        "the SQLite default under PRACTICE_DATA_DIR, as `judge serve`). A running server uses a change at once.",
    )
    actions = lti.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add-platform", help="register a platform (or add a deployment to one)")
    add.add_argument("--issuer", required=True, help="the platform's issuer (iss), e.g. https://canvas.instructure.com")
    add.add_argument("--client-id", required=True, help="the client id the platform gave this tool")
    add.add_argument("--deployment-id", required=True, help="the deployment id the platform gave this tool")
    add.add_argument("--auth-login-url", required=True, help="the platform's OIDC authorization URL")
    add.add_argument("--auth-token-url", required=True, help="the platform's OAuth2 token URL")
    add.add_argument("--key-set-url", required=True, help="the platform's public key set (JWKS) URL")
    add.add_argument("--auth-audience", help="the token request's audience, where it is not the token URL")
    add.set_defaults(handler=_add)
    listing = actions.add_parser("platforms", help="list the registered platforms")
    listing.set_defaults(handler=_list)
    remove = actions.add_parser("remove-platform", help="delete a platform (or only one of its deployments)")
    remove.add_argument("id", nargs="?", type=int, help="its number from `judge lti platforms`")
    remove.add_argument("--issuer")
    remove.add_argument("--client-id")
    remove.add_argument("--deployment-id", help="remove only this deployment")
    remove.set_defaults(handler=_remove)
    rotate = actions.add_parser("rotate-key", help="make a new signing key (the old one is served one more hour)")
    rotate.set_defaults(handler=_rotate)
