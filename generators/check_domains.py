"""CHECK constraint expressions (sqlglot trees) → what each column's values must satisfy: the
reading half of generators/checks.py (which turns the result into value generators; the
forms and the NULL rule are in its docstring). :func:`apply` restricts per-column
:class:`Domain` s so that the expression is TRUE (or UNKNOWN) for every row made from them;
:class:`Unfollowable` says why a form cannot be followed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from sqlglot import exp

__all__ = ["Domain", "Unfollowable", "apply", "copy_domains"]

_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}
_NEGATE = {
    exp.GT: exp.LTE,
    exp.GTE: exp.LT,
    exp.LT: exp.GTE,
    exp.LTE: exp.GT,
    exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ,
}


class Unfollowable(Exception):
    """A constraint (or branch) the generator cannot follow; the message says why."""


@dataclass
class Domain:
    """What one column's non-NULL values must satisfy: bounds as (value, open), an allowed
    and an excluded list, ``len_*`` length bounds (CHAR_LENGTH, and LENGTH: the text made is
    ASCII, as many bytes as characters), IS NOT NULL, JSON_VALID."""

    lo: tuple[Any, bool] | None = None
    hi: tuple[Any, bool] | None = None
    values: list | None = None
    excluded: list = field(default_factory=list)
    not_null: bool = False
    len_lo: int = 0
    len_hi: int | None = None
    json: bool = False

    def lower(self, v: Any, open_: bool) -> None:
        if self.lo is None or v > self.lo[0] or (v == self.lo[0] and open_):
            self.lo = (v, open_)

    def upper(self, v: Any, open_: bool) -> None:
        if self.hi is None or v < self.hi[0] or (v == self.hi[0] and open_):
            self.hi = (v, open_)

    def allow(self, vals: list) -> None:
        self.values = list(vals) if self.values is None else [v for v in self.values if v in vals]


# -- expressions → per-column domains -------------------------------------------------


def _literal(e: exp.Expression) -> Any:
    if isinstance(e, exp.Paren):
        return _literal(e.this)
    if isinstance(e, exp.Neg):
        v = _literal(e.this)
        if isinstance(v, str):
            raise Unfollowable(f"cannot negate {e.this.sql('mysql')}")
        return -v
    if isinstance(e, exp.Boolean):
        return 1 if e.this else 0
    if isinstance(e, exp.Literal):
        if e.is_string:
            return e.this
        text = e.this
        return Decimal(text) if any(ch in text for ch in ".eE") else int(text)
    raise Unfollowable(f"{e.sql('mysql')} is not a constant")


def _column_of(e: exp.Expression) -> tuple[str, str] | None:
    """(column name, "value" | "chars" | "bytes") of a column or a [CHAR_]LENGTH of one."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.Column):
        return e.name, "value"
    if isinstance(e, exp.Length) and isinstance(e.this, exp.Column):
        return e.this.name, "bytes" if e.args.get("binary") else "chars"
    return None


