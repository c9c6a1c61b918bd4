"""Submitted files are checked before anything runs them."""

import pytest

from judge.errors import BadSubmission
from judge.source import check_source


def test_utf8_text_passes_through():
    assert check_source("x = '你好'\n".encode(), 100) == "x = '你好'\n"


@pytest.mark.parametrize(
    "data,match",
    [
        (b"", "empty"),
        (b"  \n\t\n", "empty"),
        (b"\xff\xfe\x00x", "not UTF-8"),
        (b"x = 1\x00\n", "NUL"),
        (b"x" * 101, "limit is 100"),
    ],
)
def test_bad_files_get_a_clear_message(data, match):
    with pytest.raises(BadSubmission, match=match):
        check_source(data, 100)


def test_the_size_limit_is_inclusive_one_byte_over_fails():
    assert check_source(b"x" * 100, 100) == "x" * 100
    with pytest.raises(BadSubmission, match="101 bytes; the limit is 100"):
        check_source(b"x" * 101, 100)


def test_size_is_counted_in_utf8_bytes_not_characters():
    text = "#" + "你" * 33  # 34 characters, 1 + 99 = 100 bytes
    assert check_source(text, 100) == text
    with pytest.raises(BadSubmission, match="101 bytes"):
        check_source(text + "x", 100)  # 35 characters, 101 bytes


def test_a_lone_surrogate_in_text_is_a_clear_bad_submission():
    with pytest.raises(BadSubmission, match="lone surrogate") as caught:
        check_source("x = '\ud800'\n", 100)
    assert "代理字符" in caught.value.text.zh and "U+D800" in caught.value.message


def test_refusals_carry_both_languages():
    with pytest.raises(BadSubmission) as caught:
        check_source(b"", 100)
    assert caught.value.text.en == caught.value.message and "空" in caught.value.text.zh
    assert caught.value.http_status == 422
