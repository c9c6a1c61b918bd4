"""Pairs of submissions that stand out of their class as alike: copydetect's winnowed fingerprints, with the starter,
the statement's code and the fingerprints most of the class shares set aside, judged against the class's own spread.

On a short exercise the chapter's idiom makes independent solutions look alike: a fixed threshold flagged ten
innocent students of a class of thirty and hid the two real copies among them. So a fingerprint counts by how few
of the class hold it (one that most of the class holds counts for nothing: the idiom, not a copy), and a pair is
flagged when its score stands out of the scores of every pair of the class (Tukey's far-out fence), and is high.
"""

from __future__ import annotations

import ast
import io
import logging
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from judge.problem.folders import Problem

NEAR_IDENTICAL = 0.8  # a class too small to have a spread of its own (fewer than MIN_CLASS): this, as before
FLOOR = 0.75  # a pair is never flagged below this, however unlike the rest of the class is
MIN_CLASS = 6  # students whose files are compared, for the class's own spread and its shared fingerprints to count
COMMON = 0.5  # a fingerprint that more than this share of the class holds is the exercise's idiom: it counts 0
FENCE = 3.0  # Tukey's far-out fence: Q3 + FENCE x IQR of the class's pair scores
MAX_SIMILAR = 5  # ids listed in a row's similar_to, nearest first
NOISE_K = 25  # copydetect's defaults: k-grams of 25 filtered characters, every one kept (window 1)
WINDOW = 1
MIN_OWN = 12.0  # weight of a file's own fingerprints (starter, idiom aside): less is too little to call copied


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


@dataclass
class Threshold:
    """Where this class's pairs stand: the score a pair must reach to be flagged, and what set it."""

    value: float
    median: float = 0.0  # of every pair's score
    fence: float = 0.0  # Q3 + FENCE x IQR of them
    students: int = 0  # files compared
    common: int = 0  # fingerprints set aside because most of the class holds them
    by_class: bool = False  # False: too small a class for a spread of its own (NEAR_IDENTICAL)


@dataclass
class Similarity:
    """A class's comparison: the flagged pairs, the threshold, and each file's fingerprints (for the shared lines)."""

    pairs: list[Pair]
    threshold: Threshold
    prints: dict[str, Prints] = field(default_factory=dict)
    weights: dict[int, float] = field(default_factory=dict)  # a fingerprint's weight, where it is not 1


def similar_pairs(sources: dict[str, str], starter: str = "", threshold: float | None = None) -> list[Pair]:
    """The pairs of students whose code stands out as alike (compare); threshold: a fixed score instead of the
    class's own (0 lists every pair)."""
    return compare(sources, starter, threshold).pairs


def compare(sources: dict[str, str], boilerplate: str = "", threshold: float | None = None) -> Similarity:
    """Every pair of the class scored, names normalised (copydetect) and the boilerplate set aside (the starter, the
    statement's code), each fingerprint weighted by how few of the class hold it; the pairs that stand out.

    A pair's score is the weight of the fingerprints the two share over the weight of each one's own, averaged over
    the two (1.0: all of either's own code is in the other); the same bytes score 1.0 (the untouched starter is
    not compared: write_outputs leaves it out). A student is never paired with their own other entry."""
    from copydetect import CodeFingerprint  # noqa: PLC0415 - numpy, matplotlib: only when used

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))  # copydetect warns per file
    import numpy as np  # noqa: PLC0415

    # the boilerplate by blocks and whole (the statement's snippets need not parse): every k-gram of it is set aside
    held = _prints(CodeFingerprint, boilerplate, []).hashes | _fingerprint(CodeFingerprint, boilerplate, []).hashes
    base: Any = np.array(sorted(held)) if boilerplate.strip() else []
    prints: dict[str, Prints] = {}
    for student, code in sorted(sources.items()):
        try:
            prints[student] = _prints(CodeFingerprint, code, base)
        except Exception:  # noqa: BLE001 - a file the tokenizer cannot read is simply not compared
            continue
    weights = _weights(prints)
    own = {s: sum(weights.get(h, 1.0) for h in fp.hashes) for s, fp in prints.items()}
    names, scored = list(prints), []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if not same_student(a, b):
                same = sources[a] == sources[b]  # the same bytes: what "judged once" found
                score = 1.0 if same else _score(prints[a], prints[b], own[a], own[b], weights)
                scored.append(Pair(a, b, round(score, 3)))
    limit = _threshold(scored, len(prints), sum(1 for w in weights.values() if w == 0.0), threshold)
    flagged = [p for p in scored if p.score >= limit.value and p.score > 0]
    return Similarity(sorted(flagged, key=lambda p: (-p.score, p.a, p.b)), limit, prints, weights)


