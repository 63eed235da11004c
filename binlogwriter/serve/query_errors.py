"""What the query answerers share (binlogwriter/serve/queries.py, queries_show.py,
variables.py): the errors a query gets (MySQL error codes) and the small text helpers."""

from __future__ import annotations

import fnmatch
import re

__all__ = ["QueryError"]

ER_PARSE_ERROR = 1064
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_ERROR_WHEN_EXECUTING_COMMAND = 1220


class QueryError(Exception):
    def __init__(self, code: int, message: str, state: str = "HY000") -> None:
        super().__init__(message)
        self.code = code
        self.state = state


def _split_top(text: str, sep: str = ",") -> list[str]:
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


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        body = s[1:-1]
        return re.sub(
            r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0"}.get(m.group(1), m.group(1)), body
        ).replace(s[0] * 2, s[0])
    return s


def _filter_like(items: list[tuple[str, object]], cond: str) -> list[tuple[str, object]]:
    if not cond:
        return items
    m = re.fullmatch(r"LIKE\s+('(?:[^']|'')*'|\"[^\"]*\")", cond, re.I | re.S)
    if m:
        pat = _unquote(m.group(1)).lower()
        rx = re.compile(
            "^" + "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pat) + "$", re.S
        )
        return [(k, v) for k, v in items if rx.match(k)]
    m = re.fullmatch(r"WHERE\s+Variable_name\s*(=|LIKE|IN)\s*(.*)", cond, re.I | re.S)
    if m:
        if m.group(1).upper() == "IN":
            names = {_unquote(x).lower() for x in _split_top(m.group(2).strip().strip("()"))}
            return [(k, v) for k, v in items if k in names]
        pat = _unquote(m.group(2)).lower()
        if m.group(1) == "=":
            return [(k, v) for k, v in items if k == pat]
        return [(k, v) for k, v in items if fnmatch.fnmatchcase(k, pat.replace("%", "*").replace("_", "?"))]
    raise QueryError(ER_PARSE_ERROR, f"cannot parse SHOW VARIABLES {cond!r}", "42000")
