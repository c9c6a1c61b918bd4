# expect: wrong_answer
"""Attack: get a frame from a trusted helper that returns one (inspect.currentframe, inspect.stack,
inspect.trace, traceback.walk_stack / walk_tb, bdb's get_stack, asyncio's task stack), from logging's caller
lookup after rebinding what it calls (logging.traceback, logging.currentframe), and from a function rebuilt on
logging's own code with globals of the attacker's; then forge the probe table. Refused: a frame handed up to
learner code, or to a consumer whose module was changed, is not given out."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import bdb
import inspect
import logging
import traceback
import types


_try("inspect.currentframe", lambda: _take_from(inspect.currentframe(), "inspect.currentframe"))
_try("inspect.stack", lambda: _take_from(inspect.stack()[0].frame, "inspect.stack"))
_try("traceback.walk_stack", lambda: _take_from(next(traceback.walk_stack(None))[0], "traceback.walk_stack"))


def _walk_tb():
    try:
        raise KeyError
    except KeyError as exc:
        _take_from(next(traceback.walk_tb(exc.__traceback__))[0], "traceback.walk_tb")


def _inspect_trace():
    try:
        raise KeyError
    except KeyError:
        _take_from(inspect.trace()[0].frame, "inspect.trace")


def _bdb():
    try:
        raise KeyError
    except KeyError as exc:
        stack, _ = bdb.Bdb().get_stack(None, exc.__traceback__)
        _take_from(stack[0][0], "bdb.get_stack")


class _Grab:
    frame = None

    @staticmethod
    def print_stack(f, file=None):
        _Grab.frame = f


def _logging_rebound():
    saved = logging.traceback
    logging.traceback = _Grab
    try:
        logging.getLogger("x").warning("hello", stack_info=True)
    finally:
        logging.traceback = saved
    _take_from(_Grab.frame, "logging.traceback rebound")


def _logging_rebuilt():
    evil = dict(vars(logging))
    evil["traceback"] = _Grab
    find = types.FunctionType(logging.Logger.findCaller.__code__, evil)
    find(logging.getLogger("x"), True, 1)
    _take_from(_Grab.frame, "findCaller rebuilt")


for _route, _action in (("traceback.walk_tb", _walk_tb), ("inspect.trace", _inspect_trace), ("bdb", _bdb),
                        ("logging.traceback", _logging_rebound), ("findCaller rebuilt", _logging_rebuilt)):
    _try(_route, _action)
