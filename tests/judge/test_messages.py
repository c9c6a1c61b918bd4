"""Learner-facing text: shortened with its point kept, decoded into both languages, import failures as one block."""

import string
from types import SimpleNamespace

import pytest

from judge.checker.errors import LearnerError
from judge.checker.messages import case_message, failure_text, probe_failure
from judge.checker.plugin import marker_hint
from judge.grading.precheck import syntax_error
from judge.report.catalog import MESSAGES, say
from judge.report.feedback import msg
from judge.report.i18n import Text
from judge.report.textsafe import shorten

OPCHECK = (
    "MetadataMismatchError: The fake tensor's metadata does not match the real one. Shapes torch.Size([5]) "
    "and torch.Size([3]) are not equal! (with implementation in <module 'torch._library' from '/x/y.py'>) "
    "Please see https://docs.google.com/document/d/1_W62p8WJOQQUzPsJYa7s7/edit for more details.\n"
    'Traceback (most recent call last):\n  File "/x/y.py", line 3, in f\n    raise X\n'
)


def test_shorten_keeps_the_first_sentence_whole_and_cuts_only_between_sentences():
    short = shorten(OPCHECK, limit=60)
    assert short == "MetadataMismatchError: The fake tensor's metadata does not match the real one."
    longer = shorten(OPCHECK, limit=200)
    assert longer.endswith("Shapes torch.Size([5]) and torch.Size([3]) are not equal!")


def test_shorten_strips_torchs_noise_and_stack_dumps():
    text = shorten(OPCHECK, limit=1000)
    assert "with implementation" not in text and "https://" not in text and "Please see" not in text
    assert "Traceback" not in text and "raise X" not in text


def test_shorten_never_cuts_inside_a_word():
    words = " ".join(["metadata"] * 500)  # one endless sentence: cut at a word boundary, marked
    short = shorten(words, limit=50)
    assert short.endswith(" …") and all(word == "metadata" for word in short[:-2].split())


def test_shorten_splits_chinese_sentences():
    assert shorten("第一句说清楚了问题。第二句很长" + "很" * 400 + "。", limit=20) == "第一句说清楚了问题。"


def test_a_msg_encoding_is_found_wherever_pytest_put_it():
    raw = "AssertionError: " + msg("缓存没有被修改", "the cache was not modified") + "\nassert False\n +  where ..."
    assert failure_text(raw) == Text(zh="缓存没有被修改", en="the cache was not modified")
    assert case_message(AssertionError(raw), "a.py") == Text(zh="缓存没有被修改", en="the cache was not modified")


def test_any_exception_a_test_raises_with_msg_is_decoded():
    raised = RuntimeError("probe problem: " + msg("缓存的形状不对", "the cache has the wrong shape"))
    assert case_message(raised, "a.py") == Text(zh="缓存的形状不对", en="the cache has the wrong shape")
    assert case_message(KeyError("plain"), "a.py") == Text.same("KeyError: 'plain'")


def test_a_plain_message_stays_as_it_is_in_both_languages():
    assert failure_text("values differ\nassert False") == Text.same("values differ")


def test_probe_hint_given_with_msg_becomes_a_bilingual_hint_line():
    exc = LearnerError(
        "RuntimeError",
        "There was no fake impl registered for <CustomOpDef(ex100::rms_norm)>.\n\nWhile executing the graph ...",
        learner_line=12,
    )
    text = probe_failure(msg("在 meta 设备上调用出错", "calling it on the meta device failed"), exc, "100.py")
    assert (
        text.zh == "在 meta 设备上调用出错：RuntimeError: There was no fake impl registered for "
        "<CustomOpDef(ex100::rms_norm)>.（100.py 第 12 行）"
    )
    assert (
        text.en == "calling it on the meta device failed: RuntimeError: There was no fake impl registered for "
        "<CustomOpDef(ex100::rms_norm)>. (100.py line 12)"
    )


