"""Imported once by the checker zygote (judge.service.CHECKER_PRELOAD): the modules every forked checker otherwise
imported again for itself, about 16 ms of each checker's start here.

pytest imports its default plugins (junitxml with xml.etree, pastebin, stepwise...) when a checker makes its
config, and the checks import opcheck's and gradcheck's deciders and torch's serialization config when a problem's
tests first use them. None of them holds anything of a judgement's: they are imported, not run. Not readline, which
a checker imports too: the zygote may hold the learner's terminal, and readline may write to it when imported.
"""

from __future__ import annotations

import encodings.unicode_escape  # noqa: F401 - the reports' escapes
import importlib

import torch.utils.serialization  # noqa: F401
from _pytest.config import default_plugins

import judge.checker.gradchecks
import judge.checker.opchecks  # noqa: F401

for _name in ("_argcomplete", *default_plugins):
    try:
        importlib.import_module(f"_pytest.{_name}")
    except ImportError:  # a plugin this pytest does not have: the checker's own config then skips it too
        pass
