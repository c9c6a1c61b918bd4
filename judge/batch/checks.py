"""Check groups: an exercise's cases by the test that holds them (public and hidden tests of one name alike, every
parametrized case of it), as `@pytest.mark.weight` weights them; their points add up to the score before penalty."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judge.report.catalog import say
from judge.report.i18n import Lang, Text
from judge.report.models import CaseResult, Outcome, Report


def group_of(case_name: str) -> str:
    """The check group of a case: its test's name without `test_` and without the parametrized id
    (test_dispatch_keys[meta-device] -> dispatch_keys)."""
    name = case_name.split("[", 1)[0]
    return name.removeprefix("test_") or name


@dataclass
class Group:
    """One check group of a report: its cases, their weight, and what the passed ones earned."""

    name: str
    cases: int = 0
    passed: int = 0
    hidden: int = 0
    weight: float = 0.0  # the sum of its cases' weights
    each: float | None = None  # the weight of one case, when all its cases weigh the same
    earned_weight: float = 0.0
    points: float = 0.0  # its share of the points, before any penalty
    max_points: float = 0.0
    public: bool = False  # a public test holds cases of it: its name may be shown to the student
    hints: list[Text] = field(default_factory=list)  # its cases' distinct hints (what a hidden group may show)

    def label(self, number: int, lang: Lang) -> str:
        """What the student's feedback calls it: its name when a public test bears it; a hidden-only group is
        "hidden N", with what its hints share (their words before a colon), never the hidden test's own name."""
        if self.public:
            return self.name
        texts = list(dict.fromkeys(h.get(lang) for h in self.hints if h.get(lang)))
        heads = {re.split(r"[:：]", t, maxsplit=1)[0].strip() for t in texts}
        about = texts[0] if len(texts) == 1 else next(iter(heads)) if len(heads) == 1 else ""
        return f"{say('feedback.hidden_group', number=number).get(lang)}" + (f" ({about})" if about else "")


def ran(report: Report) -> list[CaseResult]:
    """The cases the score covers: all but those of a tier with no runner here (judge.grading.decide.ran_cases)."""
    skipped_tier = any(state == "skipped" for state in report.tiers.values())
    return [c for c in report.cases if not (skipped_tier and c.outcome == Outcome.skipped)]


def groups(report: Report | None, max_points: float, score: float | None = None) -> list[Group]:
    """The report's check groups in the order its cases ran, each with its points out of max_points (a weighted
    share of the cases that ran), rounded to the cent so that they add up to round(score * max_points, 2) (score:
    the row's, 0 when the starter was left unchanged; default the report's)."""
    if report is None:
        return []
    cases = ran(report)
    total = sum(c.weight for c in cases)
    out: dict[str, Group] = {}
    weights: dict[str, set[float]] = {}
    for case in cases:
        group = out.setdefault(group_of(case.name), Group(group_of(case.name)))
        weights.setdefault(group.name, set()).add(case.weight)
        group.cases += 1
        group.hidden += case.hidden
        group.public = group.public or not case.hidden
        if case.hint and all(h.en != case.hint.en for h in group.hints):
            group.hints.append(case.hint)
        group.weight += case.weight
        if case.outcome == Outcome.passed:
            group.passed += 1
            group.earned_weight += case.weight
    unit = max_points / total if total else 0.0
    for group in out.values():
        group.each = next(iter(weights[group.name])) if len(weights[group.name]) == 1 else None
        group.max_points = group.weight * unit
        group.points = group.earned_weight * unit if score is None or score > 0 else 0.0
    score = report.score if score is None else score
    _round_together(list(out.values()), round(score * max_points * 100) if any(g.points for g in out.values()) else 0)
    return list(out.values())


def _round_together(found: list[Group], total: int) -> None:
    """Each group's points to the cent so that they add up to `total` cents (largest remainders first): the per-check
    columns sum to the score before penalty as grades.csv's points derive it, not a cent off."""
    cents = [int(g.points * 100) for g in found]
    order = sorted(range(len(found)), key=lambda i: -(found[i].points * 100 - cents[i]))
    for i in order[: max(0, total - sum(cents))]:
        cents[i] += 1
    over = [i for i in order[::-1] if cents[i] > 0][: max(0, sum(cents) - total)]
    for i in over:  # the report's score is rounded: a cent over is taken back
        cents[i] -= 1
    for group, cent in zip(found, cents):
        group.points = cent / 100
        group.max_points = round(group.max_points, 2)


def column(name: str) -> str:
    """The group's points column in grades.csv and grades.xlsx."""
    return f"points:{name}"
