"""How a Run's cases are split over worker/checker pairs that judge at once (one grading pass per shard).

Each pair's checker collects every case and keeps its own shard: `partition` is deterministic, so every checker
computes the same split from the same collected ids and the same costs, and no case runs twice or not at all.
Shards are contiguous runs of the collection order, so the merged cases (and each worker's output) keep it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def partition(ids: Sequence[str], costs: Mapping[str, float], shards: int) -> list[range]:
    """Positions of `ids` per shard: `shards` contiguous runs, covering every position once.

    With a cost (seconds, from an earlier judgement of the problem) for every id, each cut falls where the
    running total is nearest its share, so the shards end close together, which is the point of splitting.
    Without, runs of equal length."""
    count = len(ids)
    shards = max(shards, 1)
    if all(case in costs for case in ids) and count:
        weights = [max(costs[case], 0.0) for case in ids]
    else:
        weights = [1.0] * count
    total = sum(weights) or 1.0
    cuts, running, position = [0], 0.0, 0
    for k in range(1, shards):
        target = total * k / shards
        while position < count and running + weights[position] / 2 < target:
            running += weights[position]
            position += 1
        cuts.append(max(position, cuts[-1]))
    cuts.append(count)
    return [range(cuts[k], cuts[k + 1]) for k in range(shards)]
