"""judge.problem.backwards: the lines where a backward handed to register_autograd returns a list."""

from __future__ import annotations

import textwrap

from judge.problem.backwards import list_returns


def lines(source: str) -> list[int]:
    return list_returns(textwrap.dedent(source))


def test_a_registered_backward_returning_a_list_is_found():
    assert lines(
        """
        def backward(ctx, g):
            if ctx.flag:
                return [g, None]
            return (g, None)

        op.register_autograd(backward, setup_context=setup)
        """
    ) == [4]


def test_every_way_of_registering_it_counts():
    by_keyword = "def bw(ctx, g):\n    return [g]\nop.register_autograd(backward=bw)\n"
    by_qualname = "def bw(ctx, g):\n    return [x for x in g]\ntorch.library.register_autograd('ns::op', bw)\n"
    assert lines(by_keyword) == [2] and lines(by_qualname) == [2]


def test_only_the_backward_itself_and_only_lists():
    source = """
    def helper():
        return [1, 2]

    def backward(ctx, g):
        def inner():
            return [g]
        return inner()[0], None

    op.register_autograd(backward)
    """
    assert lines(source) == []  # a helper's list and a nested function's list are not the backward's


def test_nothing_registered_or_nothing_parsable_finds_nothing():
    assert lines("def backward(ctx, g):\n    return [g]\n") == []
    assert lines("def backward(:\n") == []
