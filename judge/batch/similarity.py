"""Near-identical submissions, by copydetect's winnowing, with the starter and the statement's code as boilerplate."""

from __future__ import annotations

import io
import logging
import re
import statistics
from dataclasses import dataclass
from typing import Any

from judge.problem.folders import Problem

NEAR_IDENTICAL = 0.8  # both files share at least this fraction of their (non-starter) fingerprints, on average
MARGIN = 0.1  # an exercise's threshold sits this far above how alike its own correct solutions are
CEILING = 0.98  # ... but never above this: near-identical copies still show
MAX_SIMILAR = 5  # ids listed in a row's similar_to, nearest first
NOISE_K = 25  # copydetect's defaults: k-grams of 25 filtered characters, every one kept (window 1)
WINDOW = 1
MIN_OWN = 40  # fingerprints left once the starter is removed: fewer is too little code to call copied


_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(?<!`)`([^`\n]{8,})`(?!`)")  # inline code long enough to be code (a signature, a call)


def boilerplate_of(problem: Problem) -> str:
    """The code every solution may share: the starter, and the Python the statement dictates (its code blocks)."""
    parts = [problem.starter_path.read_text(encoding="utf-8")] if problem.starter_path.exists() else []
    for lang in ("zh", "en"):
        try:
            prompt = problem.prompt(lang)
        except OSError:
            continue
        parts += [match[2] for match in _FENCE.finditer(prompt)]
        parts += [match[1] for match in _SPAN.finditer(_FENCE.sub("", prompt))]
    return "\n\n".join(parts)


def same_student(a: str, b: str) -> bool:
    """Two rows of one student (alice and alice~2): their own attempts are never a pair."""
    return a.split("~", 1)[0] == b.split("~", 1)[0]


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float


def similar_pairs(sources: dict[str, str], starter: str = "", threshold: float = NEAR_IDENTICAL) -> list[Pair]:
    """Pairs of students whose code is near-identical once names are normalised and the starter removed.

    Identical bytes score 1.0 without fingerprinting (and are what 'judged once' already found)."""
    from copydetect import CodeFingerprint, compare_files  # noqa: PLC0415 - numpy, matplotlib: only when used

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))  # copydetect warns per file
    import numpy as np  # noqa: PLC0415

    boilerplate: Any = np.array(sorted(_fingerprint(CodeFingerprint, starter, []).hashes)) if starter.strip() else []
    prints: dict[str, Any] = {}
    for student, code in sorted(sources.items()):
        try:
            prints[student] = _fingerprint(CodeFingerprint, code, boilerplate)
        except Exception:  # noqa: BLE001 - a file the tokenizer cannot read is simply not compared
            continue
    names, pairs = list(prints), []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if same_student(a, b):
                continue
            score = 1.0 if sources[a] == sources[b] else _score(compare_files, prints[a], prints[b])
            if score >= threshold:
                pairs.append(Pair(a, b, round(score, 3)))
    return sorted(pairs, key=lambda p: (-p.score, p.a, p.b))


def _fingerprint(cls: Any, code: str, boilerplate: Any) -> Any:
    return cls("submission.py", NOISE_K, WINDOW, boilerplate=boilerplate, fp=io.StringIO(code))


def _score(compare: Any, first: Any, second: Any) -> float:
    if min(len(first.hashes), len(second.hashes)) < MIN_OWN:
        return 0.0  # (almost) nothing beyond the starter: nothing to have copied
    shared = len(first.hashes & second.hashes) / min(len(first.hashes), len(second.hashes))
    if shared < NEAR_IDENTICAL / 2:
        return shared  # far apart already by shared fingerprints: skip copydetect's slower slice matching
    _, (one, two), _ = compare(first, second)
    return float(one + two) / 2


def clusters(pairs: list[Pair]) -> list[list[str]]:
    """Groups of students connected by near-identical pairs, largest first."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for pair in pairs:
        parent[root(pair.a)] = root(pair.b)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


def similar_to(pairs: list[Pair]) -> dict[str, list[str]]:
    """Each student's nearest others, nearest first, at most MAX_SIMILAR."""
    out: dict[str, list[tuple[float, str]]] = {}
    for pair in pairs:
        out.setdefault(pair.a, []).append((pair.score, pair.b))
        out.setdefault(pair.b, []).append((pair.score, pair.a))
    return {k: [name for _, name in sorted(v, key=lambda p: (-p[0], p[1]))[:MAX_SIMILAR]] for k, v in out.items()}


def closest(group: list[str], pairs: list[Pair]) -> Pair | None:
    """The cluster's strongest pair (clusters are transitive: the pair is what to read first)."""
    inside = [p for p in pairs if p.a in group and p.b in group]
    return max(inside, key=lambda p: (p.score, p.b, p.a), default=None)


@dataclass(frozen=True)
class Threshold:
    value: float
    independent: float  # how alike the exercise's own correct solutions are: the 90th percentile of their pairs
    solutions: int  # how many were compared


def threshold_for(problem: Problem, boilerplate: str) -> Threshold:
    """The exercise's threshold, from the spread of scores among its own correct solutions (the reference and
    solutions/valid): MARGIN above their 90th percentile, so a short exercise, where any two correct files look
    alike, does not flag the whole class, while a valid solution made from another (a variant kept to test one
    idea) does not raise it alone; never below NEAR_IDENTICAL nor above CEILING."""
    files = [problem.reference_path, *problem.valid_solutions()] if problem.reference_path.is_file() else []
    sources = {path.name: path.read_text(encoding="utf-8") for path in files}
    scores = sorted(p.score for p in similar_pairs(sources, boilerplate, threshold=0.0)) if len(sources) > 1 else []
    if not scores:
        return Threshold(NEAR_IDENTICAL, 0.0, len(sources))
    spread = statistics.quantiles(scores, n=10, method="inclusive")[-1] if len(scores) > 2 else scores[-1]
    value = round(min(CEILING, max(NEAR_IDENTICAL, spread + MARGIN)), 3)
    return Threshold(value, round(spread, 3), len(sources))
