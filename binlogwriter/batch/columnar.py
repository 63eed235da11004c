"""Transactions given as columns -> their event groups, planned and encoded per batch
(format.md §3, §8, §9, §12, §13; mariadb.md).

A :class:`RowsBatch` holds many row-change transactions as arrays: per row change its
transaction, table, kind (INSERT/UPDATE/DELETE), image shape (before/after column
bitmaps) and the bytes of its row images (already encoded column by column:
``binlogwriter.values.row.encode_column_images``). :func:`plan_rows_batch` lays out the
events every transaction becomes — the same layout ``transaction.transaction_events``
gives one transaction (MySQL ``GTID · BEGIN · (TABLE_MAP · ROWS…)… · XID``, MariaDB
``GTID · (TABLE_MAP · ROWS…)… · XID``): consecutive changes of one table and kind form a
statement, changes with different image bitmaps go to different rows events, a run is
split at ``row_event_max_size`` by the same rule, STMT_END_F on a statement's last event.
Every event's length follows by arithmetic; a GTID's ``transaction_length`` is the same
fixed point as :func:`binlogwriter.batch.encoder.transaction_length`. Ids (GNOs, XIDs,
``sequence_number``) come from the writer's one allocator
(:class:`~binlogwriter.write.ids.IdAllocator`) only at :meth:`RowsPlan.encode`, after
rotation points are known: given as a :class:`~binlogwriter.write.ids.BatchIds`, committed by
the allocator (:meth:`RowsPlan.id_count`). The planner reads an
:class:`~binlogwriter.write.ids.IdRange` (the ids, the GTID source: source id, tag, server
id, domain) and returns the table ids it gave, so planning is pure: of the writer it reads
only its format, settings and Table_map cache (``table_map_event``).

Two settings make the bytes depend on ids at planning
(:class:`~binlogwriter.batch.columnar_bound.BoundRowsPlan`, in its own module): MySQL
``binlog_transaction_compression`` (:func:`_compressed`: each group is ``GTID ·
TRANSACTION_PAYLOAD``, the zstd payload holding the plain plan's ``BEGIN … XID`` with the
XIDs of the range it was planned with, format.md §15) and tagged GTIDs
(:class:`~binlogwriter.batch.columnar_bound.TaggedGtids`: varlen fields, so a GTID's length depends on its GNO and its
``sequence_number`` in the file; re-planned from each rotation by
``BinlogWriter.prepare_planned``).

Bodies come from templates built through the construct declarations (BEGIN, TABLE_MAP,
each rows-event shape, the MariaDB GTID), the GTID post-header from the structured dtype
derived from its layout, XIDs from the XID layout's dtype; headers are one
``HEADER_DTYPE`` array; one CRC32 per event over its final bytes (format.md §3): zlib's
over each rows event; for events that differ from another of their batch only in a few
bytes (BEGIN, TABLE_MAP, rows-query: the header; XID: the header and the number; GTIDs
of one length) the CRC of one of them and, CRC32 being affine over GF(2), a per-byte
term for each differing byte (:func:`crc_by_difference`). The bytes equal the
declarative path's (tests/batch/test_generate_paths.py: every file of a run equals the
per-transaction path's; tests/batch/test_crc_by_difference.py).

Planning is here; :meth:`RowsPlan.encode` (placing a plan, ids given) is
:mod:`binlogwriter.batch.columnar_encode`, and the byte tools both use (:func:`place_runs`,
:func:`crc_by_difference`) are :mod:`binlogwriter.batch.scatter` (re-exported here).

Size: planning a batch is one pass of array arithmetic over one event layout, in named steps
(:func:`_statements`, :func:`_table_maps`, :func:`_split_runs`, :func:`_chunks`,
:func:`_rows_queries`, :func:`_order_events`, :func:`_gtid_lengths`); the plain plan
(:func:`_plan`) and its two id-dependent variants (compression, tagged GTIDs) read the same
per-event arrays, so they stay beside it; encoding is already its own module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from binlogwriter.batch.columnar_bound import TaggedGtids, bound
from binlogwriter.batch.columnar_encode import (
    BEGIN,
    GTID,
    PAYLOAD,
    ROWS,
    RQUERY,
    TMAP,
    XID,
    DeferredImages,
    GtidTails,
    RowsPlan,
    lone_groups,
    mariadb_gtid_body,
)
from binlogwriter.batch.scatter import crc_by_difference as crc_by_difference  # re-exported
from binlogwriter.batch.scatter import place_runs
from binlogwriter.batch.templates import memo_key, plain_gtid, templates_for
from binlogwriter.batch.unique import unique_ints
from binlogwriter.events import (
    ANONYMOUS_SID,
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    GtidEvent,
    QueryEvent,
    RowsQueryEvent,
    TransactionPayloadEvent,
    XidEvent,
    encode_body,
)
from binlogwriter.events.rows import rows_event_class
from binlogwriter.events.table import known_post_header
from binlogwriter.format import (
    ANNOTATE_ROWS_EVENT,
    ANONYMOUS_GTID_LOG_EVENT,
    DELETE_ROWS_EVENT,
    DELETE_ROWS_EVENT_V1,
    GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT,
    MARIADB_GTID_EVENT,
    QUERY_EVENT,
    ROWS_QUERY_LOG_EVENT,
    TABLE_MAP_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    UPDATE_ROWS_EVENT,
    UPDATE_ROWS_EVENT_V1,
    WRITE_ROWS_EVENT,
    WRITE_ROWS_EVENT_V1,
    XID_EVENT,
)
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_SUPPRESS_USE, FLAGS_AT, HEADER_SIZE, LOG_POS_AT
from binlogwriter.layouts.primitives import packed_int_size
from binlogwriter.layouts.rows import STMT_END_F
from binlogwriter.write.ids import GtidSource, IdRange
from binlogwriter.write.statement_rows import present_bitmap
from binlogwriter.write.transaction import query_status_vars

__all__ = ["RowsBatch", "RowsPlan", "DeferredImages", "plan_rows_batch", "columnar_supported", "place_runs", "KIND_CODES"]

KIND_CODES = {"insert": 0, "update": 1, "delete": 2}
_KINDS = ("insert", "update", "delete")


@dataclass
class RowsBatch:
    """Row-change transactions as columns (see module docstring). Per transaction:
    ``clock`` (the writer's clock when it commits). Per row change, in write order
    (transactions ascending): ``op_txn``, ``op_table`` (index into ``tables``),
    ``op_kind`` (:data:`KIND_CODES`), ``op_shape`` (index into ``shapes``: (before bits,
    after bits or None)), ``op_len``; ``data`` holds the changes' row images back to back
    (an UPDATE's before image then its after image), or a :class:`DeferredImages` that
    places them when the bytes are built (:meth:`RowsPlan.encode_later`, possibly on
    another thread)."""

    clock: np.ndarray
    op_txn: np.ndarray
    op_table: np.ndarray
    op_kind: np.ndarray
    op_shape: np.ndarray
    op_len: np.ndarray
    data: np.ndarray | DeferredImages
    tables: list
    shapes: list
    stmt_sql: list | None = None
    """With rows-query events (``binlog_rows_query_log_events`` / MariaDB annotate): the
    text of every statement, in order (one per run of changes of one transaction, table
    and kind)."""
    back: np.ndarray | None = None
    """MySQL: per transaction, the dependency distance of its group (binlogwriter/
    logical_clock.py: ``last_committed`` from it and the group's ``sequence_number``); None:
    commit order (``last_committed = sequence_number - 1``)."""
    group_pos: np.ndarray | None = None
    """MariaDB with ``group_commit_ids``: per transaction, its position in its binlog group
    commit (generators/group_commit.py), -1 for a group of one (no commit id); None: every
    one a group of one."""
    hold: np.ndarray | None = None
    """MariaDB group commits: per transaction, the next row transaction continues its group
    (no rotation after it: BinlogWriter.hold_rotation); None: none does."""
    stmt_start: np.ndarray | None = None
    """Per row change, whether it starts a statement (generators/batch.py
    ``statement_starts``); None: :attr:`own_statements` or a run of changes of one
    transaction, table and kind."""
    own_statements: bool = False
    """Every row change is a statement of its own (one rows event each, after its own
    Table_map), as a client sending one statement per row has them logged (sysbench's
    oltp_write_only); False: a run of changes of one transaction, table and kind is one
    statement."""


_BATCH_TYPES = (QUERY_EVENT, XID_EVENT, TABLE_MAP_EVENT, GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT,
                TRANSACTION_PAYLOAD_EVENT, GTID_TAGGED_LOG_EVENT, MARIADB_GTID_EVENT, WRITE_ROWS_EVENT_V1,
                UPDATE_ROWS_EVENT_V1, DELETE_ROWS_EVENT_V1, WRITE_ROWS_EVENT, UPDATE_ROWS_EVENT, DELETE_ROWS_EVENT)
"""The event types a batch plan writes (their post-headers are the templates')."""


def columnar_supported(writer: Any) -> bool:
    """Whether ``writer``'s settings are ones :func:`plan_rows_batch` lays out: every
    setting the generator can ask for (compression, anonymous / numbered / tagged GTIDs,
    every flavor, image and metadata mode); false only for a format whose FDE declares a
    post-header longer than the declarations know (docs/edge-cases.md 19: the writer pads
    its own events with zeros there, the batch templates do not)."""
    fmt = writer.fmt
    if fmt.table_id_size != 6:  # the batch templates write 6-byte table ids (format.md §12)
        return False
    for t in _BATCH_TYPES:
        if not fmt.post_header_len(t):  # a type this flavor's FDE does not declare: never written
            continue                    # (MariaDB's 33/34, MySQL 8.4's v1 rows events 23-25)
        known = known_post_header(t, fmt)  # the writer's own events pad the difference (BinlogWriter._own)
        if known is not None and fmt.post_header_len(t) != known:
            return False
    return True


def _packed_sizes(v: np.ndarray) -> np.ndarray:
    return np.where(v < 251, 1, np.where(v < 1 << 16, 3, np.where(v < 1 << 24, 4, 9)))


def _commit_timestamps(tpl: Any, imm: np.ndarray, orig: int | None) -> np.ndarray:
    """The GTID ``commit_timestamps`` field (format.md §8) of each immediate timestamp in
    ``imm`` with original ``orig``, as rows of bytes: the first built by its declaration,
    the others by patching its immediate value (little-endian, the "original follows" bit
    kept as the declaration set it) and checked against the declaration at the last; with
    an original value written, every one through the declaration."""
    vals = imm.tolist()
    if not vals:
        return np.zeros((0, 0), dtype=np.uint8)
    first = tpl.field("commit_timestamps", (vals[0], orig))
    flag = int.from_bytes(first, "little") ^ vals[0]
    w = len(first)
    if orig is None and w <= 8 and flag >> (8 * w - 1) in (0, 1) and not flag & ((1 << (8 * w - 1)) - 1):
        out = (imm.astype("<u8") | np.uint64(flag)).view(np.uint8).reshape(-1, 8)[:, :w]
        if out[-1].tobytes() == tpl.field("commit_timestamps", (vals[-1], orig)):
            return np.ascontiguousarray(out)
    return np.array([np.frombuffer(tpl.field("commit_timestamps", (v, orig)), dtype=np.uint8) for v in vals])


def plan_rows_batch(writer: Any, rb: RowsBatch, ids: IdRange | None = None) -> RowsPlan:
    """Plan ``rb`` for ``writer`` (see module docstring). Pure: the ids come from ``ids``
    (default: ``writer.ids.peek()``) and nothing of the writer changes; the table ids
    given (a table keeps its id while its definition is unchanged, mariadb.md "Table ids")
    are returned in :attr:`RowsPlan.used_tables` for the writer to take
    (:meth:`~binlogwriter.write.groups.GroupsMixin.plan_rows`). With MySQL
    ``binlog_transaction_compression`` each group is ``GTID · TRANSACTION_PAYLOAD``
    (format.md §15, :func:`_compressed`)."""
    rng = writer.ids.peek() if ids is None else ids
    if writer.settings.transaction_compression and not writer.fmt.is_mariadb:
        return _compressed(writer, rb, rng)
    return _plan(writer, rb, rng, writer.fmt.footer_size == 4)


def _given_table_ids(rng: IdRange, tables: list) -> list[int]:
    """Table ids of ``tables`` (in order of first use) from ``rng``, by
    :meth:`IdAllocator.table_id <binlogwriter.write.ids.IdAllocator.table_id>`'s rule
    (a known definition keeps its id, a new or changed one gets the next)."""
    known = dict(rng.tables)
    nxt = rng.next_table_id
    out: list[int] = []
    for t in tables:
        key = (t.database, t.name)
        cur = known.get(key)
        if cur is not None and (cur[0] is t or cur[0] == t):
            out.append(cur[1])
            continue
        known[key] = (t, nxt)
        out.append(nxt)
        nxt += 1
    return out


def _plan(writer: Any, rb: RowsBatch, rng: IdRange, footer: bool) -> RowsPlan:
    """:func:`plan_rows_batch` of plain groups (``footer``: whether events carry a CRC32).
    Steps: statements and runs (:func:`_statements`), table ids and Table_maps
    (:func:`_table_maps`), runs split at ``row_event_max_size`` (:func:`_split_runs`), rows
    templates (:func:`_chunks`), rows-query texts (:func:`_rows_queries`), the events in
    write order (:func:`_order_events`), each kind's type, flags and length, the GTIDs'."""
    fmt = writer.fmt
    st = writer.settings
    tpl = templates_for(fmt)
    fl = 4 if footer else 0
    n_txn = len(rb.clock)
    common = dict(fmt=fmt, n_txn=n_txn, data=rb.data, clock=rb.clock.astype(np.uint32), back=rb.back,
                  group_pos=rb.group_pos, hold=rb.hold, footer=footer, group_commit_ids=bool(st.group_commit_ids))
    if len(rb.op_txn) == 0:  # nothing changed: no groups
        z = np.zeros(0, dtype=np.int64)
        return RowsPlan(sizes=np.zeros(n_txn, dtype=np.int64), txn_first=np.zeros(n_txn + 1, dtype=np.int64),
                        ev_kind=z.astype(np.int8), ev_type=z.astype(np.uint8), ev_flags=z.astype(np.uint16),
                        ev_len=z, ev_tpl=z, templates=[], ev_dstart=z, ev_dlen=z, ev_txn=z, gtid_tail=None,
                        used_tables=[], **common)
    new_stmt, run_first, run_end = _statements(rb)
    stmt_first = np.flatnonzero(new_stmt)
    tm_ev, tm_body, used = _table_maps(writer, rb, rng, tpl)
    tids = [0] * len(rb.tables)
    for ti, (_t, tid) in zip(_first_use(rb), used, strict=True):
        tids[ti] = tid
    c_first, c_end = _split_runs(rb, fmt, st.row_event_max_size, run_first, run_end)
    ch = _chunks(rb, fmt, tpl, rng.source.server_id, tids, c_first, c_end, np.cumsum(new_stmt) - 1)
    rq = _rows_queries(writer, rb, len(stmt_first), tpl, rng.source.server_id)
    ev = _order_events(rb, n_txn, stmt_first, c_first, fmt.is_mariadb, rq is not None)
    begin = QueryEvent(thread_id=st.thread_id, db="", query="BEGIN", flags=FLAG_SUPPRESS_USE,
                       status_vars=query_status_vars(fmt, st), server_id=rng.source.server_id)
    begin_body = tpl.remember(("cm-begin", st), lambda: encode_body(begin, fmt))
    rq_bodies = [] if rq is None else rq[1]
    templates = [begin_body, *tm_body, *ch.bodies, *rq_bodies]
    ev.set(ev.kind == BEGIN, QUERY_EVENT, begin.flags, HEADER_SIZE + len(begin_body) + fl, 0)
    ev.set(ev.kind == XID, XID_EVENT, XidEvent(xid=0).flags, HEADER_SIZE + tpl.xid_dt.itemsize + fl, -1)
    tm_idx = np.flatnonzero(ev.kind == TMAP)
    refs = ev.ref[tm_idx]
    ev.set(tm_idx, TABLE_MAP_EVENT, np.array([0 if e is None else e.flags for e in tm_ev], dtype=np.uint16)[refs],
           HEADER_SIZE + np.array([len(b) for b in tm_body], dtype=np.int64)[refs] + fl, 1 + refs)
    rw_idx = np.flatnonzero(ev.kind == ROWS)
    refs = ev.ref[rw_idx]
    ev.set(rw_idx, ch.types[refs], 0, HEADER_SIZE + ch.tpl_len[ch.tpl[refs]] + ch.dlen[refs] + fl,
           1 + len(tm_body) + ch.tpl[refs])
    ev.dstart[rw_idx] = ch.dstart[refs]
    ev.dlen[rw_idx] = ch.dlen[refs]
    chunk_event = np.empty(len(c_first), dtype=np.int64)
    chunk_event[refs] = rw_idx
    if rq is not None:
        q_idx = np.flatnonzero(ev.kind == RQUERY)
        refs = rq[0][ev.ref[q_idx]]  # statement -> its text's body
        ev.set(q_idx, ANNOTATE_ROWS_EVENT if fmt.is_mariadb else ROWS_QUERY_LOG_EVENT, rq[2],
               HEADER_SIZE + np.array([len(x) for x in rq_bodies], dtype=np.int64)[refs] + fl,
               1 + len(tm_body) + len(ch.bodies) + refs)
    gtid_tail = _gtid_lengths(writer, rb, rng, tpl, ev, n_txn, fl)
    sizes = np.bincount(ev.txn, weights=ev.length, minlength=n_txn).astype(np.int64)
    txn_first = np.searchsorted(ev.txn, np.arange(n_txn + 1), side="left")
    return bound(rng, RowsPlan(sizes=sizes, txn_first=txn_first, ev_kind=ev.kind, ev_type=ev.type,
                                ev_flags=ev.flags, ev_len=ev.length, ev_tpl=ev.tpl, templates=templates,
                                ev_dstart=ev.dstart, ev_dlen=ev.dlen, ev_txn=ev.txn, gtid_tail=gtid_tail,
                                chunk_first=np.asarray(c_first, dtype=np.int64), chunk_event=chunk_event,
                                used_tables=used, **common))


def _statements(rb: RowsBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Statements and runs (format.md §13: one table and kind per statement, one bitmap per
    rows event): per row change whether it starts a statement; the first change of each run
    and the end of each."""
    ot, otab, okind, oshape = rb.op_txn, rb.op_table, rb.op_kind, rb.op_shape
    nops = len(ot)
    new_stmt = np.ones(nops, dtype=bool)
    new_run = np.ones(nops, dtype=bool)
    if rb.stmt_start is not None:
        new_stmt[:] = rb.stmt_start
        new_run[1:] = new_stmt[1:] | (oshape[1:] != oshape[:-1])
    elif nops > 1 and not rb.own_statements:
        same = (ot[1:] == ot[:-1]) & (otab[1:] == otab[:-1]) & (okind[1:] == okind[:-1])
        new_stmt[1:] = ~same
        new_run[1:] = ~same | (oshape[1:] != oshape[:-1])
    run_first = np.flatnonzero(new_run)
    return new_stmt, run_first, np.append(run_first[1:], nops)


def _first_use(rb: RowsBatch) -> list[int]:
    """The tables of ``rb`` used, in order of first use (the order the per-transaction path
    gives them ids in)."""
    used, first_at = np.unique(rb.op_table, return_index=True)
    return used[np.argsort(first_at)].tolist()


def _table_maps(writer: Any, rb: RowsBatch, rng: IdRange, tpl: Any) -> tuple[list, list[bytes], list]:
    """Per table of ``rb``: its Table_map event and body (None / empty when unused), and the
    (Table, table id) of the tables used, ids given from ``rng`` in order of first use."""
    fmt = writer.fmt
    tm_ev: list[Any] = [None] * len(rb.tables)
    tm_body = [b""] * len(rb.tables)
    first_use = _first_use(rb)
    got = _given_table_ids(rng, [rb.tables[ti] for ti in first_use])
    for ti, tid in zip(first_use, got, strict=True):
        tm_ev[ti] = e = writer.table_map_event(rb.tables[ti], tid)
        # keyed by content: the templates outlive this run (one per format, process-wide), and
        # an id() of an event that is gone can be another table's in the next run
        tm_body[ti] = tpl.remember(memo_key(e), lambda e=e: encode_body(e, fmt))
    return tm_ev, tm_body, [(rb.tables[ti], tid) for ti, tid in zip(first_use, got, strict=True)]


def _split_runs(rb: RowsBatch, fmt: Any, limit: int, run_first: np.ndarray,
                run_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs split at ``row_event_max_size`` (the rule of ``transaction.split_rows_events``):
    the first change and the end of each rows event's chunk."""
    otab, oshape, olen = rb.op_table, rb.op_shape, rb.op_len
    width = np.array([len(t.columns) for t in rb.tables], dtype=np.int64)
    post = 10 if fmt.rows_version == 2 else 8
    r_tab = otab[run_first]
    cum = np.cumsum(olen)
    r_bytes = cum[run_end - 1] - cum[run_first] + olen[run_first]
    wpk = np.array([packed_int_size(x) for x in width.tolist()], dtype=np.int64)
    has_after = np.array([ab is not None for _, ab in rb.shapes], dtype=np.int64)
    overhead = post + wpk[r_tab] + (width[r_tab] + 7) // 8 * (1 + has_after[oshape[run_first]])
    big = np.flatnonzero(overhead + r_bytes > limit)
    if len(big) == 0:
        return run_first, run_end
    chunks_first: list[int] = []
    chunks_end: list[int] = []
    bigset = set(big.tolist())
    lens = olen.tolist()
    for r, (f, e) in enumerate(zip(run_first.tolist(), run_end.tolist(), strict=True)):
        if r not in bigset:
            chunks_first.append(f)
            chunks_end.append(e)
            continue
        ov = int(overhead[r])
        cf, size = f, 0
        for i in range(f, e):
            if i > cf and ov + size + lens[i] > limit:
                chunks_first.append(cf)
                chunks_end.append(i)
                cf, size = i, 0
            size += lens[i]
        chunks_first.append(cf)
        chunks_end.append(e)
    return np.asarray(chunks_first, dtype=np.int64), np.asarray(chunks_end, dtype=np.int64)


@dataclass
class _Chunks:
    """The rows events of a plan (one per chunk): type, row data range, template index
    (into ``bodies``, one per distinct table · kind · shape · STMT_END_F) and lengths."""

    types: np.ndarray
    dstart: np.ndarray
    dlen: np.ndarray
    tpl: np.ndarray
    bodies: list[bytes]
    tpl_len: np.ndarray


def _chunks(rb: RowsBatch, fmt: Any, tpl: Any, server_id: int, tids: list[int], c_first: np.ndarray,
            c_end: np.ndarray, stmt_of_op: np.ndarray) -> _Chunks:
    """The rows events of chunks ``c_first..c_end``: their rows templates (post-header,
    width, bitmaps: format.md §13) built once per distinct table, kind, shape and end flag
    (STMT_END_F on a statement's last event), and their row data ranges."""
    otab, okind, oshape, olen = rb.op_table, rb.op_kind, rb.op_shape, rb.op_len
    nch = len(c_first)
    c_kind = okind[c_first]
    c_end_stmt = np.ones(nch, dtype=bool)
    if nch > 1:
        c_end_stmt[:-1] = stmt_of_op[c_first[1:]] != stmt_of_op[c_first[:-1]]
    cum = np.cumsum(olen)
    classes = [rows_event_class(k, version=fmt.rows_version) for k in _KINDS]
    shape_bits = [(present_bitmap(bb, fmt), None if ab is None else present_bitmap(ab, fmt)) for bb, ab in rb.shapes]
    ns = len(rb.shapes) + 1
    combo = ((otab[c_first].astype(np.int64) * 3 + c_kind) * ns + oshape[c_first]) * 2 + c_end_stmt
    uniq, inv = unique_ints(combo, return_inverse=True)
    bodies: list[bytes] = []
    for u in uniq.tolist():
        rest, end = u >> 1, bool(u & 1)
        s, rest = rest % ns, rest // ns
        k, ti = rest % 3, rest // 3
        cp, ca = shape_bits[s]
        ev = classes[k](table_id=tids[ti], rows_flags=STMT_END_F if end else 0, width=len(rb.tables[ti].columns),
                        columns_present=cp, columns_after=ca, rows=None, rows_raw=b"", server_id=server_id)
        bodies.append(tpl.rows_template(ev))
    return _Chunks(types=np.array([c.TYPE for c in classes], dtype=np.uint8)[c_kind],
                   dstart=(cum - olen)[c_first], dlen=cum[c_end - 1] - cum[c_first] + olen[c_first], tpl=inv,
                   bodies=bodies, tpl_len=np.array([len(x) for x in bodies], dtype=np.int64))


def _rows_queries(writer: Any, rb: RowsBatch, n_stmt: int, tpl: Any,
                  server_id: int) -> tuple[np.ndarray, list[bytes], int] | None:
    """With rows-query events (a ROWS_QUERY / ANNOTATE_ROWS before each statement's Table_map):
    per statement the index of its text's body, the distinct bodies, the events' flags; None
    without."""
    if not writer.rows_query:
        return None
    fmt = writer.fmt
    if rb.stmt_sql is None or len(rb.stmt_sql) != n_stmt:
        raise ValueError("rows-query events need the text of every statement")
    cls = AnnotateRowsEvent if fmt.is_mariadb else RowsQueryEvent
    kw = {} if fmt.is_mariadb else {"flags": FLAG_IGNORABLE}
    bodies: list[bytes] = []
    seen: dict[str, int] = {}
    ref = np.empty(n_stmt, dtype=np.int64)
    for j, sql in enumerate(rb.stmt_sql):
        r = seen.get(sql)
        if r is None:
            r = seen[sql] = len(bodies)
            ev = cls(query=sql, server_id=server_id, **kw)
            bodies.append(tpl.remember(("cm-rq", cls.TYPE, sql), lambda ev=ev: encode_body(ev, fmt)))
        ref[j] = r
    return ref, bodies, cls(query="", server_id=server_id, **kw).flags


@dataclass
class _Events:
    """The events of a plan in write order: transaction, kind (``GTID`` …), ``ref`` (the
    statement's table, the chunk, the rows-query text: by kind), and the per-event arrays
    :class:`RowsPlan` keeps."""

    txn: np.ndarray
    kind: np.ndarray
    ref: np.ndarray
    type: np.ndarray
    flags: np.ndarray
    length: np.ndarray
    dstart: np.ndarray
    dlen: np.ndarray
    tpl: np.ndarray

    def set(self, at: np.ndarray, type_code: Any, flags: Any, length: Any, tpl: Any) -> None:
        """Type, flags, length and template of events ``at`` (a mask or indices)."""
        self.type[at] = type_code
        self.flags[at] = flags
        self.length[at] = length
        self.tpl[at] = tpl


def _order_events(rb: RowsBatch, n_txn: int, stmt_first: np.ndarray, c_first: np.ndarray, mariadb: bool,
                  rows_query: bool) -> _Events:
    """Per transaction that changed something: GTID, [BEGIN] (MySQL), per statement
    [rows-query] · TABLE_MAP · its rows events, XID — ordered by (transaction, key). ``ref``:
    a Table_map's table, a rows event's chunk, a rows-query's statement."""
    ot = rb.op_txn
    nops = len(ot)
    nonempty = np.zeros(n_txn, dtype=bool)
    nonempty[ot] = True
    txns = np.flatnonzero(nonempty)
    s_txn = ot[stmt_first]
    fixed_kinds = [GTID] if mariadb else [GTID, BEGIN]
    nch = len(c_first)
    parts = [  # (txn, key, kind, ref)
        (np.repeat(txns, len(fixed_kinds)), np.tile(np.arange(len(fixed_kinds)) - 10, len(txns)),
         np.tile(np.array(fixed_kinds), len(txns)), np.zeros(len(txns) * len(fixed_kinds), dtype=np.int64)),
        (s_txn, 4 * stmt_first + 1, np.full(len(s_txn), TMAP), rb.op_table[stmt_first].astype(np.int64)),
        (ot[c_first], 4 * c_first + 2, np.full(nch, ROWS), np.arange(nch, dtype=np.int64)),
        (txns, np.full(len(txns), 4 * nops + 10), np.full(len(txns), XID), np.zeros(len(txns), dtype=np.int64)),
    ]
    if rows_query:
        parts.append((s_txn, 4 * stmt_first, np.full(len(s_txn), RQUERY), np.arange(len(s_txn), dtype=np.int64)))
    e_txn = np.concatenate([p[0] for p in parts]).astype(np.int64)
    e_key = np.concatenate([p[1] for p in parts]).astype(np.int64)
    order = np.lexsort((e_key, e_txn))  # nearly sorted already: its merge sort is fast
    ne = len(e_txn)
    return _Events(txn=e_txn[order], kind=np.concatenate([p[2] for p in parts]).astype(np.int8)[order],
                   ref=np.concatenate([p[3] for p in parts])[order], type=np.zeros(ne, dtype=np.uint8),
                   flags=np.zeros(ne, dtype=np.uint16), length=np.zeros(ne, dtype=np.int64),
                   dstart=np.zeros(ne, dtype=np.int64), dlen=np.zeros(ne, dtype=np.int64),
                   tpl=np.full(ne, -1, dtype=np.int64))


def _gtid_lengths(writer: Any, rb: RowsBatch, rng: IdRange, tpl: Any, ev: _Events, n_txn: int, fl: int) -> Any:
    """The GTID events' type, flags and length (the other events' lengths already set);
    MySQL: their bodies after the post-header (``transaction_length`` by arithmetic,
    :func:`_mysql_gtids`), returned; MariaDB: None (a body is its template, a group of one
    without a commit id)."""
    g_idx = np.flatnonzero(ev.kind == GTID)
    if not writer.fmt.is_mariadb:
        return _mysql_gtids(writer.fmt, rng.source, tpl, rb.clock, n_txn, ev.txn, g_idx, ev.type, ev.flags,
                            ev.length, fl, rb.back)
    fmt, domain, grouped = writer.fmt, rng.source.domain_id, bool(writer.settings.group_commit_ids)
    ev.type[g_idx] = MARIADB_GTID_EVENT
    ev.flags[g_idx] = FLAG_SUPPRESS_USE
    ev.length[g_idx] = HEADER_SIZE + len(mariadb_gtid_body(fmt, domain, grouped)) + fl
    if grouped:  # a group of one carries no commit id (generators/group_commit.py)
        lone = g_idx[lone_groups(rb.group_pos, ev.txn[g_idx]) < 0]
        ev.length[lone] = HEADER_SIZE + len(mariadb_gtid_body(fmt, domain, False)) + fl
    return None


def _mysql_gtids(fmt: Any, source: GtidSource, tpl: Any, clock_s: np.ndarray, n_txn: int, e_txn: np.ndarray,
                 g_idx: np.ndarray, ev_type: np.ndarray, ev_flags: np.ndarray, ev_len: np.ndarray, fl: int,
                 back: np.ndarray | None = None) -> Any:
    """The MySQL GTID / ANONYMOUS_GTID events ``g_idx`` of a plan (format.md §8): their
    type, flags and length (``ev_*`` set in place; the other events' lengths already
    there) and their bodies after the post-header; ``transaction_length`` by arithmetic:
    the fixed point from 0 of :func:`binlogwriter.batch.encoder.transaction_length`."""
    if source.tag:
        return TaggedGtids.start(fmt, source, clock_s, n_txn, e_txn, g_idx, ev_type, ev_flags, ev_len, fl, back)
    proto_cls = GtidEvent if source.sid else AnonymousGtidEvent
    proto = proto_cls(sid=source.sid or ANONYMOUS_SID, gno=1 if source.sid else 0, gtid_flags=0, lt_typecode=2,
                      last_committed=0, sequence_number=1, immediate_commit_timestamp=0, transaction_length=0,
                      immediate_server_version=fmt.server_version_number, server_id=source.server_id)
    if not plain_gtid(proto) or tpl.gtid_dt is None:
        raise NotImplementedError("GTID layout without a fixed post-header")
    ev_type[g_idx] = proto.TYPE
    ev_flags[g_idx] = proto.flags
    post = tpl.field("server_versions", (proto.immediate_server_version, proto.original_server_version))
    if proto.commit_group_ticket is not None:
        post += tpl.field("commit_group_ticket", proto.commit_group_ticket)
    ev_len[g_idx] = 0
    others = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
    g_txn = e_txn[g_idx]
    clock = clock_s.astype(np.int64)
    uc, inv = unique_ints(clock[g_txn], return_inverse=True)
    ct = _commit_timestamps(tpl, uc * 1_000_000, proto.original_commit_timestamp)
    fixed = HEADER_SIZE + tpl.gtid_dt.itemsize + ct.shape[1] + len(post) + fl
    rest = others[g_txn] + fixed
    tl = np.zeros(len(g_idx), dtype=np.int64)
    while True:  # the fixed point of transaction_length from 0 (encoder.transaction_length)
        total = rest + _packed_sizes(tl)
        if (total == tl).all():
            break
        tl = np.where(total == tl, tl, total)
    gtid_tail = GtidTails(txn=np.full(n_txn, -1, dtype=np.int64), ct=ct[inv], tl=tl, post=post)
    gtid_tail.txn[g_txn] = np.arange(len(g_txn))
    ev_len[g_idx] = fixed + _packed_sizes(tl)
    return gtid_tail


_ZSTD_LEVEL = 3  # binlogwriter.payload.compress_transaction's (the servers' default level)


def _compressed(writer: Any, rb: RowsBatch, rng: IdRange) -> RowsPlan:
    """MySQL ``binlog_transaction_compression`` (format.md §15): each group is its GTID and
    one TRANSACTION_PAYLOAD holding the rest — ``BEGIN · … · XID`` encoded without CRC32s
    and with ``log_pos`` 0 (the plain plan's bytes, footers off, XIDs from ``rng``),
    compressed as one zstd frame without content size or checksum, as
    :func:`binlogwriter.payload.compress_transaction` does; the payload body is built by
    its declaration. The GTIDs' lengths follow by arithmetic from the payloads'."""
    import zstandard

    from binlogwriter.payload import COMPRESSION_TYPE, PAYLOAD_SIZE, UNCOMPRESSED_SIZE, ZSTD

    fmt = writer.fmt
    inner = _plan(writer, rb, rng, False)
    n_txn = inner.n_txn
    wrote = np.flatnonzero(inner.sizes)
    txn_xid = np.zeros(n_txn, dtype=np.int64)
    txn_xid[wrote] = rng.next_xid + np.arange(len(wrote))
    ne = len(inner.ev_kind)
    if ne == 0:
        return bound(rng, inner, txn_xid)
    # the XIDs inside the payloads are the planned ones; the GTIDs' bytes are not kept
    raw = np.frombuffer(inner._bytes(0, ne, 0, rng.first_ids()), dtype=np.uint8).copy()
    ends = np.cumsum(inner.ev_len)
    starts = ends - inner.ev_len
    for k in range(LOG_POS_AT, FLAGS_AT):  # log_pos 0 inside a payload (format.md §15)
        raw[starts + k] = 0
    cctx = zstandard.ZstdCompressor(level=_ZSTD_LEVEL, write_content_size=False, write_checksum=False)
    mv = memoryview(raw)
    tf = inner.txn_first
    bodies: list[bytes] = []
    pflags = 0
    for t in wrote.tolist():
        a, b = int(tf[t]), int(tf[t + 1])  # event a is the GTID
        chunk = mv[int(starts[a + 1]):int(ends[b - 1])]
        comp = cctx.compress(chunk)
        ev = TransactionPayloadEvent(header_fields=[(COMPRESSION_TYPE, ZSTD), (UNCOMPRESSED_SIZE, len(chunk)),
                                                    (PAYLOAD_SIZE, len(comp))], payload=comp,
                                     server_id=rng.source.server_id)
        pflags = ev.flags
        bodies.append(encode_body(ev, fmt))
    footer = fmt.footer_size == 4
    fl = 4 if footer else 0
    ng = len(wrote)
    e_txn = np.repeat(wrote, 2)
    e_kind = np.tile(np.array([GTID, PAYLOAD], dtype=np.int8), ng)
    blen = np.array([len(x) for x in bodies], dtype=np.int64)
    ev_type = np.zeros(2 * ng, dtype=np.uint8)
    ev_flags = np.zeros(2 * ng, dtype=np.uint16)
    ev_len = np.zeros(2 * ng, dtype=np.int64)
    ev_dstart = np.zeros(2 * ng, dtype=np.int64)
    ev_dlen = np.zeros(2 * ng, dtype=np.int64)
    ev_type[1::2] = TransactionPayloadEvent.TYPE
    ev_flags[1::2] = pflags
    ev_len[1::2] = HEADER_SIZE + blen + fl
    ev_dstart[1::2] = np.cumsum(blen) - blen
    ev_dlen[1::2] = blen
    g_idx = np.arange(0, 2 * ng, 2, dtype=np.int64)
    tpl = templates_for(fmt)
    gtid_tail = _mysql_gtids(fmt, rng.source, tpl, rb.clock, n_txn, e_txn, g_idx, ev_type, ev_flags, ev_len, fl,
                             rb.back)
    sizes = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
    txn_first = np.searchsorted(e_txn, np.arange(n_txn + 1), side="left")
    rank = np.zeros(n_txn, dtype=np.int64)
    rank[wrote] = np.arange(ng)
    chunk_event = 2 * rank[inner.ev_txn[inner.chunk_event]] + 1  # a rows event's row: in its payload
    out = RowsPlan(
        fmt=fmt, n_txn=n_txn, sizes=sizes, txn_first=txn_first, ev_kind=e_kind, ev_type=ev_type,
        ev_flags=ev_flags, ev_len=ev_len, ev_tpl=np.full(2 * ng, -1, dtype=np.int64), templates=[],
        ev_dstart=ev_dstart, ev_dlen=ev_dlen, ev_txn=e_txn, data=np.frombuffer(b"".join(bodies), dtype=np.uint8),
        clock=inner.clock, back=inner.back, gtid_tail=gtid_tail, footer=footer, chunk_first=inner.chunk_first,
        chunk_event=chunk_event, used_tables=inner.used_tables)
    return bound(rng, out, txn_xid)
