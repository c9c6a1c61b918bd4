"""A statement's tables in the terminal: cells that wrap between words and between CJK characters, never cut with
"…" and never broken inside a code span; a list, row by row, where the terminal is too narrow for the table.

rich's own markdown tables treat a run of Chinese as one word, so a cell that cannot hold it is cut with "…", and
folding splits identifiers. Here a cell is broken into units (a code span, a word, one CJK character with the
punctuation that may not start or end a line) and laid out greedily in the width each column gets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.text import Text

from judge.report.i18n import Lang

CODE_STYLE = "markdown.code"  # the style rich's markdown gives inline code, so tables look like the text around
GAP = 2  # cells between two columns
EDGE = 1  # cells before the first column
NO_LINE_START = set("，。、；：！？）」』】》〉,.;:!?)]}%")  # closes what comes before: never starts a line
NO_LINE_END = set("（「『【《〈([{")  # opens what comes after: never ends a line


@dataclass
class Unit:
    """What a line may not break inside: a code span, a word, or one CJK character (with its punctuation)."""

    parts: list[tuple[str, str]] = field(default_factory=list)  # (text, style)
    space: bool = False  # whitespace came before it: a break there drops it, else it shows as one space

    @property
    def width(self) -> int:
        return sum(cell_len(text) for text, _ in self.parts)

    def add(self, text: str, style: str) -> None:
        if self.parts and self.parts[-1][1] == style:
            self.parts[-1] = (self.parts[-1][0] + text, style)
        else:
            self.parts.append((text, style))

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.parts)


def _wide(char: str) -> bool:
    return cell_len(char) == 2


def _joins(last: Unit, piece: str, style: str, atomic: bool) -> bool:
    """No break between `last` and `piece`: closing punctuation, or two narrow characters of one word."""
    if piece[0] in NO_LINE_START:
        return True
    return not atomic and not _wide(piece) and not _wide(last.text[-1]) and last.parts[-1][1] == style


def units(spans: list[tuple[str, str, bool]]) -> list[Unit]:
    """A cell's inline spans (text, style, atomic: a code span) as the units a line may break between."""
    found: list[Unit] = []
    glue_next = False  # the last unit ends with an opening bracket: the next one joins it
    space = False
    for text, style, atomic in spans:
        pieces = [text] if atomic else re.findall(r"\s+|[^\s]", text)
        for piece in pieces:
            if not atomic and piece.isspace():
                space, glue_next = bool(found), False
                continue
            last = found[-1] if found else None
            if last is not None and not space and (glue_next or _joins(last, piece, style, atomic)):
                last.add(piece, style)
            else:
                found.append(Unit([(piece, style)], space))
            space = False
            glue_next = piece[-1] in NO_LINE_END
    return found


def narrowed(cell: list[Unit], width: int) -> list[Unit]:
    """The list form's last resort, for a unit wider than the whole line: a code span split at its own spaces, and a
    piece still wider folded at the width (a table never needs this: its columns are as wide as their widest unit)."""
    found: list[Unit] = []
    for unit in cell:
        if unit.width <= width:
            found.append(unit)
            continue
        for text, style in unit.parts:
            for n, word in enumerate(text.split(" ")):
                for k, chunk in enumerate(_fold(word, width)):
                    found.append(Unit([(chunk, style)], space=(unit.space if n == 0 else True) and k == 0))
    return found


def _fold(word: str, width: int) -> list[str]:
    chunks = [""]
    for char in word:
        if chunks[-1] and cell_len(chunks[-1] + char) > width:
            chunks.append("")
        chunks[-1] += char
    return chunks


def line_of(*pieces: str | Text, style: str = "") -> Text:
    """One line of a table or list, never wrapped again by rich (its own lines are the wrapping)."""
    line = Text(style=style, no_wrap=True, overflow="ignore")
    for piece in pieces:
        line.append(piece) if isinstance(piece, str) else line.append_text(piece)
    return line


def wrap(cell: list[Unit], width: int) -> list[Text]:
    """Greedy lines of at most `width` cells (a unit wider than that alone on its line: never cut)."""
    lines: list[Text] = []
    line, used = line_of(), 0
    for unit in cell:
        gap = 1 if unit.space and used else 0
        if used and used + gap + unit.width > width:
            lines.append(line)
            line, used, gap = line_of(), 0, 0
        if gap:
            line.append(" ")
        for text, style in unit.parts:
            line.append(text, style=style or None)
        used += gap + unit.width
    lines.append(line)
    return lines


