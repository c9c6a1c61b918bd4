"""Tiers of a problem's tests: `@pytest.mark.gpu` cases form the GPU tier, the others the CPU tier.

The judge runs each tier on a runner that can run it. A tier with no runner here is not failed: its cases
are reported `skipped` with the reason below, and the verdict covers the cases that ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from judge.checker.shards import partition
from judge.problem.tiers import CPU, GPU, NEEDS_GPU, RAN, SKIPPED, TIERS  # noqa: F401 - re-exported for the checker


def tier_of(item: pytest.Item) -> str:
    return GPU if item.get_closest_marker(GPU) is not None else CPU


class TierPlugin:
    """In the checker: keep the cases of the tiers this pass runs (of its shard, when a Run is split over
    pairs), mark those of tiers without a runner skipped."""

    def __init__(
        self,
        run: Iterable[str],
        skip: Iterable[str],
        shard: tuple[int, ...] = (0, 1),
        costs: Mapping[str, float] | None = None,
    ):
        self.run, self.skip = set(run), set(skip)
        self.shard, self.costs = tuple(shard), dict(costs or {})
        self.among = 0  # cases of this pass across every shard, when it is split (what the learner is told)

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept, dropped = [], []
        for item in items:
            tier = tier_of(item)
            if tier in self.skip:
                item.add_marker(pytest.mark.skip(reason=NEEDS_GPU))
            if tier in self.run or tier in self.skip:
                kept.append(item)
            else:
                dropped.append(item)  # another pass (on another runner) runs these
        mine, shards = self.shard
        if shards > 1:  # a Run split over pairs judging at once: this checker keeps its own shard (shards.py)
            self.among = len(kept)
            positions = partition([item.nodeid for item in kept], self.costs, shards)[mine]
            dropped += kept[: positions.start] + kept[positions.stop :]
            kept = kept[positions.start : positions.stop]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
