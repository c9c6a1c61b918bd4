"""`judge status`: the store's queued count beside the broker's depth, live workers and their queues, GPU slots, the
oldest waiting submission, and what is stranded (as the broker and the heartbeats confirm it)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import redis

from judge.queue.broker import Broker
from judge.queue.celery_app import make_celery
from judge.queue.limits import visibility_timeout_s
from judge.queue.reaper import KINDS, stranded, stuck
from judge.queue.registry import live_workers
from judge.queue.settings import QueueSettings
from judge.queue.store import SqlStore, now


def gather(settings: QueueSettings, judge: Any) -> dict[str, Any]:
    """Raises if the store or the broker cannot be reached (`judge status` says which, and where)."""
    store = SqlStore(settings.database())
    try:
        counts = store.counts()
        out: dict[str, Any] = {
            "database": {"status": counts.by_status},
            "oldest_waiting_s": _age(counts.oldest_queued),
        }
        if settings.queue_url:
            _broker_part(out, settings, judge, store)
        return out
    finally:
        store.close()


def _broker_part(out: dict[str, Any], settings: QueueSettings, judge: Any, store: SqlStore) -> None:
    visibility = visibility_timeout_s(settings, judge.problems())
    app = make_celery(settings, visibility)
    client = redis.Redis.from_url(settings.queue_url or "", socket_timeout=5)
    try:
        broker = Broker(app)
        held = broker.look()
        out["queues"] = held.depth
        out["broker"] = {"waiting": sum(held.depth.values()), "delivered": sum(map(len, held.delivered.values()))}
        workers = live_workers(client)
        out["workers"] = [w.model_dump() for w in workers]
        out["gpu_slots"] = sum(w.gpu_slots for w in workers)
        out["stuck_running"] = [s.id for s in stuck(store, settings, judge, visibility)]
        lost = stranded(store, broker, client)
        out["stranded"] = {kind: getattr(lost, kind) for kind in KINDS}
    finally:
        client.close()
        app.close()


def _age(moment: datetime | None) -> float | None:
    return None if moment is None else round((now() - moment).total_seconds(), 1)


def render(info: dict[str, Any]) -> str:
    by_status = info["database"]["status"]
    lines = [f"submissions by status: {by_status or 'none'}"]
    oldest = info["oldest_waiting_s"]
    lines.append(f"oldest waiting submission: {'none' if oldest is None else f'{oldest} s'}")
    if "queues" not in info:
        lines.append("queue: none (PRACTICE_QUEUE_URL unset: the web service judges in-process)")
        return "\n".join(lines)
    broker = info["broker"]
    depths = ", ".join(f"{k} {v}" for k, v in info["queues"].items())
    lines.append(
        f"waiting: {by_status.get('queued', 0)} queued in the store, {broker['waiting']} messages in the broker "
        f"({depths}), {broker['delivered']} delivered to workers and not yet acknowledged"
    )
    lines.append(f"live workers: {len(info['workers'])}, GPU slots: {info['gpu_slots']}")
    for w in info["workers"]:
        lines.append(
            f"  {w['name']}: queue {w['queue']}, {w['busy']}/{w['concurrency']} busy, "
            f"{w['busy_seconds']:.0f} s judged, canary: {w['canary']}"
        )
    for kind, what in KINDS.items():
        lines.append(f"stranded, {what} (the reaper puts it back): {info['stranded'][kind] or 'none'}")
    lines.append(
        f"running past hard limit + visibility timeout (the reaper puts it back): {info['stuck_running'] or 'none'}"
    )
    return "\n".join(lines)
