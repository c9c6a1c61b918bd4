"""What the worker may read, must not see, and gets bound back inside hidden folders."""

from __future__ import annotations

import os
import sys

from sandbox.paths import REPO_ROOT, host_view


def test_repository_hidden_but_worker_packages_kept():
    view = host_view()
    assert view.hidden(REPO_ROOT)  # by its own cover, or by a hidden parent such as /tmp
    assert view.hidden(os.path.join(REPO_ROOT, "problems"))
    assert view.hidden(os.path.join(REPO_ROOT, "tests"))
    for package in ("judge", "sandbox"):
        assert os.path.join(REPO_ROOT, package) in view.read
        assert not view.hidden(os.path.join(REPO_ROOT, package, "__init__.py"))
    assert REPO_ROOT not in view.read


def test_interpreter_readable():
    view = host_view()
    for path in (sys.prefix, os.path.dirname(os.__file__)):
        real = os.path.realpath(path)
        assert any(real == r or real.startswith(r.rstrip("/") + "/") for r in view.read), real
        assert not view.hidden(real)


def test_secrets_and_extra_paths_hidden(tmp_path):
    secret = tmp_path / "problems"
    secret.mkdir()
    view = host_view([str(secret)])
    assert view.hidden(str(secret / "100-custom-op" / "tests" / "test_hidden.py"))
    if os.path.exists("/etc/shadow"):
        assert view.hidden("/etc/shadow")
    assert view.hidden("/root/.ssh/id_rsa")
    assert "/root" not in view.read and "/tmp" not in view.read
