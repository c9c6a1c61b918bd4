"""Statements as the page shows them: one markdown-it configuration, the HTML, and what would not render whole."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

FORMATTER = HtmlFormatter(nowrap=True)
# markdown-it splits a table row at every "|" not escaped by a backslash, inside code spans too (GFM).
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = TextLexer()
    return f'<pre class="highlight"><code>{highlight(code, lexer, FORMATTER)}</code></pre>'


def _aligned_cell(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    """Table alignment as a class: the page's CSP allows no inline style attributes."""
    token = tokens[idx]
    style = token.attrs.pop("style", None)
    if isinstance(style, str) and style.startswith("text-align:"):
        token.attrJoin("class", "align-" + style.split(":", 1)[1].strip())
    return str(self.renderToken(tokens, idx, options, env))


@lru_cache(maxsize=1)
def renderer() -> MarkdownIt:
    """The statements' markdown: CommonMark plus tables, code highlighted by Pygments."""
    # html=False: statements are ours, but the page never needs raw HTML from markdown either.
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
    md.add_render_rule("th_open", _aligned_cell)
    md.add_render_rule("td_open", _aligned_cell)
    return md


def render(markdown: str) -> str:
    return str(renderer().render(markdown))


@lru_cache(maxsize=1)
def pygments_css() -> str:
    return str(HtmlFormatter(style="friendly").get_style_defs(".highlight"))


def _cells(line: str) -> int:
    """How many cells markdown-it reads in one table row of the source."""
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return len(_CELL_SPLIT.split(row))


def _open_fence(token: Token, lines: list[str]) -> bool:
    """A fence with no closing line runs to the end of the statement."""
    assert token.map is not None
    start, end = token.map
    if end < len(lines):
        return False
    last = lines[end - 1].strip() if end - 1 > start else ""
    return not (last.startswith(token.markup) and set(last) <= {token.markup[0]})


def unrendered(markdown: str) -> list[str]:
    """What in this statement would not render whole, as the page renders it: a table row whose cell count is
    not its header's (a "|" inside backticks ends a cell and the rest of the row is dropped; escape it as \\|),
    a code span left open (a backtick shown as text) and a code fence never closed. Each with its line."""
    lines = markdown.splitlines()
    problems: list[str] = []
    header, line = 0, 0
    for token in renderer().parse(markdown):
        line = token.map[0] + 1 if token.map else line
        if token.type == "thead_open" and token.map:
            header = _cells(lines[token.map[0]])
        elif token.type == "tr_open" and token.map:
            cells = _cells(lines[token.map[0]])
            if cells != header:
                problems.append(f"line {line}: a table row with {cells} cells under a header of {header}")
        elif token.type == "fence" and _open_fence(token, lines):
            problems.append(f"line {line}: a code fence ({token.markup}) that is never closed")
        elif token.type == "inline":
            if any(child.type == "text" and "`" in child.content for child in token.children or []):
                problems.append(f"line {line}: a code span left open (an unmatched backtick)")
    return problems
