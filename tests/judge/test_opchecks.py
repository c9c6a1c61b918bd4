"""judge.checker.opchecks: opcheck's comparisons decided in the checker, as torch decides them, on observations made
by hand (the end-to-end agreement with torch's own checks is tests/oracle)."""

from __future__ import annotations

import torch

from judge.checker.opchecks import SUCCESS, fake_status, schema_status


def _meta(shape, stride, **kw):
    return {
        "is_tensor": True,
        "shape": shape,
        "stride": stride,
        "storage_offset": 0,
        "dtype": "torch.float32",
        "device": "cpu",
        "requires_grad": False,
        **kw,
    }


def _seen(real, fake):
    return {"real": {"out": [{"meta": real, "aliases": []}]}, "fake": {"out": [{"meta": fake, "aliases": []}]}}


def test_strides_of_dimensions_of_length_one_are_not_compared():
    """torch._prims_common.check_significant_strides: a dimension of length 1 (or a tensor with no element) may have
    any stride; a longer dimension's must agree."""
    assert fake_status(_seen(_meta([1, 6], [6, 1]), _meta([1, 6], [1, 1])), "ns::op") == SUCCESS
    assert fake_status(_seen(_meta([0, 6], [6, 1]), _meta([0, 6], [1, 0])), "ns::op") == SUCCESS
    wrong = fake_status(_seen(_meta([2, 6], [6, 1]), _meta([2, 6], [1, 2])), "ns::op")
    assert wrong.startswith("MetadataMismatchError") and "stride differs" in wrong


def _schema(is_write=False):
    return {"arguments": [{"name": "x", "is_write": is_write}], "returns": []}


def _after(sent, written, value=None):
    return {
        "meta": {"shape": list(sent.shape), "dtype": str(sent.dtype)},
        "same_storage": True,
        "written": written,
        "value": sent.clone() if value is None else value,
    }


def test_a_write_that_puts_the_values_back_is_still_a_write():
    sent = torch.arange(4.0)
    restored = {"out": [], "args": [_after(sent, written=True)]}
    status = schema_status(restored, _schema(), [sent])
    assert "is not defined as mutable but was mutated" in status and "do not write it at all" in status
    assert schema_status(restored, _schema(is_write=True), [sent]) == SUCCESS
    untouched = {"out": [], "args": [_after(sent, written=False)]}
    assert schema_status(untouched, _schema(), [sent]) == SUCCESS
    changed = {"out": [], "args": [_after(sent, written=True, value=sent + 1)]}
    assert "its values changed in the call" in schema_status(changed, _schema(), [sent])
