"""One value: :func:`normalise` to canonical form and :func:`compare_value` against the truth's value, never raising on the value."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from binlogwriter.compare._numbers import n_bit, n_decimal, n_floating, n_integer
from binlogwriter.compare._results import (
    Approx,
    JsonDoc,
    Reject,
    Uncomparable,
    ValueDiff,
    WkbOnly,
    cannot,
    column_of,
    family,
    wrong_type,
)
from binlogwriter.compare._temporal import n_date, n_datetime, n_time, n_timestamp
from binlogwriter.compare._texts import (
    json_key,
    json_loads,
    n_enum_set,
    n_geometry,
    n_json,
    n_raw_bytes,
    n_string,
)
from binlogwriter.compare.profiles import PROFILES, Profile, get_profile
from binlogwriter.schema.model import Column

_BY_FAMILY: dict[str, Callable[[Any, Column, frozenset[str], str], list[Any]]] = {
    "integer": n_integer, "year": n_integer, "bit": n_bit, "decimal": n_decimal,
    "floating": n_floating, "date": n_date, "time": n_time, "datetime": n_datetime,
    "timestamp": n_timestamp, "char": n_string, "blob": n_string, "enum_set": n_enum_set,
    "json": n_json, "geometry": n_geometry, "inet_uuid": n_raw_bytes,
}


def _candidates(value: Any, col: Column | None, profile: Profile, flavor: str) -> list[Any]:
    """Every canonical form ``value`` may stand for under ``profile`` (first: the preferred);
    raises _Reject. Unknown column type: the value itself."""
    if value is None or col is None:
        return [value]
    fn = _BY_FAMILY.get(family(col))
    if fn is None:
        return [value]
    try:
        got = fn(value, col, profile.forms, flavor)
    except Reject:
        raise
    except Exception as e:  # noqa: BLE001 - never raise on a consumer's value: report it
        raise cannot(f"{type(e).__name__}: {str(e)[:80]}") from None
    if not got:
        raise wrong_type(value, col)
    return got


def normalise(value: Any, column: Any, profile: str | Profile = "exact", *, flavor: str = "mysql80") -> Any:
    """``value`` (a consumer's representation of a value of ``column``) in canonical form
    (docs/output.md), reading it through the forms ``profile`` accepts; an
    :class:`Uncomparable` (never an exception) when no accepted form reads it. ``column``: a
    Column, a column description mapping, or None (type unknown: the value is returned as
    is). A value standing only approximately for the canonical one (DECIMAL as a float) is
    returned as that float; a JSON document read from a non-canonical form as MySQL would
    print it."""
    from binlogwriter.values.json_text import mysql_json_text

    try:
        col = column_of(column)
        first = _candidates(value, col, get_profile(profile), flavor)[0]
    except Reject as r:
        return Uncomparable(r.why)
    except (TypeError, ValueError) as e:
        return Uncomparable(str(e))
    if isinstance(first, Approx):
        return first.value
    if isinstance(first, WkbOnly):
        return first.hex
    if isinstance(first, JsonDoc):
        try:
            return mysql_json_text(_plain(first.doc))
        except (TypeError, ValueError, RecursionError) as e:
            return Uncomparable(f"JSON document not printable: {e}")
    return first


def _plain(doc: Any) -> Any:
    if isinstance(doc, Decimal):
        return int(doc) if doc == doc.to_integral_value() and "." not in str(doc) else float(doc)
    if isinstance(doc, dict):
        return {k: _plain(x) for k, x in doc.items()}
    if isinstance(doc, list):
        return [_plain(x) for x in doc]
    return doc


# ------------------------------------------------------------------------------------
# comparison
# ------------------------------------------------------------------------------------

def _is_zero_temporal(t: Any) -> bool:
    """A canonical DATE/DATETIME/TIMESTAMP text that is no calendar value: the zero date or
    one with a zero year, month or day (docs/output.md)."""
    if not isinstance(t, str) or len(t) < 10:
        return False
    y, mo, d = t[0:4], t[5:7], t[8:10]
    return y == "0000" or mo == "00" or d == "00"


def same(a: Any, b: Any) -> bool:
    """Canonical values equal: types kept apart for str/bytes/bool, NaN equal to NaN."""
    if isinstance(a, str | bytes) or isinstance(b, str | bytes):
        return type(a) is type(b) and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a foreign object's __eq__
        return False


def _matches(cand: Any, truth: Any, col: Column | None) -> bool:
    if isinstance(cand, Approx):
        try:
            t = float(Decimal(truth)) if isinstance(truth, str) else float(truth)
        except (InvalidOperation, TypeError, ValueError):
            return False
        return math.isclose(cand.value, t, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(cand, JsonDoc):
        if not isinstance(truth, str):
            return False
        try:
            return bool(json_key(json_loads(truth)) == cand.doc)
        except Reject:
            return False
    if isinstance(cand, WkbOnly):
        return isinstance(truth, str) and truth.startswith("0x") and truth[10:] == cand.hex[2:]
    return same(cand, truth)


_PLAIN = (int, str, float)


def compare_value(decoded: Any, truth: Any, column: Any = None, profile: str | Profile = "exact", *,
                  flavor: str = "mysql80") -> ValueDiff | None:
    """None when ``decoded`` (a consumer's value) is ``truth`` (canonical form, or a value
    binlogwriter's reader decodes) for ``column`` under ``profile``; else a
    :class:`ValueDiff`. Never raises on the values (a bad ``profile`` name is a ValueError)."""
    prof = get_profile(profile)
    tt = type(truth)
    if tt is type(decoded) and tt in _PLAIN and decoded == truth:
        return None  # the same plain value: every profile reads it as the exact profile does
    try:
        col = column_of(column)
    except (TypeError, ValueError) as e:
        return ValueDiff("cannot compare", str(e))
    exact = PROFILES["exact"]
    try:
        want = _candidates(truth, col, exact, flavor)[0]
    except Reject as r:
        return ValueDiff("cannot compare", f"truth value: {r.why}")
    if decoded is None or want is None:
        if decoded is None and want is None:
            return None
        fam = family(col) if col is not None else "?"
        if decoded is None and "zero_date_null" in prof.forms and fam in ("date", "datetime", "timestamp") \
                and _is_zero_temporal(want):
            return None
        if decoded is None and "empty_set_null" in prof.forms and col is not None and col.type == "SET" \
                and want == "":
            return None
        return ValueDiff("column value", "NULL on one side only")
    try:
        cands = _candidates(decoded, col, prof, flavor)
    except Reject as r:
        return ValueDiff(r.kind, r.why)
    if any(_matches(c, want, col) for c in cands):
        return None
    return ValueDiff("column value", "")


