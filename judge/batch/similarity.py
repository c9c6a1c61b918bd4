"""Near-identical submissions, found by copydetect's winnowing with the starter as boilerplate."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

NEAR_IDENTICAL = 0.8  # both files share at least this fraction of their (non-starter) fingerprints, on average
NOISE_K = 25  # copydetect's defaults: k-grams of 25 filtered characters, every one kept (window 1)
WINDOW = 1
MIN_OWN = 40  # fingerprints left once the starter is removed: fewer is too little code to call copied


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

    boilerplate = np.array(sorted(_fingerprint(CodeFingerprint, starter, []).hashes)) if starter.strip() else []
    prints = {}
    for student, code in sorted(sources.items()):
        try:
            prints[student] = _fingerprint(CodeFingerprint, code, boilerplate)
        except Exception:  # noqa: BLE001 - a file the tokenizer cannot read is simply not compared
            continue
    names, pairs = list(prints), []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            score = 1.0 if sources[a] == sources[b] else _score(compare_files, prints[a], prints[b])
            if score >= threshold:
                pairs.append(Pair(a, b, round(score, 3)))
    return sorted(pairs, key=lambda p: (-p.score, p.a, p.b))


def _fingerprint(cls, code: str, boilerplate):
    return cls("submission.py", NOISE_K, WINDOW, boilerplate=boilerplate, fp=io.StringIO(code))


def _score(compare, first, second) -> float:
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
    out: dict[str, list[str]] = {}
    for pair in pairs:
        out.setdefault(pair.a, []).append(pair.b)
        out.setdefault(pair.b, []).append(pair.a)
    return {k: sorted(v) for k, v in out.items()}
