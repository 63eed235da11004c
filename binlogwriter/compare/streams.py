"""Change streams: a consumer's changes aligned with the truth and compared change by change, field by field, into a bounded report (:class:`StreamDiff`; the reports of binlogwriter.testing.assert_matches_truth / assert_changes_equal)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from binlogwriter.compare._results import column_of, short
from binlogwriter.compare.profiles import PROFILES, Profile, get_profile
from binlogwriter.compare.values import compare_value, normalise, same

# ------------------------------------------------------------------------------------
# change streams (the reports of binlogwriter.testing.assert_matches_truth /
# assert_changes_equal)
# ------------------------------------------------------------------------------------

_FIELDS = ("seq", "op", "database", "table", "gtid", "xid", "file", "position", "row",
           "transaction_position", "timestamp", "before", "after", "before_row", "after_row")
_MISSING = object()
_LINE_MAX = 400


def as_change(change: Any) -> dict[str, Any]:
    """One change in the change model (issue #31 §1) from any of the shapes consumers hand:
    a mapping, an object with attributes (:class:`binlogwriter.read.changes.Change`,
    :class:`binlogwriter.testing.DecodedChange`) or a tuple ``(op, table, before, after)``.
    ``table`` becomes ``db.name`` (from ``database`` + ``table`` when both are given);
    ``file`` its basename; images stay dicts or sequences (positional) as given. A field
    the change does not have is left out."""
    import os

    if isinstance(change, Mapping):
        d = dict(change)
    elif isinstance(change, tuple) and not hasattr(change, "_fields") and len(change) == 4:
        d = dict(zip(("op", "table", "before", "after"), change, strict=True))
    else:
        d = {}
        for k in _FIELDS:
            v = getattr(change, k, _MISSING)
            if v is not _MISSING:
                d[k] = v
        if not d:
            d = {"op": None, "table": f"<{type(change).__name__}: not a change>"}
    db = d.pop("database", None)
    if db is not None and d.get("table") is not None:
        d["table"] = f"{db}.{d['table']}"
    if isinstance(d.get("file"), str | os.PathLike):
        d["file"] = os.path.basename(os.fspath(d["file"]))
    return d


def named_image(img: Any, names: list[str] | None) -> tuple[dict[str, Any] | None, str | None]:
    """An image as {name: value} (ABSENT values left out), or (None, why) when it cannot be."""
    from binlogwriter.values import ABSENT

    if img is None:
        return None, None
    if isinstance(img, Mapping):
        return {str(k): v for k, v in img.items() if v is not ABSENT}, None
    if isinstance(img, str | bytes) or not hasattr(img, "__len__"):
        return None, f"image is a {type(img).__name__}, not a mapping or a sequence"
    vals = list(img)
    if names is None:
        names = [f"#{i}" for i in range(len(vals))]
    elif len(vals) != len(names):
        return None, f"{len(vals)} positional values for the {len(names)} columns {short(names, 60)}"
    return {n: v for n, v in zip(names, vals, strict=True) if v is not ABSENT}, None


class StreamDiff:
    """Differences of a decoded change stream from the truth, counted by kind, the first
    ``max_differences`` kept as one line each: :meth:`report` is bounded in size."""

    def __init__(self, max_differences: int = 20) -> None:
        self.max = max_differences
        self.counts: dict[str, int] = {}
        self.lines: list[str] = []

    def add(self, kind: str, where: str, text: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.lines) < self.max:
            line = f"{where}: {text}" if text else where
            self.lines.append(line if len(line) <= _LINE_MAX else line[:_LINE_MAX - 1] + "…")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def report(self, title: str) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        out = [f"{title}: {self.total} difference{'s' * (self.total != 1)}", f"  by kind: {kinds}"]
        out += ["  " + ln for ln in self.lines]
        if self.total > len(self.lines):
            out.append(f"  … {self.total - len(self.lines)} more not shown (max_differences={self.max})")
        return "\n".join(out)


def _val(v: Any) -> str:
    return f"{short(v)} [{type(v).__name__}]"


def _where(k: int | None, c: Mapping[str, Any], label: str = "change") -> str:
    parts = [f"{label} #{k}" if k is not None else label]
    if c.get("seq") is not None:
        parts.append(f"seq {c['seq']}")
    parts.append(str(c.get("table")))
    if c.get("row") is not None:
        parts.append(f"row {c['row']}")
    return " ".join(parts)


def _summary(c: Mapping[str, Any]) -> str:
    side = "after" if c.get("after") is not None else "before"
    return f"{c.get('op')} {side} {short(c.get(side), 100)}"


def _compare_change(out: StreamDiff, k: int, got: Mapping[str, Any], want: Mapping[str, Any],
                    fields: tuple[str, ...], columns: Mapping[str, Any] | None,
                    names: Mapping[str, list[str]] | None, prof: Profile, flavor: str,
                    tl: str = "truth") -> None:
    where = _where(k, want)
    for f in fields:
        if f in ("before", "after"):
            continue
        gv, wv = got.get(f, _MISSING), want.get(f, _MISSING)
        if wv is _MISSING and gv is _MISSING:
            continue
        if gv is _MISSING:
            out.add("field", where, f"field {f}: not in the decoded change, {tl} {_val(wv)}")
        elif not same(gv, wv):
            kind = f if f in ("op", "table") else "field"
            out.add(kind, where, f"field {f}: decoded {_val(gv)}, {tl} {_val(wv)}")
            if f in ("op", "table"):
                return  # the images of another op/table say nothing more
    table = want.get("table")
    cols = (columns or {}).get(table) or {}
    for side in ("before", "after"):
        if side not in fields:
            continue
        row_names = (names or {}).get(table)
        full = want.get(side + "_row")
        if isinstance(full, Mapping):
            row_names = [str(n) for n in full]
        w, why_w = named_image(want.get(side), row_names)
        gimg = got.get(side)
        if row_names is None and w is not None and not isinstance(gimg, Mapping | None) \
                and len(w) == len(gimg):
            row_names = list(w)  # positional decoded, named truth of the same width
        g, why_g = named_image(gimg, row_names)
        if why_w or why_g:
            out.add("cannot compare", where, f"{side} image: {why_g or tl + ' ' + why_w}")
            continue
        if g is None or w is None:
            if g is not w:
                out.add("image", where, f"{side} image: decoded {short(g, 60)}, {tl} {short(w, 60)}")
            continue
        for name in list(w) + [n for n in g if n not in w]:
            cw = f"{where} {side} column {name}"
            if name not in g:
                out.add("absent column", cw, f"not in the decoded image, {tl} {_val(w[name])}")
            elif name not in w:
                out.add("extra column", cw, f"decoded {_val(g[name])}, not in the {tl}'s image")
            else:
                d = compare_value(g[name], w[name], cols.get(name), prof, flavor=flavor)
                if d is not None:
                    text = f"decoded {_val(g[name])}, {tl} {_val(w[name])}"
                    if d.kind != "column value" and d.why:
                        text += f" ({d.kind}: {d.why})"
                    out.add(d.kind, cw, text)


def _align_key(c: Mapping[str, Any], cols: Mapping[str, Any], names: list[str] | None, prof: Profile,
               flavor: str) -> Any:
    """op, table and the first 16 image values in canonical form (for aligning streams)."""
    def img(v: Any) -> Any:
        named, _why = named_image(v, names)
        if named is None:
            return short(v, 40)
        return tuple((k, short(normalise(x, cols.get(k), prof, flavor=flavor), 40))
                     for k, x in list(named.items())[:16])
    return (c.get("op"), c.get("table"), img(c.get("before")), img(c.get("after")))


def _pairs(got: list[dict[str, Any]], want: list[dict[str, Any]], columns: Mapping[str, Any] | None,
           names: Mapping[str, list[str]] | None, prof: Profile, flavor: str
           ) -> list[tuple[int | None, int | None]]:
    """(decoded index, truth index) pairs, None on the side a change is missing from: by
    (seq, row) when every decoded change has both, else by order (with a sequence alignment
    on op, table and image when the counts differ, up to 50,000 changes a side)."""
    import difflib

    if got and all(g.get("seq") is not None and g.get("row") is not None for g in got):
        index: dict[Any, int] = {}
        for i, w in enumerate(want):
            index.setdefault((w.get("seq"), w.get("row")), i)
        used: set[int] = set()
        pairs: list[tuple[int | None, int | None]] = []
        for j, g in enumerate(got):
            i = index.get((g["seq"], g["row"]))
            if i is None or i in used:
                pairs.append((j, None))
            else:
                used.add(i)
                pairs.append((j, i))
        pairs += [(None, i) for i in range(len(want)) if i not in used]
        return pairs
    if len(got) == len(want) or max(len(got), len(want)) > 50_000:
        n = min(len(got), len(want))
        return ([(i, i) for i in range(n)] + [(i, None) for i in range(n, len(got))]
                + [(None, i) for i in range(n, len(want))])
    width: dict[str, list[str]] = dict(names or {})
    for w in want:
        full = w.get("after_row") or w.get("before_row")
        if isinstance(full, Mapping) and w.get("table") not in width:
            width[w["table"]] = [str(n) for n in full]
    exact = PROFILES["exact"]

    def keys(cs: list[dict[str, Any]], p: Profile) -> list[Any]:
        return [_align_key(c, (columns or {}).get(c.get("table")) or {}, width.get(c.get("table")), p, flavor)
                for c in cs]

    sm = difflib.SequenceMatcher(None, keys(got, prof), keys(want, exact), autojunk=False)
    pairs = []
    for tag, a0, a1, b0, b1 in sm.get_opcodes():
        if tag == "equal" or tag == "replace":
            n = min(a1 - a0, b1 - b0)
            pairs += [(a0 + i, b0 + i) for i in range(n)]
            pairs += [(a0 + i, None) for i in range(n, a1 - a0)]
            pairs += [(None, b0 + i) for i in range(n, b1 - b0)]
        elif tag == "delete":
            pairs += [(a0 + i, None) for i in range(a1 - a0)]
        else:
            pairs += [(None, b0 + i) for i in range(b1 - b0)]
    return pairs


def diff_streams(decoded: Any, truth: Any, *, profile: str | Profile = "exact", flavor: str = "mysql80",
                 fields: tuple[str, ...] = ("op", "table", "before", "after"),
                 columns: Mapping[str, Mapping[str, Any]] | None = None,
                 names: Mapping[str, list[str]] | None = None, only_tables: Any = None,
                 max_differences: int = 20, truth_label: str = "truth") -> tuple[StreamDiff, int]:
    """Compare two change streams (any shapes :func:`as_change` reads) -> the differences
    and the number of truth changes. ``columns``: ``db.table`` -> {column name: Column or
    description} for typed comparison; ``names``: ``db.table`` -> column names in order, for
    positional images; ``only_tables``: only these tables (``db.table`` names) are compared.
    ``truth_label`` names the second stream in the lines. Never raises on the changes'
    contents."""
    prof = get_profile(profile)
    typed: dict[str, dict[str, Any]] = {}
    for table, cols in (columns or {}).items():
        typed[table] = {}
        for name, info in cols.items():
            try:
                typed[table][name] = column_of(info)
            except (TypeError, ValueError):
                typed[table][name] = info  # reported by compare_value, value by value
    columns = typed
    got = [as_change(c) for c in decoded]
    want = [as_change(c) for c in truth]
    if only_tables is not None:
        keep = {str(t) for t in only_tables}
        got = [g for g in got if g.get("table") in keep]
        want = [w for w in want if w.get("table") in keep]
    out = StreamDiff(max_differences)
    for j, i in _pairs(got, want, columns, names, prof, flavor):
        if i is None:
            assert j is not None
            out.add("extra change", _where(j, got[j], "decoded change"), f"not in the {truth_label}: {_summary(got[j])}")
        elif j is None:
            out.add("missing change", _where(i, want[i]), f"not decoded: {_summary(want[i])}")
        else:
            try:
                _compare_change(out, i, got[j], want[i], fields, columns, names, prof, flavor, truth_label)
            except Exception as e:  # noqa: BLE001 - a comparison reports, it never crashes
                out.add("cannot compare", _where(i, want[i]), f"{type(e).__name__}: {short(str(e), 120)}")
    return out, len(want)
