"""MySQL's JSON text form (docs/output.md: keys by length then bytes, ", " and ": "): the
canonical ground-truth text of a JSON value (values/json.py truth_renderer, generators)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["mysql_json_text", "jsonl_safe"]

_LINE_SEPARATORS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def jsonl_safe(line: str) -> str:
    """One JSON Lines record with U+0085, U+2028 and U+2029 written as ``\\uXXXX`` escapes
    (the same JSON value): JSON leaves them raw inside strings, and readers that split text
    at every Unicode line boundary (Python's ``str.splitlines()``, editors) would cut the
    record there. Every ``.jsonl`` file the project writes goes through this."""
    if "\u2028" in line or "\u2029" in line or "\x85" in line:
        return line.translate(_LINE_SEPARATORS)
    return line


def _json_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


_JSON_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False).encode
_JSON_PLAIN = (str, int, float, bool, type(None))


_ORDER_MAX = 4096
_order_cache: dict[tuple, tuple[str, ...]] = {}


def _key_order(keys: tuple) -> tuple[str, ...]:
    """An object's keys in MySQL's order (by utf-8 length, then bytes); kept per key tuple
    (pure). TypeError for a key that is not a str."""
    got = _order_cache.get(keys)
    if got is None:
        if any(type(k) is not str for k in keys):
            raise TypeError
        got = tuple(sorted(keys, key=lambda k: (len(k.encode("utf-8")), k.encode("utf-8"))))
        if len(_order_cache) >= _ORDER_MAX:
            _order_cache.clear()
        _order_cache[keys] = got
    return got


def _mysql_order(v: Any) -> Any:
    """``v`` with every object's keys in MySQL's order (by length, then bytes); TypeError
    for anything :func:`_mysql_json_slow` would not print the same way through ``json``."""
    t = type(v)
    if t is dict:
        out = {}
        for k in _key_order(tuple(v)):
            x = v[k]
            tx = type(x)
            out[k] = x if tx is str or tx is int or x is None or tx is bool else _mysql_order(x)
        return out
    if t is list or t is tuple:
        return [x if type(x) is str or type(x) is int else _mysql_order(x) for x in v]
    if t in _JSON_PLAIN:
        return v
    raise TypeError


def mysql_json_text(v: Any) -> str:
    """A JSON document as MySQL prints it (``JSON_TYPE``-normalised text): one ``json``
    encoder call over the document with its keys reordered (same text as the
    element-by-element printer, which handles anything else)."""
    try:
        return _JSON_DUMPS(_mysql_order(v))
    except (TypeError, ValueError, RecursionError):
        return mysql_json_slow(v)


def mysql_json_slow(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return _json_str(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(mysql_json_slow(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode("utf-8")), k.encode("utf-8")))
        return "{" + ", ".join(f"{_json_str(k)}: {mysql_json_slow(v[k])}" for k in keys) + "}"
    raise TypeError(f"not a JSON value: {v!r}")
