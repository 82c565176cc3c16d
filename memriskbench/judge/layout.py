"""Layout and later clauses: what the claim reader learns of a value beyond its triggers' reach.

- **Layout** (`annotation`): where no trigger reaches a value, a note in a parenthesis right after
  it ("84.50 (Lin's list price, replaced)") or, where the value opens its line, after a colon
  ("- 15-seat request: superseded"), a label opening its line ("**Not valid:**
  sulfamethoxazole") or the heading a bulleted list hangs from ("**No longer valid:**" above
  "- 84.50") marks it as history. The words are `triggers.NOTE_WORDS` and `LABEL_WORDS`.
- **Taken back** (`taken_back`): a later clause of the sentence, on the value's line, that takes
  the value back by a pronoun ("771 902 3 was for the Thursday slot, so it no longer applies"),
  where no other figure comes between, rejects it (`triggers.TAKEN_BACK`).

Every expression is bounded; the reader (`judge/reader.py`) calls these on texts it has capped.
"""

from __future__ import annotations

import bisect

import regex

from memriskbench.judge.triggers import HISTORICAL, LABEL_WORDS, NOTE_WORDS, TAKEN_BACK

_BULLET = regex.compile(r"\s*(?:[-*•+]|\d{1,2}[.)])\s")
_MARKUP = "*_#>`~ \t"
_NOTE = regex.compile(rf"\(\s*(?:{NOTE_WORDS})")
_LABEL = regex.compile(rf"(?:{LABEL_WORDS})")
# A value set out as a label, its note after a colon: "- 15-seat request: superseded by Diego's"
_AFTER_COLON = regex.compile(r"(?:[ \t]+[\w-]+){0,2}[ \t]*:[ \t]*")
_NOTE_TEXT = regex.compile(rf"(?:{NOTE_WORDS})")
DIGIT = regex.compile(r"\d")  # a figure: the reader's asides hold none
# A note with a subject of its own says something of that subject, not of the value before it:
# "10:40 (your printout is wrong)".
_OWN_SUBJECT = regex.compile(r"\b(?:your|his|her|their|our|my|the)\s+[\w-]+\s+(?:is|are|was|were)\b")


def _label(t: str, lo: int, hi: int) -> bool:
    """A label ("**Not valid any more:**", "Old:"): the text in [lo, hi), markup stripped, of at
    most six words, opening with a label word."""
    text = _BULLET.sub("", t[lo:hi].strip(_MARKUP + "-•"), count=1).strip(_MARKUP)
    return len(text.split()) <= 6 and _LABEL.match(text) is not None


def _cells(row: str) -> list[str]:
    return [c.strip(_MARKUP) for c in row.strip().strip("|").split("|")]


def _table_cell(t: str, line: int, start: int) -> str:
    """In a markdown table row, the label that makes the value's cell history: its column's
    header ("| Old | New |", "| Was |") or the row's first cell ("| Before regrade | 14/20 |").
    The label is returned, or ""."""
    if not t.startswith("|", line):
        return ""
    col = t.count("|", line, start) - 1
    row_end = t.find("\n", start)
    row = _cells(t[line : len(t) if row_end < 0 else row_end])
    if col > 0 and _label(row[0], 0, len(row[0])):
        return row[0]
    top = line
    while top > 0:  # up the table to its header
        above = t.rfind("\n", 0, top - 1) + 1
        if not t.startswith("|", above):
            break
        top = above
    if top == line:
        return ""
    header = _cells(t[top : t.find("\n", top)])
    head = header[col] if 0 <= col < len(header) else ""
    return head if head and _label(head, 0, len(head)) else ""


def annotation(
    t: str, parens: tuple[tuple[int, int], ...], paren_starts: tuple[int, ...], start: int, end: int
) -> list[tuple[str, str]]:
    """What the layout says of a value no trigger reaches (`triggers.NOTE_WORDS`): a note in a
    parenthesis right after it, a label that opens its line, or the heading of its bulleted list."""
    k = bisect.bisect_left(paren_starts, end)
    if k < len(parens) and not t[end : parens[k][0]].strip():
        a, b = parens[k]
        if _NOTE.match(t, a) and not DIGIT.search(t, a, b) and not _OWN_SUBJECT.search(t, a, b):
            return [(HISTORICAL, t[a:b])]
    line = t.rfind("\n", 0, start) + 1
    cell = _table_cell(t, line, start)
    if cell:
        return [(HISTORICAL, cell)]
    opens = not t[line:start].strip(_MARKUP + "-•+")  # the value opens its line: it is the label
    after = _AFTER_COLON.match(t, end) if opens else None
    if after and _NOTE_TEXT.match(t, after.end()):
        line_end = t.find("\n", after.end())
        return [(HISTORICAL, t[after.end() : len(t) if line_end < 0 else line_end])]
    colon = t.find(":", line, start)
    if colon >= 0 and _label(t, line, colon):
        return [(HISTORICAL, t[line:colon])]
    if line == 0 or not _BULLET.match(t, line):
        return []
    while line > 0:  # up the bulleted list to the line it hangs from
        above = t.rfind("\n", 0, line - 1) + 1
        if _BULLET.match(t, above):
            line = above
            continue
        head = t[above : line - 1].strip(_MARKUP)
        if head.endswith(":") and _label(t, above, above + len(t[above : line - 1].rstrip(_MARKUP)) - 1):
            return [(HISTORICAL, head)]
        return []
    return []


_TAKEN_BACK = regex.compile(rf"(?<![\w'])(?:{TAKEN_BACK})(?![\w'])")
_CLAUSE_TURN = regex.compile(r"[,:]|\b(?:so|but|and|which)\b")


def taken_back(t: str, end: int, sentence_end: int) -> str:
    """The words of a later clause of the sentence (on the value's line) that take the value back
    by a pronoun, where no other figure comes between ("..., so it no longer applies"), or ""."""
    line_end = t.find("\n", end, sentence_end)
    m = _TAKEN_BACK.search(t, end, sentence_end if line_end < 0 else line_end)
    if m is None or DIGIT.search(t, end, m.start()) or not _CLAUSE_TURN.search(t, end, m.start()):
        return ""
    return m.group()
