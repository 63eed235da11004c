"""SQL text a client sends, read in linear time (docs/serve.md "Queries answered").

Nothing here builds a regular expression from client input, and nothing backtracks: one
client's query must never hold the interpreter long enough to starve the others.

:func:`strip_comments` follows the comment rules of the server's lexer (MySQL reference
manual "Comments"; MariaDB knowledge base "Comment Syntax"):

- ``#`` and ``-- `` (two dashes then a space or a control character) run to the end of the line;
- ``/* … */`` is a comment (comments do not nest: the first ``*/`` ends it);
- ``/*! … */`` is an *executable* comment: its text is part of the statement; with a version
  (``/*!50110 … */``: 5 digits, or 6 for a MariaDB server) only when the server's version is
  at least that number (major·10000 + minor·100 + patch);
- ``/*M! … */`` is executable on MariaDB only (a plain comment for MySQL);
- none of these is recognised inside a quoted string or identifier (``'…'``, ``"…"``, `` `…` ``).

Runs of whitespace outside quotes become one space (the lexer ignores them), so the fixed
patterns the answerers match statements with never meet a long run of blanks.

:func:`like` is SQL ``LIKE``: ``%`` matches any run of characters, ``_`` exactly one, ``\\``
makes the next character literal; letters compare case-insensitively, as the server's ``_ci``
collation compares variable names. It is the greedy two-pointer wildcard match: on a failure
after a ``%`` only the text position behind the last ``%`` advances, so a pattern of ``k``
literals costs at most ``k`` steps per text position (no exponential backtracking).
"""

from __future__ import annotations

import re

__all__ = ["UnterminatedText", "like", "quoted_end", "strip_comments", "version_number"]

# the characters at which the lexer's state can change (a fixed pattern: linear search)
_SPECIAL = re.compile(r"['\"`/#\-*\s]")
_WS = " \t\n\r\f\v"


class UnterminatedText(ValueError):
    """A quoted string or a ``/*`` comment that the query never closes (offset in the text)."""

    def __init__(self, what: str, offset: int) -> None:
        super().__init__(f"unterminated {what} starting at offset {offset}")
        self.offset = offset


def version_number(version: tuple[int, int, int]) -> int:
    """The number an executable comment's version is compared with (50110 for 5.1.10)."""
    major, minor, patch = version
    return major * 10000 + minor * 100 + patch


def quoted_end(sql: str, start: int) -> int:
    """Offset after the quoted string or identifier starting at ``start``: a doubled quote is
    the quote itself, and inside ``'…'`` / ``"…"`` a backslash escapes the next character."""
    q = sql[start]
    i = start + 1
    n = len(sql)
    while i < n:
        c = sql[i]
        if c == "\\" and q != "`":
            i += 2
            continue
        if c == q:
            if i + 1 < n and sql[i + 1] == q:
                i += 2
                continue
            return i + 1
        i += 1
    raise UnterminatedText("quoted string" if q != "`" else "quoted identifier", start)


def _line_end(sql: str, start: int) -> int:
    end = sql.find("\n", start)
    return len(sql) if end < 0 else end + 1


def _executable(sql: str, i: int, version: int, mariadb: bool) -> tuple[bool, int] | None:
    """For a comment starting ``/*`` at ``i``: None for a plain comment, else (whether its text
    is part of the statement, offset where that text starts)."""
    if sql.startswith("/*!", i):
        at = i + 3
    elif sql.startswith("/*M!", i):
        if not mariadb:
            return None
        at = i + 4
    else:
        return None
    digits = 0
    while digits < 6 and at + digits < len(sql) and sql[at + digits].isascii() and sql[at + digits].isdigit():
        digits += 1
    width = 6 if digits == 6 and mariadb else 5 if digits >= 5 else 0
    if width:
        return version >= int(sql[at : at + width]), at + width
    return True, at


def strip_comments(sql: str, version: int, *, mariadb: bool) -> str:
    """``sql`` without its comments (executable ones replaced by their text when they apply),
    whitespace runs outside quotes collapsed, and a trailing ``;`` removed; linear in
    ``len(sql)``. Raises :class:`UnterminatedText` for an unclosed string or comment."""
    out: list[str] = []
    n = len(sql)
    i = 0
    in_exec = False  # inside /*! … */ whose text is kept: its */ is dropped

    def space() -> None:  # comments and whitespace runs: one space in all
        if out and out[-1] != " ":
            out.append(" ")

    while i < n:
        m = _SPECIAL.search(sql, i)
        if m is None:
            out.append(sql[i:])
            break
        j = m.start()
        if j > i:
            out.append(sql[i:j])
        c = sql[j]
        if c in "'\"`":
            end = quoted_end(sql, j)
            out.append(sql[j:end])
            i = end
        elif c in _WS:
            k = j + 1
            while k < n and sql[k] in _WS:
                k += 1
            space()
            i = k
        elif c == "#" or (sql.startswith("--", j) and (j + 2 == n or sql[j + 2] in _WS or sql[j + 2] < " ")):
            space()
            i = _line_end(sql, j)
        elif sql.startswith("/*", j):
            exe = None if in_exec else _executable(sql, j, version, mariadb)
            if exe is not None and exe[0]:
                in_exec = True
                space()
                i = exe[1]
            else:
                end = sql.find("*/", j + 2)
                if end < 0:
                    raise UnterminatedText("comment", j)
                space()
                i = end + 2
        elif in_exec and sql.startswith("*/", j):
            in_exec = False
            space()
            i = j + 2
        else:
            out.append(c)
            i = j + 1
    if in_exec:
        raise UnterminatedText("comment", sql.rfind("/*"))
    return "".join(out).strip().rstrip(";").strip()


def _tokens(pattern: str) -> list[str | None]:
    """The pattern as tokens: None for ``%`` (a run of them is one), ``"_"`` for the
    one-character wildcard, ``"=" + char`` for a literal (case-folded); a trailing lone ``\\``
    is a literal backslash."""
    out: list[str | None] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "%":
            if not out or out[-1] is not None:
                out.append(None)
        elif c == "_":
            out.append("_")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append("=" + _fold(pattern[i]))
        else:
            out.append("=" + _fold(c))
        i += 1
    return out


def _fold(c: str) -> str:
    low = c.lower()
    return low if len(low) == 1 else c


def like(text: str, pattern: str) -> bool:
    """Whether ``text`` matches the SQL LIKE ``pattern`` (module docstring), case-insensitively."""
    toks = _tokens(pattern)
    if sum(1 for t in toks if t is not None) > len(text):
        return False
    s = [_fold(c) for c in text]
    n, m = len(s), len(toks)
    i = j = 0
    star = -1  # token index of the last % seen
    mark = 0  # text position that % is currently taken to end at
    while i < n:
        t = toks[j] if j < m else ""
        if t is None:
            star, mark = j, i
            j += 1
        elif t == "_" or (t and t[1] == s[i]):
            i += 1
            j += 1
        elif star >= 0:
            mark += 1
            i, j = mark, star + 1
        else:
            return False
    while j < m and toks[j] is None:
        j += 1
    return j == m
