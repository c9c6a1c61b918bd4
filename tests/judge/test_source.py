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


# Files read as Python reads them (tokenize.detect_encoding): what `python file.py` runs is judged.
GBK_SOLUTION = "# -*- coding: gbk -*-\n# 两数相加\ndef add(a, b):\n    return a + b\n"


def test_a_bom_and_crlf_file_is_read_as_python_reads_it():
    text = check_source(b"\xef\xbb\xbf# \xe4\xbd\xa0\xe5\xa5\xbd\r\nx = 1\r\ny = 2\r", 100)
    assert text == "# 你好\nx = 1\ny = 2\n"
    compile(text, "f.py", "exec")  # the mark is gone: compile() of a str refuses U+FEFF


def test_a_gbk_file_with_a_coding_line_is_accepted():
    text = check_source(GBK_SOLUTION.encode("gbk"), 1000)
    assert "两数相加" in text
    namespace: dict = {}
    exec(compile(text, "f.py", "exec"), namespace)  # a str's coding line is ignored by compile(): no double decoding
    assert namespace["add"](2, 3) == 5


def test_a_gbk_file_without_a_coding_line_is_refused_and_explained():
    with pytest.raises(BadSubmission) as caught:
        check_source("x = 1\n# 两数相加\n".encode("gbk"), 1000)
    text = caught.value.text
    assert "not UTF-8" in text.en and "line 2" in text.en and "Save" in text.en and "coding: gbk" in text.en
    assert "UTF-8" in text.zh and "第 2 行" in text.zh and "另存为" in text.zh


@pytest.mark.parametrize(
    "data,en,zh",
    [
        (b"# coding: klingon\nx = 1\n", "klingon, which Python does not know", "不是 Python 认识的编码"),
        (b"\xef\xbb\xbf# coding: gbk\nx = 1\n", "byte-order mark but declares the encoding gbk", "BOM"),
        ("# coding: ascii\nx = '中'\n".encode(), "line 2 (byte 22) is not ascii text", "第 2 行"),
    ],
    ids=["unknown-codec", "bom-against-coding-line", "text-not-in-declared-codec"],
)
def test_what_python_refuses_is_refused_with_the_problem_named(data, en, zh):
    with pytest.raises(SyntaxError):
        compile(data, "f.py", "exec")  # Python itself refuses each of these
    with pytest.raises(BadSubmission) as caught:
        check_source(data, 1000)
    assert en in caught.value.text.en and zh in caught.value.text.zh
    assert "UTF-8" in caught.value.text.en


def test_text_from_the_editor_drops_a_leading_mark_and_keeps_its_size_in_bytes():
    assert check_source("\ufeffx = 1\r\n", 100) == "x = 1\n"
