"""Build the judge's images here, with no image registry: a debootstrap base, then the CPU runner image.

base:        a minimal Debian rootfs (debootstrap, from the apt mirror) with the runner's user, `docker import`ed.
runner-env:  FROM base + this host's Python and the judge's virtual environment (torch...), at /opt.
runner-cpu:  FROM runner-env + the judge's own packages (judge/, sandbox/), entrypoint sandbox.listen.
Each tag carries a hash of what went into it; an image whose tag exists already is not built again.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.docker import ROLE_LABEL, client

if TYPE_CHECKING:
    from docker import DockerClient

Say = Callable[[str], None]  # where progress lines go (print)

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
APP_PACKAGES = ("judge", "sandbox")
# Distributions no worker needs: playwright (browser tests, 165 MB) and the queue's clients. torch's inductor
# imports redis whenever it is installed, and redis-py fails to import on the image's Python (its ssl module
# differs), which would end the worker zygote at preload.
SKIP_DISTS = ("playwright", "redis", "celery", "kombu", "billiard", "psycopg", "psycopg-binary", "schemathesis")
USER_LINE, GROUP_LINE = "judge:x:10001:10001:judge:/tmp:/usr/sbin/nologin\n", "judge:x:10001:\n"
RECIPE = "v1"


def build_all(suite: str, mirror: str, force: bool = False, say: Callable[[str], None] = print) -> str:
    docker = client()
    base = _base(docker, suite, mirror, force, say)
    env = _runner_env(docker, base, force, say)
    return _runner_cpu(docker, env, force, say)


def _exists(docker: DockerClient, tag: str) -> bool:
    return bool(docker.images.list(name=tag))


def _timed(say: Say, what: str, action: Callable[[], str]) -> str:
    started = time.monotonic()
    result = action()
    say(f"built {what} in {time.monotonic() - started:.0f}s")
    return result


def _base(docker: DockerClient, suite: str, mirror: str, force: bool, say: Say) -> str:
    tag = f"practice-judge/base:{suite}-{_hash(RECIPE, suite, USER_LINE)}"
    if _kept(docker, tag, force, say):
        return tag
    if os.geteuid() != 0 or not shutil.which("debootstrap"):
        raise SystemExit("building the base image needs root and debootstrap (apt-get install debootstrap)")
    return _timed(say, tag, lambda: _debootstrap_import(docker, tag, suite, mirror))


def host_apt_mirror() -> str | None:
    """The first Debian mirror this host's apt uses (deb822 `URIs:` or a one-line `deb URL ...`), if any."""
    for path in sorted(Path("/etc/apt").glob("sources.list.d/*.sources")) + [Path("/etc/apt/sources.list")]:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split()
            if words[:1] == ["URIs:"] and len(words) > 1 and not words[1].endswith("-security"):
                return words[1]
            if words[:1] == ["deb"] and len(words) > 2 and not words[1].startswith("["):
                return words[1]
    return None


def _debootstrap_import(docker: DockerClient, tag: str, suite: str, mirror: str | None) -> str:
    mirror = mirror or host_apt_mirror()  # the registry apt reaches here; None: debootstrap's own default
    with tempfile.TemporaryDirectory(prefix="pj-base-", dir="/var/tmp") as work:
        root = Path(work) / "rootfs"
        subprocess.run(
            ["debootstrap", "--variant=minbase", suite, str(root), *([mirror] if mirror else [])],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with open(root / "etc/passwd", "a") as fh:
            fh.write(USER_LINE)
        with open(root / "etc/group", "a") as fh:
            fh.write(GROUP_LINE)
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(root / cache, ignore_errors=True)
        archive = Path(work) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(archive), "."], check=True)
        repository, version = tag.split(":")
        docker.api.import_image_from_file(str(archive), repository=repository, tag=version)
    return tag


def _runner_env(docker: DockerClient, base: str, force: bool, say: Say) -> str:
    dists = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in metadata.distributions()
        if d.metadata["Name"] not in SKIP_DISTS and d.metadata["Name"] != "practice-judge"
    )
    tag = f"practice-judge/runner-env:{_hash(RECIPE, base, sys.version, *dists)}"
    if _kept(docker, tag, force, say):
        return tag
    dockerfile = (
        f"FROM {base}\nCOPY python /opt/python\nCOPY venv /opt/venv\n"
        "ENV PATH=/opt/venv/bin:/opt/python/bin:/usr/bin:/bin LD_LIBRARY_PATH=/opt/python/lib "
        "HOME=/tmp USER=judge PYTHONDONTWRITEBYTECODE=1\n"
    )
    return _timed(say, tag, lambda: _docker_build(docker, tag, dockerfile, _env_files))


