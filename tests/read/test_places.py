"""The field places the fast readers use (binlogwriter/read/places.py) follow the construct
layouts: on the real layouts and on mutated ones (a field widened, narrowed or moved), every
place reads back the value construct built there. A reader with an offset of its own (not
derived) would pass on the real layout and fail on a mutation."""

from __future__ import annotations

import struct

import construct as cs
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.events.table import EVENTS
from binlogwriter.layouts import gtid as lgtid
from binlogwriter.layouts import mariadb as lmariadb
from binlogwriter.layouts.header import HEADER_SIZE
from binlogwriter.layouts.primitives import PackedInt, read_packed
from binlogwriter.layouts.rows import ROWS_TYPES, rows_fields
from binlogwriter.read import places

_INTS = [cs.Int8ul, cs.Int16ul, cs.Int32ul, cs.Int64ul, cs.Int64sl, cs.Int32sl]


def _value(con, draw):
    con = places.unwrap(con)
    if isinstance(con, cs.FormatField):
        size = con.sizeof()
        signed = con.fmtstr[-1].islower()
        lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
        return draw(st.integers(lo, hi))
    return draw(st.binary(min_size=16, max_size=16)).hex()  # the sid (Uuid adapter)


@st.composite
def _gtid_layout(draw):
    """The real GTID post-header, or one with fields re-typed and reordered (sid kept)."""
    fields = list(lgtid.GTID_FIELDS)
    n_post = EVENTS[33].n_post
    post = fields[:n_post]
    if draw(st.booleans()):
        post = [f if f.name == "sid" else f.name / draw(st.sampled_from(_INTS)) for f in post]
        post = draw(st.permutations(post))
    return post + fields[n_post:], n_post


@settings(max_examples=150, deadline=None)
@given(_gtid_layout(), st.data())
def test_gtid_places_follow_the_layout(layout, data):
    fields, n_post = layout
    values = {f.name: _value(f, data.draw) for f in fields[:n_post]}
    values["sid"] = "-".join((values["sid"][:8], values["sid"][8:12], values["sid"][12:16], values["sid"][16:20],
                              values["sid"][20:]))
    imm = data.draw(st.integers(0, (1 << 55) - 1))
    orig = data.draw(st.none() | st.integers(0, (1 << 56) - 1))
    tlen = data.draw(st.integers(0, 1 << 40))
    values.update(commit_timestamps=(imm, orig), transaction_length=tlen, server_versions=(80040, None),
                  commit_group_ticket=None)
    body = cs.Struct(*fields).build(values)
    event = bytes(HEADER_SIZE) + body
    p = places.gtid_places(fields, n_post)
    assert p.post == sum(places.unwrap(f).sizeof() for f in fields[:n_post])
    got = dict(zip(p.names, p.fixed.unpack_from(event, HEADER_SIZE), strict=True))
    assert got["sid"].hex() == values["sid"].replace("-", "")
    assert {k: v for k, v in got.items() if k != "sid"} == {k: v for k, v in values.items()
                                                           if k in got and k != "sid"}
    assert event[p.sid:p.sid + p.sid_size].hex() == values["sid"].replace("-", "")
    assert int.from_bytes(event[p.gno:p.gno + p.gno_size], "little", signed=True) == values["gno"] or \
        int.from_bytes(event[p.gno:p.gno + p.gno_size], "little") == values["gno"]
    ts = int.from_bytes(event[p.ts:p.ts + p.ts_size], "little")
    assert ts & ((1 << (8 * p.ts_size - 1)) - 1) == imm and bool(ts >> (8 * p.ts_size - 1)) == (orig is not None)
    after_ts = p.ts + p.ts_size * (2 if orig is not None else 1)
    assert read_packed(event, after_ts, len(event))[:2] == (tlen, len(event) - p.sv_size)


def _key(p):
    return tuple(x.format if isinstance(x, struct.Struct) else x for x in p)


