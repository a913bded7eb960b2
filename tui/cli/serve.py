"""`tandem serve-demo`: the demo agent over HTTP + SSE for any AG-UI client."""

from __future__ import annotations

import argparse
import sys

__all__ = ["run_serve_demo"]


def run_serve_demo(args: argparse.Namespace) -> int:
    """Serve the demo agent with uvicorn until interrupted. Binds to loopback unless told otherwise."""
    import uvicorn

    from tandem.core.agui.demo import create_app

    if args.speed < 0:
        print("tandem serve-demo: --speed must be >= 0", file=sys.stderr)
        return 2
    print(f"Tandem demo agent on http://{args.host}:{args.port}/  (connect with: tandem --url http://{args.host}:{args.port}/)")
    uvicorn.run(create_app(speed=args.speed), host=args.host, port=args.port, log_level="warning")
    return 0