def _weights(prints: dict[str, Prints]) -> dict[int, float]:
    """Each fingerprint's weight where it is not 1: one that n students hold weighs 1 / (n - 1), so that what two
    alone share counts fully, what three share half, and a way of writing the exercise that many share little; one
    that most of the class (more than COMMON) holds weighs 0. In a class smaller than MIN_CLASS every fingerprint
    weighs 1 (there is no spread to judge by)."""
    count = len(prints)
    if count < MIN_CLASS:
        return {}
    holders = Counter(h for fp in prints.values() for h in fp.hashes)
    return {h: 0.0 if n > COMMON * count else 1 / (n - 1) for h, n in holders.items() if n > 2}


def _score(first: Prints, second: Prints, own_a: float, own_b: float, weights: dict[int, float]) -> float:
    if min(own_a, own_b) < MIN_OWN:
        return 0.0  # (almost) nothing beyond the starter and the idiom: nothing to have copied
    shared = sum(weights.get(h, 1.0) for h in first.hashes & second.hashes)
    return (shared / own_a + shared / own_b) / 2


def _threshold(scored: list[Pair], students: int, common: int, fixed: float | None) -> Threshold:
    """The score a pair must reach: the far-out fence of the class's pair scores, at least FLOOR; NEAR_IDENTICAL for
    a class smaller than MIN_CLASS; `fixed` when given."""
    values = sorted(p.score for p in scored)
    median = statistics.median(values) if values else 0.0
    if fixed is not None:
        return Threshold(fixed, round(median, 3), 0.0, students, common)
    if students < MIN_CLASS or len(values) < 4:
        return Threshold(NEAR_IDENTICAL, round(median, 3), 0.0, students, common)
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    fence = q3 + FENCE * (q3 - q1)
    return Threshold(round(max(FLOOR, fence), 3), round(median, 3), round(fence, 3), students, common, by_class=True)


def shared_lines(similarity: Similarity, pair: Pair) -> tuple[set[int], set[int]]:
    """The lines (1-based) of each file of the pair that the fingerprints they share, and few others hold, cover."""
    first, second = similarity.prints[pair.a], similarity.prints[pair.b]
    shared = {h for h in first.hashes & second.hashes if similarity.weights.get(h, 1.0) > 0}
    return _lines(first, shared), _lines(second, shared)


def _lines(prints: Prints, hashes: set[int]) -> set[int]:
    """The raw lines that the k-grams of `hashes` cover (copydetect's filtered positions mapped back to each block,
    then to the file's lines)."""
    import numpy as np  # noqa: PLC0415

    lines: set[int] = set()
    for fingerprint, first_line in prints.parts:
        offsets, text = fingerprint.offsets, fingerprint.raw_code
        for start in sorted(i for h in hashes for i in fingerprint.hash_idx.get(h, [])):
            span = np.array([start, start + fingerprint.k - 1])
            if len(offsets):
                span = span + offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], span), 0, offsets.shape[0] - 1)]
            low, high = (text.count("\n", 0, int(x)) for x in span)
            lines.update(range(first_line + low, first_line + high + 1))
    return lines


@dataclass
class Prints:
    """A file's fingerprints: the union of its top-level blocks' (a function, a statement), each block fingerprinted
    alone, so that reordering the functions of a copy changes nothing; parts: (block's fingerprint, its first line)."""

    hashes: set[int]
    parts: list[tuple[Any, int]]


def _prints(cls: Any, code: str, boilerplate: Any) -> Prints:
    parts = [(_fingerprint(cls, block, boilerplate), line) for block, line in _blocks(code)]
    return Prints(set().union(*(fp.hashes for fp, _ in parts)) if parts else set(), parts)


def _fingerprint(cls: Any, code: str, boilerplate: Any) -> Any:
    return cls("submission.py", NOISE_K, WINDOW, boilerplate=boilerplate, fp=io.StringIO(code))


def _blocks(code: str) -> list[tuple[str, int]]:
    """The file's top-level statements with their decorators, each with its first line; the whole file when it does
    not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [(code, 1)]
    lines = code.splitlines(keepends=True)
    out = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = node.end_lineno or node.lineno
        out.append(("".join(lines[first - 1 : last]), first))
    return out or [(code, 1)]


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
