"""judge.report.feedback.compare: what a failing value check tells the learner, in both languages."""

import pytest
import torch

from judge.report.feedback import assert_close, compare, decode

WANT = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) / 7


def test_close_values_are_none():
    assert compare(WANT.float(), WANT, rtol=1e-5, atol=1e-6) is None
    assert compare(torch.empty(0, 3), torch.empty(0, 3), rtol=0, atol=0) is None


def test_wrong_values_name_shape_dtype_count_first_and_largest_error_and_the_tolerance():
    got = WANT.float().clone()
    got[0, 1, 2] += 0.01
    got[1, 2, 3] += 0.5
    text = compare(got, WANT, rtol=1e-5, atol=1e-6)
    assert text is not None
    assert "shape [2, 3, 4], dtype float32" in text.en and "2 of 24 elements" in text.en
    assert "the first at [0, 1, 2]" in text.en and "largest error is 0.5, at [1, 2, 3]" in text.en
    assert "1e-06 + 1e-05·|expected|" in text.en
    assert "形状 [2, 3, 4]，dtype float32" in text.zh and "第一个在 [0, 1, 2]" in text.zh and "最大误差 0.5" in text.zh


def test_a_single_bad_element_is_said_once():
    got = WANT.clone()
    got[1, 0, 0] = 9.0
    text = compare(got, WANT, rtol=0, atol=1e-9)
    assert text is not None and "at [1, 0, 0], which is also the first element off" in text.en
    assert "got 9, expected 1.71429" in text.en


def test_nan_is_named_as_nan_never_as_a_largest_error():
    got = WANT.clone()
    got[0, 0, 3] = float("nan")
    got[1, 1, 1] = float("nan")
    text = compare(got, WANT, rtol=1e-5, atol=1e-6)
    assert text is not None
    assert "2 of 24 elements are NaN, the first at [0, 0, 3]" in text.en and "NaN" in text.zh
    assert "largest error" not in text.en and "nan" not in text.en.replace("NaN", "")


def test_an_expected_nan_matches_only_nan():
    want = torch.tensor([1.0, float("nan")])
    assert compare(want.clone(), want, rtol=0, atol=0) is None
    text = compare(torch.tensor([1.0, 2.0]), want, rtol=0, atol=0)
    assert text is not None and "1 of 2 elements" in text.en


def test_shape_dtype_and_not_a_tensor():
    assert "the shape is [3, 4]; it should be [2, 3, 4]" in str(compare(WANT[0], WANT, rtol=1, atol=1))
    text = compare(WANT.float(), WANT, rtol=1, atol=1, dtype=torch.bfloat16)
    assert text is not None and "dtype is float32; it should be bfloat16" in text.en and "应为 bfloat16" in text.zh
    assert "got NoneType, not a tensor" in str(compare(None, WANT, rtol=1, atol=1))


def test_relative_to_max_scales_rtol_by_the_largest_expected_element():
    got = WANT.clone()
    got[0, 0, 0] += 0.03  # expected 0: off elementwise, within 0.01 * max|expected| (= 3.29)
    assert compare(got, WANT, rtol=0.01, atol=0, relative_to_max=True) is None
    text = compare(got, WANT, rtol=0.01, atol=0)
    assert text is not None and "0 + 0.01·|expected|" in text.en


def test_assert_close_fails_the_case_with_both_languages_after_what_was_checked():
    with pytest.raises(pytest.fail.Exception) as caught:
        assert_close(WANT + 1, WANT, rtol=0, atol=0, what=("rms_norm 的输出", "the output of rms_norm"))
    text = decode(caught.value.msg or "")
    assert text is not None and text.en.startswith("the output of rms_norm: wrong values")
    assert text.zh.startswith("rms_norm 的输出：数值不对")
    assert_close(WANT, WANT, rtol=0, atol=0)  # close: nothing raised


def test_a_given_scale_bounds_the_error_and_is_named():
    got = WANT + 0.05
    assert compare(got, WANT, rtol=0.1, atol=0, scale=torch.ones(4)) is None  # broadcast over the last dim
    text = compare(got, WANT, rtol=0.01, atol=0, scale=torch.ones(4), scale_name=("Σ|a·b|", "Σ|a·b|"))
    assert text is not None and "0 + 0.01·Σ|a·b|" in text.en and "24 of 24" in text.en
