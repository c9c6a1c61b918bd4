"""`judge serve [--host 127.0.0.1] [--port 8000]`: the browser practice service (imports web lazily)."""

from __future__ import annotations


def _serve(args, settings) -> int:
    import uvicorn  # noqa: PLC0415 - heavy: only when serving

    from web.app import create_app  # noqa: PLC0415

    print(f"practice-judge: open http://{args.host}:{args.port}/ in your browser (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)
    return 0


def register(sub) -> None:
    serve = sub.add_parser("serve", help="serve the browser practice page and the judging API")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    serve.set_defaults(handler=_serve)
