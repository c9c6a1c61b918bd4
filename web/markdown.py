"""Statements: markdown -> HTML on the server, code blocks highlighted with Pygments."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = TextLexer()
    return f'<pre class="highlight"><code>{highlight(code, lexer, FORMATTER)}</code></pre>'


def _aligned_cell(self, tokens, idx, options, env):
    """Table alignment as a class: the page's CSP allows no inline style attributes."""
    token = tokens[idx]
    style = token.attrs.pop("style", None)
    if isinstance(style, str) and style.startswith("text-align:"):
        token.attrJoin("class", "align-" + style.split(":", 1)[1].strip())
    return self.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    # html=False: statements are ours, but the page never needs raw HTML from markdown either.
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
    md.add_render_rule("th_open", _aligned_cell)
    md.add_render_rule("td_open", _aligned_cell)
    return md


def render(markdown: str) -> str:
    return _renderer().render(markdown)


@lru_cache(maxsize=1)
def pygments_css() -> str:
    return HtmlFormatter(style="friendly").get_style_defs(".highlight")
