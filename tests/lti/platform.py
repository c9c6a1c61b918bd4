"""A real LTI 1.3 platform for the tests: PyPI's lti1p3platform (OpenLearning), served by FastAPI on loopback.

Run as `python -m tests.lti.platform` (the fixture starts it as a process, so that a test can stop it, as an
LMS that goes down, and start it again on the same port with its gradebook intact). Everything the platform
does with LTI (the OIDC auth response, the signed id_token, the token endpoint with its JWT client assertion,
AGS line items and scores, NRPS memberships, deep-linking settings and the response's validation) is the
library's; this file only keeps its state (keys, links, the gradebook) in a folder and routes URLs to it."""

from __future__ import annotations

import json
import os
import typing as t
from html import escape
from pathlib import Path

import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from lti1p3platform.exceptions import LtiDeepLinkingResponseException, LtiException, LtiServiceException
from lti1p3platform.framework.fastapi.oidc_login import FastAPIOIDCLogin
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequest
from lti1p3platform.request import TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService, TPage

CLIENT_ID = "judge-client"
DEPLOYMENT = "deployment-1"
CONTEXT = {"id": "course-1", "title": "CUDA & PyTorch 2027", "label": "CP27"}
USERS = {
    "learner-1": {"name": "Ada Lovelace", "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]},
    "learner-2": {"name": "Grace Hopper", "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]},
    "teacher-1": {"name": "Prof. Turing", "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]},
}
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


LAUNCH_FORM = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>LTI launch</title></head><body>
<form method="POST" action="{launch_url}" id="form">
<input type="hidden" name="id_token" value="{id_token}"><input type="hidden" name="state" value="{state}">
<button type="submit" id="go">Launch</button></form>
<script>document.getElementById("form").submit();</script></body></html>"""


class Login(FastAPIOIDCLogin):
    def set_lti_message_hint(self, **kwargs: t.Any) -> None:
        self._lti_message_hint = kwargs["hint"]


class Platform:
    """The platform's state, in a folder: its key, its resource links and line items, and the gradebook."""

    def __init__(self, folder: Path, port: int, tool: str):
        self.folder, self.tool = folder, tool
        self.url = f"http://127.0.0.1:{port}"
        self.key_path = folder / "platform.pem"
        if not self.key_path.exists():
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pem = key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            self.key_path.write_bytes(pem)

    def read(self, name: str, default: t.Any) -> t.Any:
        path = self.folder / name
        return json.loads(path.read_text()) if path.exists() else default

    def write(self, name: str, value: t.Any) -> None:
        path = self.folder / name
        path.with_suffix(".tmp").write_text(json.dumps(value, indent=1))
        path.with_suffix(".tmp").replace(path)

    def registration(self) -> Registration:
        private = self.key_path.read_text()
        public = (
            serialization.load_pem_private_key(private.encode(), None)
            .public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )
        overrides = self.read("registration.json", {})  # a test may point the platform elsewhere
        return (
            Registration()
            .set_iss(overrides.get("iss", self.url))
            .set_client_id(overrides.get("client_id", CLIENT_ID))
            .set_deployment_id(overrides.get("deployment_id", DEPLOYMENT))
            .set_oidc_login_url(f"{self.tool}/lti/login")
            .set_launch_url(f"{self.tool}/lti/launch")
            .set_deeplink_launch_url(f"{self.tool}/lti/launch")
            .set_tool_key_set_url(f"{self.tool}/lti/jwks")
            .set_platform_public_key(public)
            .set_platform_private_key(private)
        )


class Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: t.Any) -> None:
        self.platform: Platform = kwargs["platform"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return self.platform.registration()


class Req(PlatformRequest):
    def build_metadata(self, request: t.Any) -> TRequest:
        return request  # built below from the Starlette request, already read


async def wrap(request: Request) -> Req:
    form = (
        dict(await request.form())
        if request.method == "POST" and "form" in request.headers.get("content-type", "")
        else {}
    )
    body = await request.body()
    data = json.loads(body) if body and "json" in request.headers.get("content-type", "") else None
    return Req(
        {
            "method": request.method,
            "form_data": form,
            "get_data": dict(request.query_params),
            "headers": dict(request.headers) | {"Authorization": request.headers.get("authorization", "")},
            "content_type": request.headers.get("content-type"),
            "path": request.url.path,
            "json": data,
        }
    )


class Launch(LTIAdvantageMessageLaunchAbstract):
    """The platform's side of a launch: the preflight (the tool's auth request) in, the signed id_token out."""

    platform: Platform

    def get_preflight_response(self) -> dict[str, t.Any]:
        assert self._request is not None
        return dict(self._request.get_data)

    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> HTMLResponse:
        # The library's own launch.html loads through pkg_resources, which current setuptools no longer ships:
        # the same auto-posting form, written out here.
        return HTMLResponse(LAUNCH_FORM.format(**{k: escape(str(v), quote=True) for k, v in launch_data.items()}))

    def prepare_launch(self, preflight_response: dict[str, t.Any]) -> None:
        user = preflight_response["login_hint"]
        hint = preflight_response.get("lti_message_hint", "")
        person = USERS[user]
        self.set_user_data(user, person["roles"], full_name=person["name"], email_address=f"{user}@example.edu")
        self.set_launch_context_claim(CONTEXT["id"], context_title=CONTEXT["title"], context_label=CONTEXT["label"])
        self.set_nrps(f"{self.platform.url}/memberships")
        self.set_launch_presentation_claim("iframe", f"{self.platform.url}/course")
        if hint == "deeplink":
            self.set_dl(
                f"{self.platform.url}/deeplink/return", title="practice-judge", accept_types={"ltiResourceLink"}
            )
            return
        link = self.platform.read("links.json", {})[hint]
        self.set_resource_link_claim(hint, title=link.get("title", hint))
        self.set_custom_parameters_claim(link.get("custom", {}))
        if link.get("lineitem"):
            lineitem = f"{self.platform.url}/lineitems/{link['lineitem']}"
            self.set_ags(f"{self.platform.url}/lineitems", lineitem)
        if link.get("claims"):  # a test's tampering with what the platform signs
            self.set_extra_claims(link["claims"])


class Grades(AssignmentsGradesService):
    platform: Platform

    def find_lineitems(self, page: int = 1, limit: int | None = None, **kwargs: t.Any) -> TPage:
        items = list(self.platform.read("lineitems.json", {}).values())
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id: str) -> t.Any:
        return self.platform.read("lineitems.json", {})[line_item_id]

    def create_lineitem(self, creation_data: t.Any) -> t.Any:
        raise LtiServiceException("not offered", 405)

    def update_lineitem(self, update_data: t.Any) -> t.Any:
        raise LtiServiceException("not offered", 405)

    def delete_lineitem(self, line_item_id: str) -> None:
        raise LtiServiceException("not offered", 405)

    def update_score(self, line_item_id: str, score: t.Any) -> UpdateScoreStatus:
        fault = self.platform.read("faults.json", {}).get("scores")
        if fault:
            raise LtiServiceException(f"the platform refuses scores: {fault['message']}", int(fault["status"]))
        book = self.platform.read("gradebook.json", [])
        book.append({"lineitem": line_item_id, **score})
        self.platform.write("gradebook.json", book)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None, **kwargs: t.Any) -> TPage:
        book = [s for s in self.platform.read("gradebook.json", []) if s["lineitem"] == line_item_id]
        return {"content": book, "has_next": False, "next": None}


class Members(NamesRoleProvisioningService):
    def get_member_data_page(self, page: int = 1, limit: int | None = None, **kwargs: t.Any) -> TPage:
        members = [
            {"user_id": user, "name": person["name"], "roles": person["roles"], "status": "Active"}
            for user, person in USERS.items()
        ]
        return {"content": members, "has_next": False, "next": None}

    def get_context_by_id(self) -> Context:
        return Context(**CONTEXT)


def json_answer(resp: t.Any) -> Response:
    if 200 <= resp.code < 300:
        data = resp.result.get("content", resp.result) if isinstance(resp.result, dict) else resp.result
        return JSONResponse(data, status_code=resp.code, media_type=resp.media_type)
    return JSONResponse({"error": resp.message}, status_code=resp.code)


def create_app(platform: Platform) -> FastAPI:
    app = FastAPI()

    def conf() -> Conf:
        return Conf(platform=platform)  # a fresh one per request: it caches the tool's key set

    @app.get("/launch")
    def initiate(user: str, link: str) -> Response:
        login = Login(None, conf())
        login.set_lti_message_hint(hint=link)
        return login.initiate_login(user)

    @app.get("/frame")
    def frame(user: str, link: str) -> HTMLResponse:
        """A course page of the LMS that opens the tool inside an iframe, as Canvas and Moodle do."""
        src = escape(f"/launch?user={user}&link={link}", quote=True)
        return HTMLResponse(f'<!DOCTYPE html><h1>LMS</h1><iframe id="tool" src="{src}" width="1300" height="820">')

    @app.get("/auth")
    async def auth(request: Request) -> Response:
        launch = Launch(await wrap(request), conf())
        launch.platform = platform
        try:
            return launch.lti_launch()
        except Exception as exc:  # noqa: BLE001 - the platform answers a bad preflight with a 400
            return JSONResponse({"error": f"{type(exc).__name__}: {exc}"}, status_code=400)

    @app.post("/token")
    async def token(request: Request) -> Response:
        try:
            c = conf()
            c.get_registration()
            return JSONResponse(c.get_access_token(dict(await request.form())))
        except Exception as exc:  # noqa: BLE001
            return JSONResponse({"error": "invalid_client", "detail": str(exc)}, status_code=400)

    @app.get("/jwks")
    def jwks() -> Response:
        c = conf()
        c.get_registration()
        return JSONResponse(c.get_jwks())

    def grades(req: Req, item: str) -> Grades:
        service = Grades(req, conf(), f"{platform.url}/lineitems", f"{platform.url}/lineitems/{item}")
        service.platform = platform
        service.platform_config.get_registration()
        return service

    @app.get("/lineitems/{item}")
    async def lineitem(item: str, request: Request) -> Response:
        service = grades(await wrap(request), item)
        return json_answer(service.handle_resp(service.handle_get_lineitem, line_item_id=item))

    @app.post("/lineitems/{item}/scores")
    async def scores(item: str, request: Request) -> Response:
        service = grades(await wrap(request), item)
        platform.write("score_posts.json", platform.read("score_posts.json", 0) + 1)
        return json_answer(service.handle_resp(service.handle_update_score, line_item_id=item))

    @app.get("/memberships")
    async def memberships(request: Request) -> Response:
        service = Members(await wrap(request), conf(), f"{platform.url}/memberships")
        service.platform_config.get_registration()
        return json_answer(service.handle_resp(service.handle_get_members))

    @app.post("/deeplink/return")
    async def deeplink_return(request: Request) -> Response:
        c = conf()
        c.get_registration()
        try:
            items = c.validate_deeplinking_resp(dict(await request.form()))
        except (LtiException, LtiDeepLinkingResponseException, KeyError, ValueError) as exc:
            return JSONResponse({"error": f"{type(exc).__name__}: {exc}"}, status_code=400)
        except Exception as exc:  # noqa: BLE001 - PyJWT's refusals (a bad signature) are not LtiExceptions
            return JSONResponse({"error": f"{type(exc).__name__}: {exc}"}, status_code=400)
        links, lineitems = platform.read("links.json", {}), platform.read("lineitems.json", {})
        for item in items:
            n = len(links) + 1
            line = item.get("lineItem") or {}
            lineitems[f"dl-{n}"] = {
                "id": f"{platform.url}/lineitems/dl-{n}",
                "scoreMaximum": line.get("scoreMaximum", 100),
                "label": line.get("label", item.get("title", "")),
                "resourceId": line.get("resourceId", ""),
            }
            links[f"dl-link-{n}"] = {
                "title": item.get("title", ""),
                "custom": item.get("custom", {}),
                "lineitem": f"dl-{n}",
            }
        platform.write("links.json", links)
        platform.write("lineitems.json", lineitems)
        return HTMLResponse(f"<p id='dl-done'>{len(items)} items added</p>")

    # LTI Dynamic Registration's platform side (lti1p3platform has none): the configuration and the endpoint
    # that takes the tool's registration and gives it a client id and a deployment of its own.
    @app.get("/.well-known/openid-configuration")
    def openid_configuration() -> Response:
        return JSONResponse(
            {
                "issuer": platform.url,
                "authorization_endpoint": f"{platform.url}/auth",
                "token_endpoint": f"{platform.url}/token",
                "jwks_uri": f"{platform.url}/jwks",
                "registration_endpoint": f"{platform.url}/register",
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {"product_family_code": "tests"},
            }
        )

    @app.post("/register")
    async def register(request: Request) -> Response:
        if request.headers.get("authorization") != "Bearer reg-token":
            return JSONResponse({"error": "invalid registration token"}, status_code=401)
        asked = await request.json()
        platform.write("registration.json", {"client_id": "dyn-client", "deployment_id": "dyn-deployment"})
        platform.write("tool_registration.json", asked)
        tool = "https://purl.imsglobal.org/spec/lti-tool-configuration"
        return JSONResponse(
            {**asked, "client_id": "dyn-client", tool: {**asked[tool], "deployment_id": "dyn-deployment"}}
        )

    @app.get("/gradebook")
    def gradebook() -> Response:
        return JSONResponse(
            {"scores": platform.read("gradebook.json", []), "posts": platform.read("score_posts.json", 0)}
        )

    return app


if __name__ == "__main__":
    port = int(os.environ["PLATFORM_PORT"])
    uvicorn.run(
        create_app(Platform(Path(os.environ["PLATFORM_DIR"]), port, os.environ["PLATFORM_TOOL"])),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
