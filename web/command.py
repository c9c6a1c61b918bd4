"""`judge serve [--host 127.0.0.1] [--port 8000]`: the browser practice service (imports web lazily)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.settings import Settings


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn  # noqa: PLC0415 - heavy: only when serving

    from judge.queue.store import Unmigrated  # noqa: PLC0415
    from judge.queue.waiting import schema_checked  # noqa: PLC0415
    from web.app import create_app  # noqa: PLC0415
    from web.config import WebSettings  # noqa: PLC0415

    url = WebSettings().database()
    if not url.startswith("sqlite"):  # only the SQLite default migrates itself: refuse before listening
        try:
            schema_checked(url, "judge serve")  # waits while the database is unreachable, saying so once
        except Unmigrated as exc:
            print(f"judge serve: {exc.message}", flush=True)
            return 2

    print(f"practice-judge: open http://{args.host}:{args.port}/ in your browser (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="serve the browser practice page and the judging API")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    serve.set_defaults(handler=_serve)