def test_the_readers_use_the_real_layout():
    """The module places are those of the registered GTID / MariaDB GTID / rows layouts."""
    assert _key(places.MYSQL_GTID) == _key(places.gtid_places(lgtid.GTID_FIELDS, EVENTS[33].n_post))
    assert _key(places.MARIADB_GTID) == _key(places.mariadb_gtid_places(lmariadb.GTID_FIELDS))
    for t in ROWS_TYPES:
        for size in (4, 6):
            assert places.rows_places_of(t, size) == places.rows_places(rows_fields(t, size), EVENTS[t].n_post)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_mariadb_gtid_places_follow_the_layout(data):
    fields = list(lmariadb.GTID_FIELDS)
    if data.draw(st.booleans()):
        head = [f.name / data.draw(st.sampled_from(_INTS[:4])) for f in fields[:3] if f.name != "flags2"]
        head.insert(data.draw(st.integers(0, 2)), fields[2])
        fields = head + fields[3:]
    values = {f.name: _value(f, data.draw) for f in fields[:3]}
    values["flags2"] = data.draw(st.sampled_from([0, lmariadb.FL_GROUP_COMMIT_ID]))
    cid = data.draw(st.integers(0, (1 << 64) - 1)) if values["flags2"] else None
    values.update(commit_id=cid, xid=None, flags_extra=None, extra_engines=None, sa_seq_no=None, trailing=None)
    event = bytes(HEADER_SIZE) + cs.Struct(*fields).build(values)
    p = places.mariadb_gtid_places(fields)
    got = dict(zip(p.names, p.fixed.unpack_from(event, HEADER_SIZE), strict=True))
    assert got == {k: values[k] for k in p.names}
    assert event[p.flags2] == values["flags2"]
    assert int.from_bytes(event[p.seq_no:p.seq_no + p.seq_no_size], "little") == values["seq_no"]
    assert int.from_bytes(event[p.domain_id:p.domain_id + p.domain_id_size], "little") == values["domain_id"]
    if cid is not None:
        assert int.from_bytes(event[p.commit_id:p.commit_id + p.commit_id_size], "little") == cid


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(ROWS_TYPES), st.sampled_from([4, 6]), st.booleans(), st.data())
def test_rows_places_follow_the_layout(t, tid_size, mutate, data):
    fields = rows_fields(t, tid_size)
    n_post = EVENTS[t].n_post
    if mutate:  # a wider flags field: every later place moves
        fields = [f if f.name != "rows_flags" else "rows_flags" / cs.Int32ul for f in fields]
    flags = data.draw(st.integers(0, 0xFFFF))
    extra = data.draw(st.binary(max_size=8))
    head = fields[:[f.name for f in fields].index("width")]  # post-header and v2 extra info
    body = cs.Struct(*head).build({"table_id": 7, "rows_flags": flags, "extra_info": extra})
    p = places.rows_places(fields, n_post)
    assert int.from_bytes(body[:p.table_id_size], "little") == 7
    assert int.from_bytes(body[p.flags:p.flags + 2], "little") == flags
    if p.var_header is None:
        assert p.post == len(body)
    else:
        assert int.from_bytes(body[p.var_header:p.var_header + p.var_header_size], "little") == len(extra) + 2
        assert p.var_header + len(extra) + 2 == len(body)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, (1 << 64) - 1) | st.sampled_from([250, 251, 65535, 65536, (1 << 24) - 1, 1 << 24]),
       st.binary(max_size=3))
def test_read_packed_is_packedint(value, tail):
    raw = PackedInt.build(value)
    assert read_packed(raw + tail, 0, len(raw) + len(tail)) == (value, len(raw), True)
    assert read_packed(raw, 0, len(raw) - 1) is None


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=10))
def test_read_packed_on_any_bytes(raw):
    got = read_packed(raw, 0, len(raw))
    try:
        v = PackedInt.parse(raw)
    except cs.ConstructError:
        assert got is None
        return
    assert got is not None and got[0] == v
    assert got[2] == (len(PackedInt.build(v)) == got[1])
