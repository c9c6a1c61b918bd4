"""Deep linking: the instructor's picker of exercises, answered with a signed LtiDeepLinkingResponse."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from judge.problem.folders import Problem, chapter_of
from judge.report.catalog import say
from web.lti.adapter import CookieJar, DbStorage, FastAPIMessageLaunch, FastAPIRequest, OnceSessionService
from web.lti.launches import Refused
from web.lti.tool import LtiSession, LtiTool

DEFAULT_POINTS = 100
MAX_POINTS = 10000


@dataclass(frozen=True)
class Choice:
    exercise: str
    points: float


def choices(tool: LtiTool, form: Mapping[str, str]) -> list[Choice]:
    """The exercises ticked in the picker (`pick` = id), each with its points (`points-<id>`, default 100)."""
    known = {p.meta.id: p for p in tool.judge.problems()}
    picked = [value for key, value in _items(form) if key == "pick"]
    if not picked:
        raise Refused(400, say("lti.refused.picker", why="no exercise chosen"))
    out = []
    for exercise in dict.fromkeys(picked):
        if exercise not in known:
            raise Refused(400, say("lti.refused.picker", why=f"unknown exercise {exercise[:40]!r}"))
        raw = form.get(f"points-{exercise}", "") or str(DEFAULT_POINTS)
        try:
            points = float(raw)
        except ValueError:
            raise Refused(400, say("lti.refused.picker", why=f"points {raw[:20]!r} is not a number")) from None
        if not 0 < points <= MAX_POINTS:
            raise Refused(400, say("lti.refused.picker", why=f"points must be above 0 and at most {MAX_POINTS}"))
        out.append(Choice(exercise, points))
    return out


def _items(form: Mapping[str, str]) -> list[tuple[str, str]]:
    multi = getattr(form, "multi_items", None)
    return list(multi()) if callable(multi) else list(form.items())


def title_of(problem: Problem) -> str:
    """`100 自定义算子 / Custom operators`: the platform shows one title to readers of either language."""
    title = problem.meta.title
    return f"{problem.meta.id} " + " / ".join(dict.fromkeys(t for t in (title.zh, title.en) if t))


def picker_rows(tool: LtiTool, lang: str) -> list[dict[str, str]]:
    """What the picker lists: id, title, chapter and the languages its statement is written in."""
    rows = []
    for problem in tool.judge.problems():
        chapter = chapter_of(problem)
        langs = [
            name for code, name in (("zh", "中文"), ("en", "English")) if (problem.root / f"prompt.{code}.md").exists()
        ]
        rows.append(
            {
                "id": problem.meta.id,
                "title": problem.meta.title.zh if lang == "zh" else problem.meta.title.en,
                "chapter": chapter.get(lang) or chapter.get("en") or "",
                "languages": " · ".join(langs),
            }
        )
    return rows


def response_form(
    tool: LtiTool, session: LtiSession, request: FastAPIRequest, picked: list[Choice], launch_url: str
) -> tuple[str, str]:
    """(the platform's return URL, the signed JWT) for the chosen exercises, from the stored launch."""
    storage = DbStorage(tool.db)
    storage.set_request(request)
    message = FastAPIMessageLaunch.from_cache(
        session.launch_id,
        request,
        tool.conf,
        session_service=OnceSessionService(request, storage),
        cookie_service=CookieJar(request),
        launch_data_storage=storage,
    )
    deep_link = message.get_deep_link()
    problems = {p.meta.id: p for p in tool.judge.problems()}
    resources = []
    for choice in picked:
        problem = problems[choice.exercise]
        title = title_of(problem)
        line_item = (
            LineItem()
            .set_label(title)
            .set_score_maximum(choice.points)
            .set_resource_id(problem.meta.id)
            .set_tag("practice-judge")
        )
        resources.append(
            DeepLinkResource()
            .set_url(launch_url)
            .set_title(title)
            .set_custom_params({"exercise": problem.meta.id})
            .set_lineitem(line_item)
        )
    settings = message.get_launch_data()["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]
    return str(settings["deep_link_return_url"]), str(deep_link.get_response_jwt(resources))