def _spans(inline: Token) -> list[tuple[str, str, bool]]:
    """An inline token's children as (text, style, atomic) spans: code spans whole, emphasis as bold or italic."""
    spans: list[tuple[str, str, bool]] = []
    styles: list[str] = []
    for child in inline.children or []:
        if child.type == "code_inline":
            spans.append((child.content, CODE_STYLE, True))
        elif child.type in ("strong_open", "em_open"):
            styles.append("bold" if child.type == "strong_open" else "italic")
        elif child.type in ("strong_close", "em_close") and styles:
            styles.pop()
        elif child.type in ("softbreak", "hardbreak"):
            spans.append((" ", "", False))
        elif child.content:
            spans.append((child.content, " ".join(styles), False))
    return spans


@dataclass
class TableBlock:
    """One markdown table: its header cells and body rows, each cell as units."""

    header: list[list[Unit]]
    rows: list[list[list[Unit]]]
    lang: Lang = "zh"

    def widths(self, available: int) -> list[int] | None:
        """Each column's width within `available` cells, or None when even the narrowest layout is wider."""
        columns = list(zip(self.header, *self.rows))
        least = [max((u.width for cell in col for u in cell), default=1) for col in columns]
        whole = [max((_one_line(cell) for cell in col), default=1) for col in columns]
        room = available - EDGE - GAP * (len(columns) - 1)
        if sum(least) > room:
            return None
        widths = list(least)
        spare = room - sum(widths)
        wants = [w - m for w, m in zip(whole, least)]
        while spare > 0 and any(wants):  # share the spare cells out by what each column still wants
            total = sum(wants)
            for i, want in enumerate(wants):
                extra = min(want, spare, max(1 if want else 0, spare * want // total))
                widths[i] += extra
                wants[i] -= extra
                spare -= extra
        return widths

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self.widths(options.max_width)
        if widths is None:
            yield from self._as_list(options.max_width)
            return
        yield from self._row(self.header, widths, "bold")
        yield line_of(" " * EDGE + "─" * (sum(widths) + GAP * (len(widths) - 1)), style="dim")
        for row in self.rows:
            yield from self._row(row, widths, "")

    def _row(self, cells: list[list[Unit]], widths: list[int], style: str) -> Iterator[Text]:
        wrapped = [wrap(cell, width) for cell, width in zip(cells, widths)]
        for i in range(max(len(lines) for lines in wrapped)):
            line = line_of(" " * EDGE, style=style)
            for k, (lines, width) in enumerate(zip(wrapped, widths)):
                piece = lines[i] if i < len(lines) else Text()
                line.append_text(piece)
                if k < len(widths) - 1:
                    line.append(" " * (width - piece.cell_len + GAP))
            line.rstrip()
            yield line

    def _as_list(self, width: int) -> Iterator[Text]:
        """Too narrow for columns: each row as an item, its first cell the item's title, the others under it."""
        colon = ": " if self.lang == "en" else "："
        for row in self.rows:
            room = max(1, width - 2)
            for n, line in enumerate(wrap(narrowed(row[0], room), room)):
                yield line_of("• " if n == 0 else "  ", line)
            for name, cell in zip(self.header[1:], row[1:]):
                label = [Unit([(_plain(name) + colon, "bold")])]
                for line in wrap(narrowed(label + cell, room), room):
                    yield line_of("  ", line)
            yield line_of()


def _one_line(cell: list[Unit]) -> int:
    return sum(u.width for u in cell) + sum(1 for i, u in enumerate(cell) if u.space and i)


def _plain(cell: list[Unit]) -> str:
    return " ".join(u.text for u in cell) if any(u.space for u in cell) else "".join(u.text for u in cell)


def _table(tokens: list[Token], lang: Lang) -> TableBlock:
    header: list[list[Unit]] = []
    rows: list[list[list[Unit]]] = []
    in_head = False
    for token in tokens:
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open" and not in_head:
            rows.append([])
        elif token.type == "inline":
            cell = units(_spans(token))
            (header if in_head else rows[-1]).append(cell)
    return TableBlock(header, rows, lang)


def statement_blocks(markdown: str, lang: Lang, code_theme: str = "ansi_dark") -> list[Markdown | TableBlock]:
    """The statement as rich renderables: its text as rich's Markdown, each table as a TableBlock."""
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(markdown)
    lines = markdown.splitlines(keepends=True)
    blocks: list[Markdown | TableBlock] = []
    done = 0
    for i, token in enumerate(tokens):
        if token.type != "table_open" or token.map is None:
            continue
        start, end = token.map
        close = next(k for k in range(i, len(tokens)) if tokens[k].type == "table_close")
        before = "".join(lines[done:start])
        if before.strip():
            blocks.append(Markdown(before, code_theme=code_theme, hyperlinks=False))
        blocks.append(_table(tokens[i : close + 1], lang))
        done = end
    rest = "".join(lines[done:])
    if rest.strip():
        blocks.append(Markdown(rest, code_theme=code_theme, hyperlinks=False))
    return blocks
