"""`judge status`: queue depths, live workers and their queues, GPU slots, the oldest waiting submission, and what
is stranded (queued with nothing taking it, or held by a worker that is gone)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import redis

from judge.queue.limits import visibility_timeout_s
from judge.queue.names import QUEUES
from judge.queue.reaper import WAITING_S, overdue, stranded
from judge.queue.registry import live_workers
from judge.queue.settings import QueueSettings
from judge.queue.store import SqlStore, now


def gather(settings: QueueSettings, judge: Any) -> dict[str, Any]:
    store = SqlStore(settings.database())
    try:
        counts = store.counts()
        out: dict[str, Any] = {
            "database": {"status": counts.by_status},
            "oldest_waiting_s": _age(counts.oldest_queued),
        }
        if settings.queue_url:
            client = redis.Redis.from_url(settings.queue_url, socket_timeout=5)
            out["queues"] = {name: int(client.llen(name)) for name in QUEUES}
            workers = live_workers(client)
            out["workers"] = [w.__dict__ for w in workers]
            out["gpu_slots"] = sum(w.gpu_slots for w in workers)
            found = overdue(store, settings, judge, visibility_timeout_s(settings, judge.problems()))
            out["overdue"] = {"stuck_running": [s.id for s in found.stuck], "never_sent": found.unsent}
            lost = stranded(store, client)
            out["stranded"] = {"waiting": lost.waiting, "held_by_dead": lost.held_by_dead}
            client.close()
        return out
    finally:
        store.close()


def _age(moment: datetime | None) -> float | None:
    return None if moment is None else round((now() - moment).total_seconds(), 1)


def render(info: dict[str, Any]) -> str:
    lines = [f"submissions by status: {info['database']['status'] or 'none'}"]
    oldest = info["oldest_waiting_s"]
    lines.append(f"oldest waiting submission: {'none' if oldest is None else f'{oldest} s'}")
    if "queues" not in info:
        lines.append("queue: none (PRACTICE_QUEUE_URL unset: the web service judges in-process)")
        return "\n".join(lines)
    lines.append("queue depths (broker): " + ", ".join(f"{k} {v}" for k, v in info["queues"].items()))
    lines.append(f"live workers: {len(info['workers'])}, GPU slots: {info['gpu_slots']}")
    for w in info["workers"]:
        lines.append(
            f"  {w['name']}: queue {w['queue']}, {w['busy']}/{w['concurrency']} busy, "
            f"{w['busy_seconds']:.0f} s judged, canary: {w['canary']}"
        )
    lost = info["stranded"]
    lines.append(
        f"stranded, queued over {WAITING_S:.0f} s with nothing taking them (the reaper sends again): "
        f"{lost['waiting'] or 'none'}"
    )
    lines.append(
        f"stranded, running on a worker that is gone (the reaper takes back): {lost['held_by_dead'] or 'none'}"
    )
    stuck, unsent = info["overdue"]["stuck_running"], info["overdue"]["never_sent"]
    lines.append(f"running past hard limit + visibility timeout (the reaper re-dispatches): {stuck or 'none'}")
    lines.append(f"stored but never sent (the reaper sends): {unsent or 'none'}")
    return "\n".join(lines)