def _kept(docker: DockerClient, tag: str, force: bool, say: Say) -> bool:
    """The image is built already, and not to be built again: said, and kept."""
    if _exists(docker, tag) and not force:
        say(f"{tag} exists")
        return True
    return False


def _runner_cpu(docker: DockerClient, env: str, force: bool, say: Say) -> str:
    digest = _hash(RECIPE, env, *(_tree_hash(REPO_ROOT / name) for name in APP_PACKAGES))
    tag = f"practice-judge/runner-cpu:{digest}"
    if _kept(docker, tag, force, say):
        return tag
    dockerfile = (
        f"FROM {env}\nCOPY app /app\nENV PYTHONPATH=/app\nWORKDIR /app\nUSER 10001:10001\n"
        f"LABEL {ROLE_LABEL}=runner-cpu\n"
        'ENTRYPOINT ["/opt/venv/bin/python", "-m", "sandbox.listen"]\n'
    )
    _timed(say, tag, lambda: _docker_build(docker, tag, dockerfile, _app_files))
    _prune(docker, tag, say)
    return tag


def _prune(docker: DockerClient, kept: str, say: Say) -> None:
    """Older CPU runner images (one per change of the judge's code) go; one a container still uses stays."""
    import docker as sdk  # noqa: PLC0415

    for image in docker.images.list(filters={"label": f"{ROLE_LABEL}=runner-cpu"}):
        if kept not in image.tags and image.id is not None:
            try:
                docker.images.remove(image.id)
                say(f"removed older {', '.join(image.tags) or image.short_id}")
            except sdk.errors.APIError:
                pass


def _docker_build(docker: DockerClient, tag: str, dockerfile: str, add_files: Callable[[tarfile.TarFile], None]) -> str:
    with tempfile.TemporaryFile(dir="/var/tmp") as context:
        with tarfile.open(fileobj=context, mode="w") as tar:
            data = dockerfile.encode()
            info = tarfile.TarInfo("Dockerfile")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            add_files(tar)
        context.seek(0)
        docker.images.build(fileobj=context, custom_context=True, tag=tag, rm=True, network_mode="none")
    return tag


def _readable(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Owned by root, readable (and where executable, runnable) by the runner's user."""
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mode |= 0o555 if info.isdir() or info.mode & 0o100 else 0o444
    return info


def _env_files(tar: tarfile.TarFile) -> None:
    """This host's interpreter (without its own site-packages and test suite) and the venv's packages."""
    prefix = Path(sys.base_prefix)
    stdlib = Path(sysconfig.get_paths(vars={"base": str(prefix)})["stdlib"])
    skip = {str(stdlib / "site-packages"), str(stdlib / "test"), str(prefix / "include"), str(prefix / "share")}
    tar.add(str(prefix), "python", filter=lambda info: None if _skipped(info, prefix, skip) else _readable(info))
    site = Path(sysconfig.get_paths()["purelib"])
    drop = _dropped(site)
    tar.add(
        str(site),
        "venv/lib/python3.11/site-packages",
        filter=lambda info: None if info.name.split("/")[4:5] and info.name.split("/")[4] in drop else _readable(info),
    )
    for folder in ("venv", "venv/bin"):
        info = tarfile.TarInfo(folder)
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(info)
    _link(tar, "venv/bin/python", f"/opt/python/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    _text(
        tar,
        "venv/pyvenv.cfg",
        f"home = /opt/python/bin\ninclude-system-site-packages = false\nversion = {sys.version.split()[0]}\n",
    )


def _skipped(info: tarfile.TarInfo, prefix: Path, skip: set[str]) -> bool:
    real = str(prefix / info.name.removeprefix("python").lstrip("/"))
    return any(real == s or real.startswith(s + "/") for s in skip)


def _dropped(site: Path) -> set[str]:
    """Top-level site-packages entries not copied: skipped distributions and this project's editable install."""
    names = {p.name for p in site.iterdir() if "editable" in p.name or p.name.startswith("practice_judge")}
    for dist in metadata.distributions(path=[str(site)]):
        if dist.metadata["Name"] in SKIP_DISTS:
            names |= {str(f).split("/")[0] for f in dist.files or ()}
    return names


def _app_files(tar: tarfile.TarFile) -> None:
    for name in APP_PACKAGES:
        tar.add(
            str(REPO_ROOT / name),
            f"app/{name}",
            filter=lambda info: None if "__pycache__" in info.name else _readable(info),
        )


def _link(tar: tarfile.TarFile, name: str, target: str) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = tarfile.SYMTYPE, target, 0o777
    tar.addfile(info)


def _text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")) + sorted(root.rglob("*.ini")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
