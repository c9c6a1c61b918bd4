"""Sub-commands `judge worker`, `judge db upgrade` and `judge status` (the queue code is imported lazily)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from judge.extras import require


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _worker(args: Any, settings: Any) -> int:
    require("scale", "judge worker")
    from judge.queue.worker import run_worker  # noqa: PLC0415 - heavy: celery, the judge

    return run_worker(args.queue, args.concurrency, args.name, args.log_level)


def _one_shot(who: str, queue: Any, action: Any) -> int:
    """Run a one-shot command's action; where the database or the broker is unreachable, waiting makes no sense:
    one line naming which and where, and exit 1 (never a traceback)."""
    from judge.queue.waiting import unreachable_line  # noqa: PLC0415

    try:
        return int(action())
    except Exception as exc:
        line = unreachable_line(exc, who, queue.database(), queue.queue_url)
        if line is None:
            raise
        print(line, flush=True)
        return 1


def _db_upgrade(args: Any, settings: Any) -> int:
    from judge.queue.settings import QueueSettings  # noqa: PLC0415
    from judge.queue.store import make_engine, migrate, revisions  # noqa: PLC0415

    queue = QueueSettings()

    def upgrade() -> int:
        engine = make_engine(queue.database())
        try:
            before, _ = revisions(engine)
            migrate(engine)
            after, _ = revisions(engine)
        finally:
            engine.dispose()
        print(f"database schema: {before or 'empty'} -> {after} (head)")
        return 0

    return _one_shot("judge db upgrade", queue, upgrade)


def _status(args: Any, settings: Any) -> int:
    require("scale", "judge status")
    from judge.problem.folders import ProblemSet  # noqa: PLC0415
    from judge.queue.settings import QueueSettings  # noqa: PLC0415
    from judge.queue.status import gather, render  # noqa: PLC0415

    class Problems:  # the reaper's view of the judge: problems and their limits, no zygotes
        def __init__(self) -> None:
            self.set = ProblemSet(settings.problems_dir)

        def problems(self) -> list[Any]:
            return self.set.all()

        def problem(self, problem_id: str) -> Any:
            return self.set.get(problem_id)

    queue = QueueSettings()

    def show() -> int:
        info = gather(queue, Problems())
        print(json.dumps(info, indent=2, default=str) if args.json else render(info))
        return 0

    return _one_shot("judge status", queue, show)


def register(sub: Any) -> None:
    worker = sub.add_parser("worker", help="judge submissions from a queue (PRACTICE_QUEUE_URL), with a warm judge")
    worker.add_argument("--queue", choices=["cpu", "gpu"], default="cpu", help="which queue to take tasks from")
    worker.add_argument("--concurrency", type=_positive, default=1, help="judgements at once (threads; default 1)")
    worker.add_argument("--name", default=None, help="worker name (default: queue-host-pid)")
    worker.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    worker.set_defaults(handler=_worker)
    db = sub.add_parser("db", help="the web service's database (PRACTICE_DATABASE_URL)")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    upgrade = db_sub.add_parser("upgrade", help="migrate the schema to this version (run once before starting)")
    upgrade.set_defaults(handler=_db_upgrade)
    status = sub.add_parser("status", help="queue depths, live workers, GPU slots, the oldest waiting submission")
    status.add_argument("--json", action="store_true", help="one JSON object")
    status.set_defaults(handler=_status)