def test_an_exception_without_words_shows_only_its_type():
    text = case_message(LearnerError("NotImplementedError", "", 3), "a.py")
    assert text.en == "Your code raised NotImplementedError (a.py line 3)"


class Item:
    def __init__(self, mark):
        self.mark = mark

    def get_closest_marker(self, name):
        return self.mark if name == "hint" else None


@pytest.mark.parametrize(
    "mark",
    [
        SimpleNamespace(args=("反向：一维输入", "backward on a 1-D input"), kwargs={}),
        SimpleNamespace(args=(), kwargs={"zh": "反向：一维输入", "en": "backward on a 1-D input"}),
        SimpleNamespace(args=(msg("反向：一维输入", "backward on a 1-D input"),), kwargs={}),
    ],
    ids=["positional", "keywords", "msg-encoded"],
)
def test_hint_markers_are_read_in_every_form(mark):
    assert marker_hint(Item(mark)) == Text(zh="反向：一维输入", en="backward on a 1-D input")


def test_no_hint_marker_is_an_empty_hint():
    assert marker_hint(Item(None)) == Text()


def test_a_syntax_error_is_one_block_with_the_line_and_a_caret():
    lines = syntax_error("x = 1\nif x == 1\n    pass\n", "mine.py").en.splitlines()
    assert lines == [
        "Your file failed to import: SyntaxError: expected ':' (mine.py line 2)",
        "    if x == 1",
        "             ^",
        "hint: fix the syntax on this line (brackets, colons, indentation, quotes), then run again.",
    ]


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "-" * 100_000 + "1\n",  # unary nesting: the parser's stack
        "x = " + "1 + " * 100_000 + "1\n",  # a long chain: the compiler's recursion
        "x = " + "(" * 5000 + ")" * 5000 + "\n",  # brackets nested past the tokenizer's limit
        "x = 1" + "0" * 5000 + "\n",  # an integer literal past the digit limit
    ],
    ids=["unary", "chain", "brackets", "huge-int"],
)
def test_pathological_sources_are_compile_errors_not_crashes(source):
    text = syntax_error(source, "a.py")
    assert text is not None and text.zh and text.en
    assert len(text.en.splitlines()) <= 4 and all(len(line) < 400 for line in text.en.splitlines())


def _fields(template: str) -> dict[str, str | None]:
    """{name: format spec} of a catalogue template's fields."""
    return {name: spec for _, name, spec, _ in string.Formatter().parse(template) if name is not None}


def test_every_catalogue_message_has_both_languages_with_the_same_fields():
    for msg_id, (zh, en) in MESSAGES.items():
        assert zh.strip() and en.strip(), msg_id
        assert _fields(zh) == _fields(en), msg_id
        # Fill every field with a value its format spec accepts: the message must render in both languages.
        filled = {name: (0xD800 if "X" in (spec or "") else 1.5 if spec else "x") for name, spec in _fields(en).items()}
        text = say(msg_id, **filled)
        assert text.zh and text.en, msg_id


def test_the_catalogue_is_its_texts_files_each_id_once(tmp_path):
    """judge/report/texts/*.toml are the catalogue: a message lives in one place, and a file that gives an id twice
    (in itself or beside another file), or a text without both languages, is refused when the catalogue loads."""
    from judge.report import catalog

    assert catalog.load() == MESSAGES and len(MESSAGES) > 250
    (tmp_path / "a.toml").write_text('[x.y]\nzh = "甲"\nen = "a"\n[x.y.z]\nzh = "乙"\nen = "b"\n', encoding="utf-8")
    assert catalog.load(tmp_path) == {"x.y": ("甲", "a"), "x.y.z": ("乙", "b")}
    (tmp_path / "b.toml").write_text('[x.y]\nzh = "丙"\nen = "c"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="given twice"):
        catalog.load(tmp_path)
    (tmp_path / "b.toml").write_text('[q]\nzh = "丙"\nfr = "c"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="zh and en"):
        catalog.load(tmp_path)
