"""What the query answerers share (binlogwriter/serve/queries.py, queries_show.py,
variables.py): the errors a query gets (MySQL error codes) and the small text helpers."""

from __future__ import annotations

import re

from binlogwriter.serve.sqltext import UnterminatedText, like, quoted_end

__all__ = ["QueryError"]

ER_PARSE_ERROR = 1064
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_ERROR_WHEN_EXECUTING_COMMAND = 1220


class QueryError(Exception):
    def __init__(self, code: int, message: str, state: str = "HY000") -> None:
        super().__init__(message)
        self.code = code
        self.state = state


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside quotes and parentheses."""
    out, cur, depth, quote = [], [], 0, ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p.strip() for p in out]


_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}


def unquote(s: str) -> str:
    """The value of a quoted string literal (MySQL reference manual "String Literals": ``\\n``,
    ``\\t``, ``\\0``, … escapes, a doubled quote; ``\\%`` and ``\\_`` stay two characters, for
    LIKE); anything else is returned stripped."""
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        body = s[1:-1]
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.S).replace(
            s[0] * 2, s[0]
        )
    return s


def literal(text: str, what: str) -> str:
    """The value of ``text``, which must be one quoted string (QueryError otherwise)."""
    t = text.strip()
    try:
        whole = bool(t) and t[0] in "'\"" and quoted_end(t, 0) == len(t)
    except UnterminatedText:
        whole = False
    if not whole:
        raise QueryError(ER_PARSE_ERROR, f"{what}: expected a quoted string, not {t[:100]!r}", "42000")
    return unquote(t)


def filter_like(items: list[tuple[str, object]], cond: str) -> list[tuple[str, object]]:
    """``SHOW VARIABLES`` rows kept by ``LIKE 'pattern'`` or ``WHERE Variable_name =|LIKE|IN …``
    (names compare case-insensitively; LIKE through the linear matcher of sqltext.py)."""
    if not cond:
        return items
    if cond[:4].upper() == "LIKE" and cond[4:5] in ("", " ", "'", '"'):
        pat = literal(cond[4:], "SHOW VARIABLES LIKE")
        return [(k, v) for k, v in items if like(k, pat)]
    m = re.fullmatch(r"WHERE Variable_name ?(=|LIKE|IN) ?(.*)", cond, re.I | re.S)
    if m:
        op = m.group(1).upper()
        if op == "IN":
            names = {unquote(x).lower() for x in split_top(m.group(2).strip().strip("()"))}
            return [(k, v) for k, v in items if k in names]
        pat = literal(m.group(2), f"SHOW VARIABLES WHERE Variable_name {op}")
        if op == "=":
            return [(k, v) for k, v in items if k == pat.lower()]
        return [(k, v) for k, v in items if like(k, pat)]
    raise QueryError(ER_PARSE_ERROR, f"cannot parse SHOW VARIABLES {cond[:200]!r}", "42000")