def _not(e: exp.Expression) -> exp.Expression:
    """NOT pushed one level down (De Morgan, comparisons negated)."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.Not):
        return e.this
    if isinstance(e, exp.And):
        return exp.Or(this=exp.Not(this=e.this), expression=exp.Not(this=e.expression))
    if isinstance(e, exp.Or):
        return exp.And(this=exp.Not(this=e.this), expression=exp.Not(this=e.expression))
    for k, neg in _NEGATE.items():
        if type(e) is k:
            return neg(this=e.this, expression=e.expression)
    if isinstance(e, exp.Between):
        return exp.Or(
            this=exp.LT(this=e.this, expression=e.args["low"]),
            expression=exp.GT(this=e.this, expression=e.args["high"]),
        )
    return exp.Not(this=e)


def _is_null_test(e: exp.Expression) -> bool:
    return isinstance(e, exp.Is) and isinstance(e.expression, exp.Null)


def apply(e: exp.Expression, doms: dict[str, Domain]) -> None:
    """Restrict ``doms`` so that ``e`` is TRUE (or UNKNOWN) for every row made from them."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        apply(e.this, doms)
        apply(e.expression, doms)
        return
    if isinstance(e, exp.Or):
        branches = [e.this, e.expression]
        branches.sort(key=_is_null_test)  # an IS NULL branch last: it would force NULLs
        reasons = []
        for b in branches:
            trial = copy_domains(doms)
            try:
                apply(b, trial)
            except Unfollowable as exc:
                reasons.append(str(exc))
                continue
            doms.clear()
            doms.update(trial)
            return
        raise Unfollowable(reasons[0])
    if isinstance(e, exp.Not):
        inner = e.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Not | exp.And | exp.Or | exp.Between) or type(inner) in _NEGATE:
            apply(_not(inner), doms)
            return
        if _is_null_test(inner) and _column_of(inner.this):
            doms.setdefault(_column_of(inner.this)[0].lower(), Domain()).not_null = True
            return
        if isinstance(inner, exp.In) and _column_of(inner.this):
            name, what = _column_of(inner.this)
            if what != "value":
                raise Unfollowable(f"{e.sql('mysql')}: NOT IN on a length")
            doms.setdefault(name.lower(), Domain()).excluded.extend(_literal(x) for x in inner.expressions)
            return
        raise Unfollowable(f"{e.sql('mysql')} is not a form the generator follows")
    if _is_null_test(e):
        raise Unfollowable(f"{e.sql('mysql')} would make every value NULL")
    if isinstance(e, exp.Anonymous) and str(e.this).upper() == "JSON_VALID":
        args = e.expressions
        if len(args) == 1 and _column_of(args[0]) and _column_of(args[0])[1] == "value":
            doms.setdefault(_column_of(args[0])[0].lower(), Domain()).json = True
            return
        raise Unfollowable(f"{e.sql('mysql')}: JSON_VALID of something other than a column")
    if isinstance(e, exp.Between):
        c = _column_of(e.this)
        if c is None:
            raise Unfollowable(f"{e.sql('mysql')} does not test a column")
        _bound(doms, c, exp.GTE, _literal(e.args["low"]))
        _bound(doms, c, exp.LTE, _literal(e.args["high"]))
        return
    if isinstance(e, exp.In):
        c = _column_of(e.this)
        if c is None or e.args.get("query") is not None:
            raise Unfollowable(f"{e.sql('mysql')} does not test a column against constants")
        vals = [_literal(x) for x in e.expressions]
        d = doms.setdefault(c[0].lower(), Domain())
        if c[1] == "value":
            d.allow(vals)
        else:
            _length(d, c, exp.GTE, min(vals))
            _length(d, c, exp.LTE, max(vals))
        return
    for k in _FLIP:
        if type(e) is k:
            left, right = _column_of(e.this), _column_of(e.expression)
            if left and right:
                raise Unfollowable(f"{e.sql('mysql')} compares two columns")
            if left:
                _bound(doms, left, k, _literal(e.expression))
            elif right:
                _bound(doms, right, _FLIP[k], _literal(e.this))
            else:
                raise Unfollowable(f"{e.sql('mysql')} does not test a column")
            return
    raise Unfollowable(f"{e.sql('mysql')} is not a form the generator follows")


def _bound(doms: dict[str, Domain], c: tuple[str, str], op: type, v: Any) -> None:
    d = doms.setdefault(c[0].lower(), Domain())
    if c[1] != "value":
        _length(d, c, op, v)
    elif op is exp.EQ:
        d.allow([v])
    elif op is exp.NEQ:
        d.excluded.append(v)
    elif op in (exp.GT, exp.GTE):
        d.lower(v, op is exp.GT)
    else:
        d.upper(v, op is exp.LT)


def _length(d: Domain, c: tuple[str, str], op: type, v: Any) -> None:
    if not isinstance(v, int | Decimal):
        raise Unfollowable(f"a length compared with {v!r}")
    v = Decimal(v)  # LENGTH counts bytes: as many as characters in the (ASCII) text made
    if op is exp.EQ:
        lo = hi = v
    elif op in (exp.GT, exp.GTE):
        lo, hi = (math.floor(v) + 1 if op is exp.GT else math.ceil(v)), None
    elif op in (exp.LT, exp.LTE):
        lo, hi = None, (math.ceil(v) - 1 if op is exp.LT else math.floor(v))
    else:  # <> n: above it
        lo, hi = math.floor(v) + 1, None
    if lo is not None:
        d.len_lo = max(d.len_lo, int(lo))
    if hi is not None:
        d.len_hi = int(hi) if d.len_hi is None else min(d.len_hi, int(hi))


def copy_domains(doms: dict[str, Domain]) -> dict[str, Domain]:
    """A copy to try a branch on (the excluded lists are copied too)."""
    return {k: replace(v, excluded=list(v.excluded)) for k, v in doms.items()}
