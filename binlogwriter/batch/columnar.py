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
``sequence_number``) are taken from the writer's one allocator
(:class:`~binlogwriter.writer_state.IdAllocator`) only at :meth:`RowsPlan.encode`, after
rotation points are known; the planner reads an :class:`~binlogwriter.writer_state.IdRange`
and returns the table ids it gave, so planning is pure.

Two settings make the bytes depend on ids at planning (:class:`BoundRowsPlan`): MySQL
``binlog_transaction_compression`` (:func:`_compressed`: each group is ``GTID ·
TRANSACTION_PAYLOAD``, the zstd payload holding the plain plan's ``BEGIN … XID`` with the
XIDs of the range it was planned with, format.md §15) and tagged GTIDs
(:class:`_TaggedGtids`: varlen fields, so a GTID's length depends on its GNO and its
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

Size: planning a batch is one pass of array arithmetic over one event layout; the plain plan
(:func:`_plan`) and its two id-dependent variants (compression, tagged GTIDs) read the same
per-event arrays, so they stay beside it; encoding is already its own module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from binlogwriter.batch.columnar_encode import (
    BEGIN,
    GTID,
    PAYLOAD,
    ROWS,
    RQUERY,
    TMAP,
    XID,
    DeferredImages,
    RowsPlan,
    _GtidTails,
    _Ids,
    lone_groups,
    mgtid_template,
)
from binlogwriter.batch.scatter import crc_by_difference as crc_by_difference  # re-exported
from binlogwriter.batch.scatter import place_runs
from binlogwriter.batch.templates import _memo_key, _plain_gtid, _templates
from binlogwriter.batch.unique import unique_ints
from binlogwriter.errors import BinlogError
from binlogwriter.events import (
    ANONYMOUS_SID,
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    GtidEvent,
    GtidTaggedEvent,
    QueryEvent,
    RowsQueryEvent,
    TransactionPayloadEvent,
    XidEvent,
    encode_body,
)
from binlogwriter.events.rows import rows_event_class
from binlogwriter.events.table import known_post_header
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_SUPPRESS_USE, HEADER_SIZE
from binlogwriter.layouts.primitives import packed_int_size
from binlogwriter.layouts.rows import STMT_END_F
from binlogwriter.logical_clock import last_committed
from binlogwriter.transaction import _present_bitmap, query_status_vars
from binlogwriter.writer_state import IdRange

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


def columnar_supported(writer: Any) -> bool:
    """Whether ``writer``'s settings are ones :func:`plan_rows_batch` lays out: every
    setting the generator can ask for (compression, anonymous / numbered / tagged GTIDs,
    every flavor, image and metadata mode); false only for a format whose FDE declares a
    post-header longer than the declarations know (docs/edge-cases.md 19: the writer pads
    its own events with zeros there, the batch templates do not)."""
    fmt = writer.fmt
    if fmt.table_id_size != 6:  # the batch templates write 6-byte table ids (format.md §12)
        return False
    for t in (2, 16, 19, 33, 34, 40, 42, 162, 23, 24, 25, 30, 31, 32):
        if not fmt.post_header_len(t):  # a type this flavor's FDE does not declare: never written
            continue                    # (MariaDB's 33/34, MySQL 8.4's v1 rows events 23-25)
        ev_extra = writer._extra.get(t)
        if ev_extra is None:
            known = known_post_header(t, fmt)
            ev_extra = fmt.post_header_len(t) - known if known is not None else 0
        if ev_extra:
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
    (:meth:`~binlogwriter.writer_groups.GroupsMixin.plan_rows`). With MySQL
    ``binlog_transaction_compression`` each group is ``GTID · TRANSACTION_PAYLOAD``
    (format.md §15, :func:`_compressed`)."""
    rng = writer.ids.peek() if ids is None else ids
    if writer.settings.transaction_compression and not writer.fmt.is_mariadb:
        return _compressed(writer, rb, rng)
    return _plan(writer, rb, rng, writer.fmt.footer_size == 4)


def _given_table_ids(rng: IdRange, tables: list) -> list[int]:
    """Table ids of ``tables`` (in order of first use) from ``rng``, by
    :meth:`IdAllocator.table_id <binlogwriter.writer_state.IdAllocator.table_id>`'s rule
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
    """:func:`plan_rows_batch` of plain groups (``footer``: whether events carry a CRC32)."""
    fmt = writer.fmt
    st = writer.settings
    tpl = _templates(fmt)
    fl = 4 if footer else 0
    n_txn = len(rb.clock)
    nops = len(rb.op_txn)
    ot, otab, okind, oshape, olen = rb.op_txn, rb.op_table, rb.op_kind, rb.op_shape, rb.op_len
    ostart = np.cumsum(olen) - olen
    if nops == 0:  # nothing changed: no groups
        z = np.zeros(0, dtype=np.int64)
        return RowsPlan(writer=writer, n_txn=n_txn, sizes=np.zeros(n_txn, dtype=np.int64),
                        txn_first=np.zeros(n_txn + 1, dtype=np.int64), ev_kind=z.astype(np.int8),
                        ev_type=z.astype(np.uint8), ev_flags=z.astype(np.uint16), ev_len=z, ev_tpl=z, templates=[],
                        ev_dstart=z, ev_dlen=z, ev_txn=z, data=rb.data, clock=rb.clock.astype(np.uint32), back=rb.back,
                        group_pos=rb.group_pos, hold=rb.hold,
                        gtid_tail=None, footer=footer, used_tables=[])
    # statements and runs (format.md §13: one table and kind per statement, one bitmap per event)
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
    run_end = np.append(run_first[1:], nops)
    stmt_of_op = np.cumsum(new_stmt) - 1
    stmt_first = np.flatnonzero(new_stmt)
    # per table: id, table map body; per (table, kind, shape, end flag): rows template
    # table ids are given in order of first use, as the per-transaction path gives them
    used, first_at = np.unique(otab, return_index=True)
    tids = [0] * len(rb.tables)
    tm_ev: list[Any] = [None] * len(rb.tables)
    tm_body = [b""] * len(rb.tables)
    first_use = used[np.argsort(first_at)].tolist()
    got = _given_table_ids(rng, [rb.tables[ti] for ti in first_use])
    for ti, tid in zip(first_use, got, strict=True):
        tids[ti] = tid
        tm_ev[ti] = e = writer.table_map_event(rb.tables[ti], tid)
        # keyed by content: the templates outlive this run (one per format, process-wide), and
        # an id() of an event that is gone can be another table's in the next run
        tm_body[ti] = tpl.remember(_memo_key(e), lambda e=e: encode_body(e, fmt))
    width = [len(t.columns) for t in rb.tables]
    post = 10 if fmt.rows_version == 2 else 8
    limit = st.row_event_max_size
    classes = [rows_event_class(k, version=fmt.rows_version) for k in _KINDS]
    shape_bits = [(_present_bitmap(bb, fmt), None if ab is None else _present_bitmap(ab, fmt)) for bb, ab in rb.shapes]

    def rows_template(ti: int, k: int, s: int, end: bool) -> bytes:
        cp, ca = shape_bits[s]
        ev = classes[k](table_id=tids[ti], rows_flags=STMT_END_F if end else 0, width=width[ti], columns_present=cp,
                        columns_after=ca, rows=None, rows_raw=b"", server_id=writer.server_id)
        return tpl.rows_template(ev)

    # split runs at row_event_max_size (the rule of transaction.split_rows_events)
    r_tab = otab[run_first]
    r_shape = oshape[run_first]
    cum = np.cumsum(olen)
    r_bytes = cum[run_end - 1] - cum[run_first] + olen[run_first]
    wpk = np.array([packed_int_size(x) for x in width], dtype=np.int64)
    nbm = (np.array(width, dtype=np.int64) + 7) // 8
    has_after = np.array([ab is not None for _, ab in rb.shapes], dtype=np.int64)
    overhead = post + wpk[r_tab] + nbm[r_tab] * (1 + has_after[r_shape])
    chunks_first: list[int] = []
    chunks_end: list[int] = []
    big = np.flatnonzero(overhead + r_bytes > limit)
    if len(big) == 0:
        c_first, c_end = run_first, run_end
    else:
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
        c_first = np.asarray(chunks_first, dtype=np.int64)
        c_end = np.asarray(chunks_end, dtype=np.int64)
    nch = len(c_first)
    c_tab, c_kind, c_shape = otab[c_first], okind[c_first], oshape[c_first]
    c_end_stmt = np.ones(nch, dtype=bool)
    if nch > 1:
        c_end_stmt[:-1] = stmt_of_op[c_first[1:]] != stmt_of_op[c_first[:-1]]
    c_dstart = ostart[c_first]
    c_dlen = cum[c_end - 1] - cum[c_first] + olen[c_first]
    tkey: dict[tuple, int] = {}
    c_tpl = np.empty(nch, dtype=np.int64)
    tpl_bodies: list[bytes] = []
    combo = (((c_tab.astype(np.int64) * 3 + c_kind) * (len(rb.shapes) + 1) + c_shape) * 2 + c_end_stmt)
    uniq, inv = unique_ints(combo, return_inverse=True)
    for u_i, u in enumerate(uniq.tolist()):
        end = bool(u & 1)
        rest = u >> 1
        s = rest % (len(rb.shapes) + 1)
        rest //= len(rb.shapes) + 1
        k = rest % 3
        ti = rest // 3
        tpl_bodies.append(rows_template(ti, k, s, end))
        tkey[u] = u_i
    c_tpl = inv
    tpl_len = np.array([len(x) for x in tpl_bodies], dtype=np.int64)
    # events: GTID, [BEGIN], per statement TABLE_MAP then its chunks, XID — ordered by (txn, key)
    s_txn = ot[stmt_first]
    s_tab = otab[stmt_first]
    nonempty = np.zeros(n_txn, dtype=bool)
    nonempty[ot] = True
    txns = np.flatnonzero(nonempty)
    mariadb = fmt.is_mariadb
    fixed_kinds = [GTID] if mariadb else [GTID, BEGIN]
    parts_txn = [np.repeat(txns, len(fixed_kinds)), s_txn, ot[c_first], txns]
    parts_key = [np.tile(np.arange(len(fixed_kinds)) - 10, len(txns)), 4 * stmt_first + 1, 4 * c_first + 2,
                 np.full(len(txns), 4 * nops + 10)]
    parts_kind = [np.tile(np.array(fixed_kinds), len(txns)), np.full(len(s_txn), TMAP), np.full(nch, ROWS),
                  np.full(len(txns), XID)]
    parts_ref = [np.zeros(len(txns) * len(fixed_kinds), dtype=np.int64), s_tab.astype(np.int64),
                 np.arange(nch, dtype=np.int64), np.zeros(len(txns), dtype=np.int64)]
    rq_bodies: list[bytes] = []
    rq_flags = 0
    if writer.rows_query:  # a ROWS_QUERY / ANNOTATE_ROWS before each statement's table map
        if rb.stmt_sql is None or len(rb.stmt_sql) != len(stmt_first):
            raise ValueError("rows-query events need the text of every statement")
        cls = AnnotateRowsEvent if fmt.is_mariadb else RowsQueryEvent
        kw = {} if fmt.is_mariadb else {"flags": FLAG_IGNORABLE}
        rq_flags = cls(query="", server_id=writer.server_id, **kw).flags
        seen: dict[str, int] = {}
        rq_ref = np.empty(len(stmt_first), dtype=np.int64)
        for j, sql in enumerate(rb.stmt_sql):
            r = seen.get(sql)
            if r is None:
                r = seen[sql] = len(rq_bodies)
                ev = cls(query=sql, server_id=writer.server_id, **kw)
                rq_bodies.append(tpl.remember(("cm-rq", cls.TYPE, sql), lambda ev=ev: encode_body(ev, fmt)))
            rq_ref[j] = r
        parts_txn.append(s_txn)
        parts_key.append(4 * stmt_first)
        parts_kind.append(np.full(len(s_txn), RQUERY))
        parts_ref.append(rq_ref)
    e_txn = np.concatenate(parts_txn).astype(np.int64)
    e_key = np.concatenate(parts_key).astype(np.int64)
    order = np.lexsort((e_key, e_txn))  # nearly sorted already: its merge sort is fast
    e_txn = e_txn[order]
    e_kind = np.concatenate(parts_kind).astype(np.int8)[order]
    e_ref = np.concatenate(parts_ref)[order]
    ne = len(e_txn)
    # bodies and lengths
    begin = QueryEvent(thread_id=st.thread_id, db="", query="BEGIN", flags=FLAG_SUPPRESS_USE,
                       status_vars=query_status_vars(fmt, st), server_id=writer.server_id)
    begin_body = tpl.remember(("cm-begin", st), lambda: encode_body(begin, fmt))
    xid_ev = XidEvent(xid=0, server_id=writer.server_id)
    ev_type = np.zeros(ne, dtype=np.uint8)
    ev_flags = np.zeros(ne, dtype=np.uint16)
    ev_len = np.zeros(ne, dtype=np.int64)
    ev_dstart = np.zeros(ne, dtype=np.int64)
    ev_dlen = np.zeros(ne, dtype=np.int64)
    ev_tpl = np.full(ne, -1, dtype=np.int64)  # template body of the event (index into templates)
    templates = [begin_body, *tm_body, *tpl_bodies, *rq_bodies]
    m = e_kind == BEGIN
    ev_type[m] = 2
    ev_flags[m] = begin.flags
    ev_len[m] = HEADER_SIZE + len(begin_body) + fl
    ev_tpl[m] = 0
    m = e_kind == XID
    ev_type[m] = 16
    ev_flags[m] = xid_ev.flags
    ev_len[m] = HEADER_SIZE + tpl.xid_dt.itemsize + fl
    m = e_kind == TMAP
    tm_idx = np.flatnonzero(m)
    refs = e_ref[tm_idx]
    ev_type[tm_idx] = 19
    ev_flags[tm_idx] = np.array([0 if e is None else e.flags for e in tm_ev], dtype=np.uint16)[refs]
    ev_len[tm_idx] = HEADER_SIZE + np.array([len(b) for b in tm_body], dtype=np.int64)[refs] + fl
    ev_tpl[tm_idx] = 1 + refs
    m = e_kind == ROWS
    rw_idx = np.flatnonzero(m)
    refs = e_ref[rw_idx]
    ev_type[rw_idx] = np.array([c.TYPE for c in classes], dtype=np.uint8)[c_kind[refs]]
    ev_len[rw_idx] = HEADER_SIZE + tpl_len[c_tpl[refs]] + c_dlen[refs] + fl
    ev_dstart[rw_idx] = c_dstart[refs]
    ev_dlen[rw_idx] = c_dlen[refs]
    ev_tpl[rw_idx] = 1 + len(tm_body) + c_tpl[refs]
    chunk_event = np.empty(nch, dtype=np.int64)
    chunk_event[refs] = rw_idx
    m = e_kind == RQUERY
    if m.any():
        q_idx = np.flatnonzero(m)
        refs = e_ref[q_idx]
        ev_type[q_idx] = 160 if fmt.is_mariadb else 29
        ev_flags[q_idx] = rq_flags
        ev_len[q_idx] = HEADER_SIZE + np.array([len(x) for x in rq_bodies], dtype=np.int64)[refs] + fl
        ev_tpl[q_idx] = 1 + len(tm_body) + len(tpl_bodies) + refs
    # GTIDs: their lengths (transaction_length by arithmetic for MySQL)
    g_idx = np.flatnonzero(e_kind == GTID)
    gtid_tail: Any = None
    if mariadb:
        ev_type[g_idx] = 162
        ev_flags[g_idx] = FLAG_SUPPRESS_USE
        ev_len[g_idx] = HEADER_SIZE + len(mgtid_template(writer)) + fl
        if st.group_commit_ids:  # a group of one carries no commit id (generators/group_commit.py)
            lone = g_idx[lone_groups(rb.group_pos, e_txn[g_idx]) < 0]
            ev_len[lone] = HEADER_SIZE + len(mgtid_template(writer, grouped=False)) + fl
    else:
        gtid_tail = _mysql_gtids(writer, tpl, rb.clock, n_txn, e_txn, g_idx, ev_type, ev_flags, ev_len, fl, rb.back)
    sizes = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
    txn_first = np.searchsorted(e_txn, np.arange(n_txn + 1), side="left")
    return _bound(writer, rng, RowsPlan(writer=writer, n_txn=n_txn, sizes=sizes, txn_first=txn_first, ev_kind=e_kind, ev_type=ev_type,
                    ev_flags=ev_flags, ev_len=ev_len, ev_tpl=ev_tpl, templates=templates, ev_dstart=ev_dstart, ev_dlen=ev_dlen,
                    ev_txn=e_txn, data=rb.data, clock=rb.clock.astype(np.uint32), back=rb.back,
                    group_pos=rb.group_pos, hold=rb.hold, gtid_tail=gtid_tail,
                    footer=footer, chunk_first=np.asarray(c_first, dtype=np.int64), chunk_event=chunk_event,
                    used_tables=[(rb.tables[ti], tid) for ti, tid in zip(first_use, got, strict=True)]))


def _mysql_gtids(writer: Any, tpl: Any, clock_s: np.ndarray, n_txn: int, e_txn: np.ndarray, g_idx: np.ndarray,
                 ev_type: np.ndarray, ev_flags: np.ndarray, ev_len: np.ndarray, fl: int,
                 back: np.ndarray | None = None) -> Any:
    """The MySQL GTID / ANONYMOUS_GTID events ``g_idx`` of a plan (format.md §8): their
    type, flags and length (``ev_*`` set in place; the other events' lengths already
    there) and their bodies after the post-header; ``transaction_length`` by arithmetic:
    the fixed point from 0 of :func:`binlogwriter.batch.encoder.transaction_length`."""
    fmt = writer.fmt
    if writer._tag:
        return _TaggedGtids.start(writer, clock_s, n_txn, e_txn, g_idx, ev_type, ev_flags, ev_len, fl, back)
    proto_cls = GtidEvent if writer._sid else AnonymousGtidEvent
    proto = proto_cls(sid=writer._sid or ANONYMOUS_SID, gno=1 if writer._sid else 0, gtid_flags=0, lt_typecode=2,
                      last_committed=0, sequence_number=1, immediate_commit_timestamp=0, transaction_length=0,
                      immediate_server_version=fmt.server_version_number, server_id=writer.server_id)
    if not _plain_gtid(proto) or tpl.gtid_dt is None:
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
    gtid_tail = _GtidTails(txn=np.full(n_txn, -1, dtype=np.int64), ct=ct[inv], tl=tl, post=post)
    gtid_tail.txn[g_txn] = np.arange(len(g_txn))
    ev_len[g_idx] = fixed + _packed_sizes(tl)
    return gtid_tail


class BoundRowsPlan(RowsPlan):
    """A :class:`RowsPlan` whose bytes depend on ids it was planned with:

    * compressed groups (:func:`_compressed`): the payloads hold the XIDs the plan was made
      with (``txn_xid[t]``: transaction ``t``'s, 0 when it writes nothing), so the writer's
      next XID must be that one when a range is placed;
    * tagged GTIDs (:class:`_TaggedGtids`): a GTID_TAGGED_LOG_EVENT's length depends on its
      GNO and its ``sequence_number`` in the file (varlen fields, format.md §8), which
      restarts at each rotation: :meth:`rebase` re-plans the lengths from a transaction on
      for the writer's current file (``BinlogWriter.prepare_planned`` calls it before the
      rotation point is searched)."""

    txn_xid: np.ndarray | None = None

    def rebase(self, lo: int, seq: int, gno: int, room: int) -> None:
        """Lengths of transactions ``lo..`` when the first of them that writes a group gets
        ``sequence_number`` ``seq + 1`` and GNO ``gno + 1``, up to the first whose end is at
        least ``room`` bytes on (where the writer rotates); ``sizes`` / ``ev_len`` updated."""
        tails = self.gtid_tail
        if isinstance(tails, _TaggedGtids):
            tails.rebase(self, lo, seq, gno, room)

    def encode_later(self, lo: int, hi: int, offset: int):
        if self.txn_xid is not None:
            wrote = np.flatnonzero(self.sizes[lo:hi])
            if len(wrote):
                want = int(self.txn_xid[lo + int(wrote[0])])
                have = self.writer.ids.xid + 1
                if have != want:
                    raise BinlogError(f"compressed batch planned with XID {want} next, the writer's next is "
                                      f"{have}: XIDs were taken since it was planned")
        return super().encode_later(lo, hi, offset)


def _bound(writer: Any, rng: IdRange, plan: RowsPlan, txn_xid: np.ndarray | None = None) -> RowsPlan:
    """``plan`` as a :class:`BoundRowsPlan` when its bytes depend on planned ids."""
    if txn_xid is None and not isinstance(plan.gtid_tail, _TaggedGtids):
        return plan
    out = BoundRowsPlan(**{f: getattr(plan, f) for f in plan.__dataclass_fields__})
    out.txn_xid = txn_xid
    if isinstance(plan.gtid_tail, _TaggedGtids):  # the batch continues the file as the writer is now
        out.rebase(0, rng.seq_in_file, rng.gno, 1 << 62)
    return out


class _TaggedGtids:
    """MySQL 8.3+ tagged GTIDs (GTID_TAGGED_LOG_EVENT, format.md §8) of a plan: a
    ``mysql::serialization`` message of varlen fields, so each body is built by its
    declaration (:func:`encode_body` of the event ``next_mysql_gtid`` makes) for the GNO and
    ``sequence_number`` it will have, and its ``transaction_length`` found by re-encoding from
    0 (``BatchBuilder``'s rule). Per transaction: the group's bytes without its GTID
    (``others``), the commit timestamp, the GTID's event index, and the (seq, gno) its body
    was built for (0: none yet)."""

    def __init__(self, writer: Any, others: np.ndarray, ict: np.ndarray, g_of_txn: np.ndarray, fl: int,
                 back: np.ndarray | None = None) -> None:
        self.back = back  # per transaction: dependency distance (binlogwriter/logical_clock.py); None: 1
        self.fmt = writer.fmt
        self.sid, self.tag, self.server_id = writer._sid, writer._tag, writer.server_id
        self.version = writer.fmt.server_version_number
        self.others = others
        self.ict = ict
        self.g_of_txn = g_of_txn
        self.fl = fl
        n = len(others)
        self.seq = np.zeros(n, dtype=np.int64)
        self.gno = np.zeros(n, dtype=np.int64)
        self.body: list[bytes] = [b""] * n

    @classmethod
    def start(cls, writer: Any, clock_s: np.ndarray, n_txn: int, e_txn: np.ndarray, g_idx: np.ndarray,
              ev_type: np.ndarray, ev_flags: np.ndarray, ev_len: np.ndarray, fl: int,
              back: np.ndarray | None = None) -> _TaggedGtids:
        ev_len[g_idx] = 0
        others = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
        g_of_txn = np.full(n_txn, -1, dtype=np.int64)
        g_of_txn[e_txn[g_idx]] = g_idx
        proto = cls.event(writer._sid, writer._tag, 1, 1, 0, 0, writer.fmt.server_version_number, writer.server_id)
        ev_type[g_idx] = proto.TYPE
        ev_flags[g_idx] = proto.flags
        return cls(writer, others, clock_s.astype(np.int64) * 1_000_000, g_of_txn, fl, back)

    @staticmethod
    def event(sid: str, tag: str, gno: int, seq: int, ict: int, tl: int, version: int,
              server_id: int, back: int = 1) -> GtidTaggedEvent:
        """The event ``EventsMixin.next_mysql_gtid`` makes for a tagged GTID."""
        return GtidTaggedEvent(sid=sid, tag=tag, gno=gno, gtid_flags=0, last_committed=last_committed(seq, back),
                               sequence_number=seq,
                               immediate_commit_timestamp=ict, transaction_length=tl,
                               immediate_server_version=version, server_id=server_id)

    def build(self, t: int, seq: int, gno: int) -> bytes:
        back = 1 if self.back is None else int(self.back[t])
        ev = self.event(self.sid, self.tag, gno, seq, int(self.ict[t]), 0, self.version, self.server_id, back)
        rest = int(self.others[t]) + HEADER_SIZE + self.fl
        body = encode_body(ev, self.fmt)
        while True:  # the fixed point of transaction_length from 0 (encoder.BatchBuilder)
            total = rest + len(body)
            if total == ev.transaction_length:
                return body
            ev.transaction_length = total
            body = encode_body(ev, self.fmt)

    def rebase(self, plan: RowsPlan, lo: int, seq: int, gno: int, room: int) -> None:
        used = 0
        sizes, ev_len = plan.sizes, plan.ev_len
        for t in range(lo, plan.n_txn):
            g = int(self.g_of_txn[t])
            if g < 0:
                continue
            seq += 1
            gno += 1
            if self.seq[t] != seq or self.gno[t] != gno:
                body = self.body[t] = self.build(t, seq, gno)
                self.seq[t], self.gno[t] = seq, gno
                ev_len[g] = HEADER_SIZE + len(body) + self.fl
                sizes[t] = self.others[t] + ev_len[g]
            used += int(sizes[t])
            if used >= room:
                break

    def bodies(self, ph: np.ndarray, txns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The GTID bodies of transactions ``txns`` for the ids ``ph`` the encoder took
        (``RowsPlan._bytes``): their lengths and rows; an id other than the one a body was
        built for is an error (the plan was not rebased for the writer's file)."""
        seq, gno = ph["sequence_number"].tolist(), ph["gno"].tolist()
        rows = []
        for k, t in enumerate(txns.tolist()):
            if self.seq[t] != seq[k] or self.gno[t] != gno[k]:
                raise BinlogError(f"tagged GTID of transaction {t} planned as {self.gno[t]} (sequence_number "
                                  f"{self.seq[t]}), written as {gno[k]} ({seq[k]}): plan not rebased")
            rows.append(self.body[t])
        lens = np.array([len(b) for b in rows], dtype=np.int64)
        m = np.zeros((len(rows), int(lens.max()) if rows else 0), dtype=np.uint8)
        for k, b in enumerate(rows):
            m[k, :len(b)] = np.frombuffer(b, dtype=np.uint8)
        return lens, m


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
        return _bound(writer, rng, inner, txn_xid)
    sid = bytes.fromhex((writer._sid or ANONYMOUS_SID).replace("-", ""))
    ids = _Ids(xid=rng.next_xid, server_id=writer.server_id, seq=rng.seq_in_file + 1,
               gno=rng.gno + 1 if writer._sid else 0, sid=sid)  # the GTIDs' bytes are not kept
    raw = np.frombuffer(inner._bytes(0, ne, 0, ids), dtype=np.uint8).copy()
    ends = np.cumsum(inner.ev_len)
    starts = ends - inner.ev_len
    for k in range(13, 17):  # log_pos 0 inside a payload (format.md §15)
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
                                     server_id=writer.server_id)
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
    tpl = _templates(fmt)
    gtid_tail = _mysql_gtids(writer, tpl, rb.clock, n_txn, e_txn, g_idx, ev_type, ev_flags, ev_len, fl, rb.back)
    sizes = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
    txn_first = np.searchsorted(e_txn, np.arange(n_txn + 1), side="left")
    rank = np.zeros(n_txn, dtype=np.int64)
    rank[wrote] = np.arange(ng)
    chunk_event = 2 * rank[inner.ev_txn[inner.chunk_event]] + 1  # a rows event's row: in its payload
    out = RowsPlan(
        writer=writer, n_txn=n_txn, sizes=sizes, txn_first=txn_first, ev_kind=e_kind, ev_type=ev_type,
        ev_flags=ev_flags, ev_len=ev_len, ev_tpl=np.full(2 * ng, -1, dtype=np.int64), templates=[],
        ev_dstart=ev_dstart, ev_dlen=ev_dlen, ev_txn=e_txn, data=np.frombuffer(b"".join(bodies), dtype=np.uint8),
        clock=inner.clock, back=inner.back, gtid_tail=gtid_tail, footer=footer, chunk_first=inner.chunk_first,
        chunk_event=chunk_event, used_tables=inner.used_tables)
    return _bound(writer, rng, out, txn_xid)
