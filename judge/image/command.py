"""`judge image build`: the sub-command; the work (and the docker SDK) is imported only when it runs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.settings import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    image = sub.add_parser("image", help="container images of the judge's runners")
    verbs = image.add_subparsers(dest="image_command", required=True)
    build = verbs.add_parser(
        "build",
        help="build the base image (debootstrap) and the CPU runner image, offline "
        "from any image registry; skipped when an image of the same content exists",
    )
    build.add_argument("--suite", default="bookworm", help="Debian release of the base image")
    build.add_argument(
        "--mirror",
        default=None,
        help="Debian mirror for debootstrap (default: the first one in "
        "this host's apt sources, else debootstrap's own default)",
    )
    build.add_argument("--force", action="store_true", help="rebuild even when an image of the same content exists")
    build.set_defaults(handler=_build)


def _build(args: argparse.Namespace, settings: Settings) -> int:
    from judge.image.build import build_all  # noqa: PLC0415 - docker SDK only when building

    tag = build_all(args.suite, args.mirror, force=args.force, say=print)
    print(tag)
    return 0
