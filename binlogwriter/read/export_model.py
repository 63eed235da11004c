"""The export's table layout and transaction bookkeeping (docs/output.md "The change
model"): the change model's fields before the images (:data:`META_FIELDS`), the Arrow schema
of one table definition in ``flat`` or ``struct`` images (:func:`arrow_schema`), unique field
names, and :class:`Txn` — which transaction a buffered rows event belongs to, to number each
change's ``row`` in its transaction. Used by :mod:`binlogwriter.read.exportbatch`."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from binlogwriter.layouts.rows import no_image_columns
from binlogwriter.read.arrowbuild import strings
from binlogwriter.read.arrowcols import arrow_type, column_layout
from binlogwriter.values.base import ColumnDesc

__all__ = ["IMAGES", "META_FIELDS", "arrow_schema", "field_names", "Txn", "count_rows", "skim_rows", "row_skimmer"]

IMAGES = ("flat", "struct")
"""How the export lays out the images: ``flat`` (default) one column ``before.<c>`` /
``after.<c>`` per table column, ``struct`` two struct columns ``before`` / ``after``."""

_NAMES = pa.list_(pa.string())
META_FIELDS = [pa.field("seq", pa.int64()), pa.field("row", pa.int32()), pa.field("op", pa.string()),
               pa.field("database", pa.string()), pa.field("table", pa.string()), pa.field("gtid", pa.string()),
               pa.field("xid", pa.uint64()), pa.field("file", pa.string()), pa.field("position", pa.uint64()),
               pa.field("transaction_position", pa.uint64()), pa.field("timestamp", pa.timestamp("s", tz="UTC")),
               pa.field("before_columns", _NAMES), pa.field("after_columns", _NAMES)]
"""The change model's fields (docs/output.md "The change model") before the images: ``seq``
(transaction with row changes, 0-based from the first file read), ``row`` (change inside its
transaction), ``before_columns`` / ``after_columns`` the columns each image carries (null:
no such image) — a column outside the list is absent from the image, not NULL."""


def arrow_schema(cols: tuple[ColumnDesc, ...], images: str = "flat") -> pa.Schema:
    """:data:`META_FIELDS`, then the images: ``before.<c>`` and ``after.<c>`` for every
    column (``images="flat"``), or structs ``before`` and ``after`` of every column
    (``"struct"``: null when the change has no such image)."""
    if images not in IMAGES:
        raise ValueError(f"images must be one of {', '.join(IMAGES)}, not {images!r}")
    fields = list(META_FIELDS)
    types = [arrow_type(c) for c in cols]
    names = field_names(cols)
    if images == "struct":
        st = pa.struct([pa.field(n, typ) for n, typ in zip(names, types, strict=True)])
        return pa.schema([*fields, pa.field("before", st), pa.field("after", st)])
    fields += [pa.field(f"before.{n}", typ) for n, typ in zip(names, types, strict=True)]
    fields += [pa.field(f"after.{n}", typ) for n, typ in zip(names, types, strict=True)]
    return pa.schema(fields)


class Txn:
    """The transaction a buffered rows event belongs to: ``seq`` (the change model's), its
    ``xid`` and ``txpos`` (set when known: the XID comes after the rows), the buffers it
    touched and, once it touches more than one (``counts`` not None), each of its events' row
    count so far — the ``row`` of a change counts the transaction's earlier changes in every
    table. A transaction that touches one buffer only has its rows counted when the batch is
    decoded (its events are all in that batch: buffers are cut at transaction ends)."""

    __slots__ = ("seq", "xid", "txpos", "bufs", "entries", "counts", "total", "unknown")

    def __init__(self, seq: int, txpos: int | None) -> None:
        self.seq, self.xid, self.txpos = seq, None, txpos
        self.unknown = False  # rows of a table not exported that cannot be decoded: ``row`` is null
        self.bufs: list[Any] = []
        self.entries: list[tuple] = []  # (plan, rows bytes, buffer) of each event, in order (until counted)
        self.counts: list[int] | None = None  # each event's first row in the transaction, once counted
        self.total = 0

    def add(self, buf: Any, plan: Any, rows: bytes) -> int:
        """Note one event (``buf`` None: a table not exported); returns its index here."""
        if self.counts is None:
            k = len(self.entries)
            self.entries.append((plan, rows, buf))
            if buf not in self.bufs:
                self.bufs.append(buf)
            if len(self.bufs) < 2:
                return k
            self.counts = []
            for p, r, b in self.entries:  # a second buffer: count every event so far
                self.counts.append(self.total)
                self.total += count_rows(p, r) if b is None else skim_rows(p, r, b.info.cols)
            self.entries = []
            return k
        if buf not in self.bufs:
            self.bufs.append(buf)
        k = len(self.counts)
        self.counts.append(self.total)
        self.total += count_rows(plan, rows) if buf is None else skim_rows(plan, rows, buf.info.cols)
        return k


def count_rows(plan: Any, rows: bytes) -> int:
    """Rows of one rows event (its images walked by the compiled decoders, format.md §13)."""
    n = len(rows)
    if n == 0:
        return 1 if no_image_columns(plan.present, plan.after) else 0
    b, a = plan.bimg, plan.aimg
    pos = c = 0
    while pos < n:
        _, _, pos = b(rows, pos)
        if a is not None:
            _, _, pos = a(rows, pos)
        c += 1
    return c


_SKIMMERS: dict[int, tuple[Any, Any]] = {}
"""id(rows plan) -> (the plan, kept alive so the id stays its own; its row counter)."""


def skim_rows(plan: Any, rows: bytes, cols: tuple[ColumnDesc, ...]) -> int:
    """:func:`count_rows` without decoding a value: each image is skipped by its null bitmap
    and the columns' sizes (:func:`~binlogwriter.read.arrowcols.column_layout`: a fixed size,
    or a little-endian length then that many bytes), in a function compiled once per rows
    plan. A plan with a column of another layout, an empty event, and images that do not end
    exactly at the event's end are counted by :func:`count_rows` (which raises what it raised
    before for a malformed event)."""
    got = _SKIMMERS.get(id(plan))
    if got is None:
        if len(_SKIMMERS) >= 4096:
            _SKIMMERS.clear()
        got = _SKIMMERS[id(plan)] = (plan, row_skimmer(plan, cols))
    skim = got[1]
    if skim is None or not rows:
        return count_rows(plan, rows)
    try:
        c = skim(rows)
    except IndexError:
        c = None
    return count_rows(plan, rows) if c is None else c


def row_skimmer(plan: Any, cols: tuple[ColumnDesc, ...]) -> Any:
    """``fn(rows) -> rows in the event, or None`` for one rows plan; None when a present
    column has no :func:`column_layout`."""
    layouts = [column_layout(c) for c in cols]
    images = [plan.present] if plan.after is None else [plan.present, plan.after]
    lines = ["def count(b):", "  n = len(b)", "  pos = c = 0", "  while pos < n:"]
    for bits in images:
        idx = [i for i, p in enumerate(bits) if p]
        if any(layouts[i] is None for i in idx):
            return None
        nb = (len(idx) + 7) >> 3
        lines.append("    nulls = 0" if not nb else "    nulls = b[pos]" if nb == 1
                     else f"    nulls = int.from_bytes(b[pos:pos + {nb}], 'little')")
        lines.append(f"    pos += {nb}")
        for j, i in enumerate(idx):
            fixed, w = layouts[i]
            if fixed:
                lines.append(f"    if not nulls & {1 << j}: pos += {w}")
            elif w == 1:
                lines.append(f"    if not nulls & {1 << j}: pos += 1 + b[pos]")
            elif w == 2:  # indexing, not a slice: a short buffer raises IndexError (counted by count_rows)
                lines.append(f"    if not nulls & {1 << j}: pos += 2 + (b[pos] | b[pos + 1] << 8)")
            else:
                lines.append(f"    if not nulls & {1 << j}: pos += {w} + int.from_bytes(b[pos:pos + {w}], 'little')")
        lines.append("    if pos > n: return None")
    lines += ["    c += 1", "  return c"]
    env: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<row counter {len(cols)} columns>", "exec"), env)  # noqa: S102
    return env["count"]


def field_names(cols: tuple[ColumnDesc, ...]) -> list[str]:
    """The columns' names, each once: a name the Table_map gives again (no server writes
    two columns of one name, a file can hold them) is followed by ``#`` and the column's
    1-based position from its second column on, so each column keeps a field of its own (a
    Parquet reader finds a column by name, and refuses a name held twice)."""
    out: list[str] = []
    taken: set[str] = set()
    for i, c in enumerate(cols, 1):
        name = str(c.name)
        while name in taken:
            name = f"{name}#{i}"
        taken.add(name)
        out.append(name)
    return out


def path_strings(names: list[str]) -> pa.Array:
    """The ``file`` column: each binlog path as given; a path whose bytes are not UTF-8 (the
    file system's undecodable bytes are surrogate escapes) with those bytes as ``\\xNN``, as
    the errors print it (errors.DecodeError). The ``database`` / ``table`` columns the same way
    (a name's bytes that are not UTF-8)."""
    try:
        return strings(names)
    except UnicodeEncodeError:
        return strings([n.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") for n in names])
