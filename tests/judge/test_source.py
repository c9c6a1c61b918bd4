"""Submitted files are checked before anything runs them."""

import pytest

from judge.errors import BadSubmission
from judge.source import check_source


def test_utf8_text_passes_through():
    assert check_source("x = '你好'\n".encode(), 100) == "x = '你好'\n"


@pytest.mark.parametrize("data,match", [
    (b"", "empty"),
    (b"  \n\t\n", "empty"),
    (b"\xff\xfe\x00x", "not UTF-8"),
    (b"x = 1\x00\n", "NUL"),
    (b"x" * 101, "limit is 100"),
])
def test_bad_files_get_a_clear_message(data, match):
    with pytest.raises(BadSubmission, match=match):
        check_source(data, 100)
