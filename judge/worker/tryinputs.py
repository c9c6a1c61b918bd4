"""The probes of a Try's input builder (judge.grading.trying): the worker imports the module the judge made from the
learner's input (judge.problem.trying.builder_source) in place of a solution, and this hands its values back.

Nothing of a problem's is here, nor any learner file: the builder's worker holds the learner's input alone.
"""

from judge.worker.opobserve import plain as _plain


def inputs(solution):
    """The arguments the input built (`ARGS`), tensors as plain CPU copies; anything else as it is (the checker
    refuses what is not plain data)."""
    built = solution.ARGS
    return {str(name): (_plain(value) if hasattr(value, "detach") else value) for name, value in built.items()}
