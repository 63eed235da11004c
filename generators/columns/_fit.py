"""Fitting text to a column (values.md §1): at most the declared characters and the byte
limit in the column's charset, characters the charset cannot hold dropped (BMP-only charsets
lose those above U+FFFF), CHAR without trailing spaces. Shared by every text generator, the
charset-stress pool and the edge values."""

from __future__ import annotations

from typing import Any

from binlogwriter.charsets import BMP_ONLY_CHARSETS
from binlogwriter.schema import Column

TEXT_TYPES = ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT")
BYTE_TYPES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
TEXT_LIMIT = {"TINYTEXT": 255, "TEXT": 65535, "MEDIUMTEXT": (1 << 24) - 1, "LONGTEXT": (1 << 32) - 1,
              "TINYBLOB": 255, "BLOB": 65535, "MEDIUMBLOB": (1 << 24) - 1, "LONGBLOB": (1 << 32) - 1}


def char_limit(col: Column, flavor: str) -> tuple[int, int]:
    """(max characters, max bytes) of a character column."""
    mb = col.mbmaxlen(flavor)
    if col.type in ("CHAR", "VARCHAR"):
        n = col.char_length() or 0
        return n, n * mb
    lim = TEXT_LIMIT[col.type]
    return lim, lim


_FIT: dict[tuple[int, str], tuple[Column, int, int, Any]] = {}


def fit_info(col: Column, flavor: str) -> tuple[int, int, Any]:
    """(max characters, max bytes, collation) of a column, memoised by column object."""
    hit = _FIT.get((id(col), flavor))
    if hit is not None and hit[0] is col:
        return hit[1], hit[2], hit[3]
    nchars, nbytes = char_limit(col, flavor)
    coll = col.collation_obj(flavor)
    if len(_FIT) > 4096:
        _FIT.clear()
    _FIT[(id(col), flavor)] = (col, nchars, nbytes, coll)  # keeps col alive: its id is not reused
    return nchars, nbytes, coll


def fit_text(s: str, col: Column, flavor: str) -> str:
    """Cut ``s`` to the column's character and byte limits, dropping characters its charset lacks."""
    nchars, nbytes, coll = fit_info(col, flavor)
    if len(s) > nchars:
        s = s[:nchars]
    if coll is not None and coll.charset not in ("utf8mb4", "binary"):
        try:
            coll.encode(s)
        except (UnicodeError, LookupError, ValueError):
            s = "".join(ch for ch in s if _encodable(ch, coll))
    if coll is not None and coll.charset in BMP_ONLY_CHARSETS:  # no character above U+FFFF
        s = "".join(ch for ch in s if ord(ch) < 0x10000)
    if nbytes < nchars * 4:
        while len(enc(s, coll)) > nbytes:
            s = s[:-1]
    if col.type == "CHAR":
        s = s.rstrip(" ")
    return s


def _encodable(ch: str, coll) -> bool:
    try:
        coll.encode(ch)
        return True
    except (UnicodeError, LookupError, ValueError):
        return False


def enc(s: str, coll) -> bytes:
    if coll is None or coll.charset == "binary":
        return s.encode("utf-8")
    try:
        return coll.encode(s)
    except (UnicodeError, LookupError, ValueError):
        return s.encode("utf-8")


_FITTED: dict[tuple, tuple[tuple, tuple]] = {}


def fitted_pool(entries: tuple, col: Column, flavor: str, cap: int | None = None) -> tuple:
    """``tuple(fit_text(e[:cap], col, flavor) for e in entries)``, memoised: the result
    depends on the entries and on what :func:`fit_text` reads of the column (its character
    and byte limits, collation, whether it is CHAR), so columns of one type — every
    VARCHAR(40) of a wide table — and every run of a spec (each ``serve --generate`` dump)
    share one fitted tuple, fitted once."""
    nchars, nbytes, coll = fit_info(col, flavor)
    key = (id(entries), cap, nchars, nbytes, coll, col.type == "CHAR")
    hit = _FITTED.get(key)
    if hit is not None and hit[0] is entries:
        return hit[1]
    out = tuple(fit_text(e[:cap] if cap is not None and len(e) > cap else e, col, flavor) for e in entries)
    if len(_FITTED) >= 1024:
        _FITTED.clear()
    _FITTED[key] = (entries, out)  # keeps the entries alive: their id is not reused
    return out
