"""Property tests of the event codec (docs/design.md principles 1, 3, 6).

For every typed event class (except Table_map and rows events, which have their own tests)
under each flavor and checksum: ``decode(encode(x)) == x`` and ``encode(decode(encode(x)))``
is the same bytes. Random bytes fed to :func:`decode_event` raise only
:class:`binlogwriter.errors.BinlogError` subclasses, never a construct/struct/Index/Value error.
"""

from __future__ import annotations

import dataclasses
import zlib

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from binlogwriter.compression import mariadb_compress
from binlogwriter.errors import BinlogError
from binlogwriter.events import (
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    AppendBlockEvent,
    BeginLoadQueryEvent,
    BinlogCheckpointEvent,
    DeleteFileEvent,
    Event,
    ExecuteLoadQueryEvent,
    FormatDescriptionEvent,
    GtidEvent,
    GtidTaggedEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    IncidentEvent,
    IntvarEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    PreviousGtidsEvent,
    QueryCompressedEvent,
    QueryEvent,
    RandEvent,
    RotateEvent,
    RowsQueryEvent,
    StartEncryptionEvent,
    StopEvent,
    TransactionPayloadEvent,
    UserVarEvent,
    XaPrepareEvent,
    XidEvent,
    decode_event,
    encode_event,
)
from binlogwriter.format import BinlogFormat, Checksum

FORMATS = [BinlogFormat.preset(f, checksum=c) for f in ("mysql80", "mysql84", "mariadb1011")
           for c in (Checksum.CRC32, Checksum.NONE)]
formats = st.sampled_from(FORMATS)

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def uint(bits: int) -> st.SearchStrategy[int]:
    return st.integers(0, (1 << bits) - 1)


def sint(bits: int) -> st.SearchStrategy[int]:
    return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


# text that survives utf-8 + surrogateescape: no surrogate code points
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
long_text = st.text(st.characters(exclude_categories=("Cs",)), min_size=200, max_size=700)
short_bytes = st.binary(max_size=40)
ascii_name = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=20)
uuids = st.binary(min_size=16, max_size=16).map(
    lambda b: f"{b[:4].hex()}-{b[4:6].hex()}-{b[6:8].hex()}-{b[8:10].hex()}-{b[10:].hex()}")
tags = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_0123456789"), min_size=1, max_size=32)


def text_max_bytes(n: int) -> st.SearchStrategy[str]:
    return text.filter(lambda s: len(s.encode("utf-8")) <= n)


headers = st.fixed_dictionaries({
    "timestamp": uint(32), "server_id": uint(32), "flags": uint(16).map(lambda f: f & ~0x0001),
    "log_pos": uint(32),
})

# ------------------------------------------------------------------------------ QUERY status vars

STATUS_VALUES = {
    0: uint(32),
    1: uint(64),
    2: ascii_name.map(lambda s: {"name": s}),
    3: st.fixed_dictionaries({"increment": uint(16), "offset": uint(16)}),
    4: st.fixed_dictionaries({"client": uint(16), "connection": uint(16), "server": uint(16)}),
    5: text_max_bytes(255),
    6: text_max_bytes(255),
    7: uint(16),
    8: uint(16),
    9: uint(64),
    10: uint(32),
    11: st.fixed_dictionaries({"user": text_max_bytes(255), "host": text_max_bytes(255)}),
    12: st.one_of(st.just({"names": None}),
                  st.lists(text_max_bytes(64).filter(lambda s: "\0" not in s), max_size=5)
                  .map(lambda n: {"names": n})),
    13: uint(24),
    16: uint(8),
    17: uint(64),
    18: uint(16),
    19: uint(8),
    20: uint(8),
    128: uint(24),
    129: uint(64),
    130: st.one_of(
        st.integers(0, 255).filter(lambda f: not f & 12).map(lambda f: {"flags3": f, "sa_seq_no": None}),
        st.tuples(st.sampled_from([4, 8, 12, 0x84]), uint(64)).map(lambda t: {"flags3": t[0], "sa_seq_no": t[1]}),
    ),
}

status_var = st.sampled_from(sorted(STATUS_VALUES)).flatmap(
    lambda code: STATUS_VALUES[code].map(lambda v: (code, v)))
status_vars = st.lists(status_var, max_size=8)

query_common = {
    "thread_id": uint(32), "exec_time": uint(32), "error_code": uint(16), "status_vars": status_vars,
    "db": text_max_bytes(64),
}

# ------------------------------------------------------------------------------ per class


def _gtid80(cls: type) -> st.SearchStrategy[Event]:
    """GTID / ANONYMOUS_GTID: trailing parts present up to a random point (old writers)."""

    @st.composite
    def build(draw):
        cut = draw(st.integers(0, 7))
        kw = {"gtid_flags": draw(uint(8)), "sid": draw(uuids), "gno": draw(sint(64))}
        parts = {
            "lt_typecode": draw(uint(8)),
            "last_committed": draw(sint(64)),
            "sequence_number": draw(sint(64)),
            "immediate_commit_timestamp": draw(uint(55)),
            "transaction_length": draw(uint(64)),
            "immediate_server_version": draw(uint(31)),
            "commit_group_ticket": draw(uint(64)),
        }
        for i, name in enumerate(parts):
            kw[name] = parts[name] if i < cut else None
        if kw["immediate_commit_timestamp"] is not None:
            kw["original_commit_timestamp"] = draw(st.one_of(st.none(), uint(56)))
        if kw["immediate_server_version"] is not None:
            kw["original_server_version"] = draw(st.one_of(st.none(), uint(32)))
        return cls(**kw)

    return build()


@st.composite
def gtid_tagged(draw) -> Event:
    return GtidTaggedEvent(
        gtid_flags=draw(uint(8)), sid=draw(uuids), gno=draw(sint(64)), tag=draw(st.one_of(st.just(""), tags)),
        last_committed=draw(sint(64)), sequence_number=draw(sint(64)),
        immediate_commit_timestamp=draw(uint(64)), original_commit_timestamp=draw(st.one_of(st.none(), uint(64))),
        transaction_length=draw(uint(64)), immediate_server_version=draw(uint(32)),
        original_server_version=draw(st.one_of(st.none(), uint(32))),
        commit_group_ticket=draw(st.one_of(st.none(), uint(64))),
        version=draw(st.integers(0, 3)), last_non_ignorable_field_id=draw(st.integers(0, 11)))


@st.composite
def previous_gtids(draw) -> Event:
    tagged = draw(st.booleans())
    sids = []
    for _ in range(draw(st.integers(0, 3))):
        tag = draw(st.one_of(st.just(""), tags)) if tagged else ""
        ivs = draw(st.lists(st.tuples(sint(64), sint(64)), max_size=3))
        sids.append((draw(uuids), tag, ivs))
    return PreviousGtidsEvent(flags=0x80, gtid_set={"tagged": tagged, "sids": sids})


@st.composite
def user_var(draw) -> Event:
    name = draw(text_max_bytes(64))
    if draw(st.booleans()):
        return UserVarEvent(name=name, is_null=True)
    vtype = draw(st.sampled_from([0, 1, 2, 4]))
    value = {
        0: short_bytes,
        1: st.floats(allow_nan=False).map(lambda f: __import__("struct").pack("<d", f)),
        2: uint(64).map(lambda v: v.to_bytes(8, "little")),
        4: st.binary(min_size=3, max_size=12),
    }[vtype]
    flags = st.one_of(st.none(), uint(8)) if vtype == 2 else st.just(None)
    return UserVarEvent(name=name, value_type=vtype, charset=draw(uint(32)), value=draw(value),
                        value_flags=draw(flags))


@st.composite
def mariadb_gtid(draw) -> Event:
    flags2 = draw(uint(8))
    kw = {"seq_no": draw(uint(64)), "domain_id": draw(uint(32)), "flags2": flags2}
    if flags2 & 2:
        kw["commit_id"] = draw(uint(64))
    if flags2 & (64 | 128):
        kw["xid"] = {"format_id": draw(sint(32)), "gtrid": draw(st.binary(max_size=64)),
                     "bqual": draw(st.binary(max_size=64))}
    fe = draw(st.one_of(st.none(), st.integers(1, 255)))
    kw["flags_extra"] = fe
    if fe and fe & 1:
        kw["extra_engines"] = draw(uint(8))
    if fe and fe & (4 | 8):
        kw["sa_seq_no"] = draw(uint(64))
    return MariadbGtidEvent(flags=0x08, **kw)


EVENTS: dict[str, st.SearchStrategy[Event]] = {
    "query": st.builds(QueryEvent, query=text, **query_common),
    "query_long": st.builds(QueryEvent, query=long_text, **query_common),
    "execute_load_query": st.builds(ExecuteLoadQueryEvent, query=text, file_id=uint(32), fn_pos_start=uint(32),
                                    fn_pos_end=uint(32), dup_handling=uint(8), **query_common),
    "query_compressed": st.builds(QueryCompressedEvent, query=st.one_of(
        short_bytes.map(mariadb_compress), short_bytes), **query_common),
    "xid": st.builds(XidEvent, xid=uint(64)),
    "rotate": st.builds(RotateEvent, position=uint(64), next_file=text),
    "stop": st.builds(StopEvent),
    "intvar": st.builds(IntvarEvent, type=uint(8), value=uint(64)),
    "rand": st.builds(RandEvent, seed1=uint(64), seed2=uint(64)),
    "user_var": user_var(),
    "incident": st.builds(IncidentEvent, incident=uint(16), message=text_max_bytes(255)),
    "rows_query": st.builds(RowsQueryEvent, query=st.one_of(text, long_text),
                            length_byte=st.one_of(st.none(), uint(8))),
    "heartbeat": st.builds(HeartbeatEvent, log_filename=text),
    "heartbeat_v2": st.builds(HeartbeatV2Event, log_filename=st.one_of(st.none(), text),
                              log_position=st.one_of(st.none(), uint(64))),
    "xa_prepare": st.builds(XaPrepareEvent, one_phase=st.booleans(), format_id=sint(32),
                            gtrid=st.binary(max_size=64), bqual=st.binary(max_size=64)),
    "begin_load_query": st.builds(BeginLoadQueryEvent, file_id=uint(32), block=short_bytes),
    "append_block": st.builds(AppendBlockEvent, file_id=uint(32), block=short_bytes),
    "delete_file": st.builds(DeleteFileEvent, file_id=uint(32)),
    "previous_gtids": previous_gtids(),
    "gtid": _gtid80(GtidEvent),
    "anonymous_gtid": _gtid80(AnonymousGtidEvent),
    "gtid_tagged": gtid_tagged(),
    "transaction_payload": st.builds(
        TransactionPayloadEvent, payload=short_bytes,
        header_fields=st.lists(st.tuples(st.integers(1, 300), uint(64)), max_size=4)),
    "mariadb_gtid": mariadb_gtid(),
    "gtid_list": st.builds(
        MariadbGtidListEvent, list_flags=st.integers(0, 15),
        gtids=st.lists(st.fixed_dictionaries({"domain_id": uint(32), "server_id": uint(32), "seq_no": uint(64)}),
                       max_size=4)),
    "binlog_checkpoint": st.builds(BinlogCheckpointEvent, log_file=text),
    "annotate_rows": st.builds(AnnotateRowsEvent, query=st.one_of(text, long_text)),
    "start_encryption": st.builds(StartEncryptionEvent, scheme=uint(8), key_version=uint(32),
                                  nonce=st.binary(min_size=12, max_size=12)),
}

# MySQL-only and MariaDB-only events are tested under their own flavors (MariaDB's FDE declares
# a 10-byte post-header for type 41, which is not heartbeat v2 there); the rest under all three.
MYSQL_ONLY = {"gtid", "anonymous_gtid", "gtid_tagged", "previous_gtids", "transaction_payload", "heartbeat_v2"}
MARIADB_ONLY = {"mariadb_gtid", "gtid_list", "binlog_checkpoint", "annotate_rows", "start_encryption",
                "query_compressed"}


def formats_for(name: str) -> st.SearchStrategy[BinlogFormat]:
    if name in MYSQL_ONLY:
        return st.sampled_from([f for f in FORMATS if not f.is_mariadb])
    if name in MARIADB_ONLY:
        return st.sampled_from([f for f in FORMATS if f.is_mariadb])
    return formats


# Fields where None means "computed by the encoder"; the decoder returns the computed value.
DERIVED = {"trailing", "length_byte"}


def _with_header(ev: Event, header: dict) -> Event:
    for k, v in header.items():
        setattr(ev, k, v)
    return ev


def _assert_roundtrip(ev: Event, fmt: BinlogFormat) -> None:
    data = encode_event(ev, fmt)
    assert int.from_bytes(data[9:13], "little") == len(data)
    back = decode_event(data, fmt)
    assert type(back) is type(ev)
    expect = ev
    derived = {f: getattr(back, f) for f in DERIVED if hasattr(ev, f) and getattr(ev, f) is None}
    if derived:
        expect = dataclasses.replace(ev, **derived)
    assert back == expect
    assert encode_event(back, fmt) == data


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_encode_decode_roundtrip(name: str) -> None:
    @PROPS
    @given(ev=EVENTS[name], header=headers, fmt=formats_for(name))
    def check(ev: Event, header: dict, fmt: BinlogFormat) -> None:
        _assert_roundtrip(_with_header(ev, header), fmt)

    check()


def test_derived_defaults() -> None:
    """The computed defaults are what servers write: ROWS_QUERY length byte = len & 0xFF,
    empty GTID_LIST two zero bytes, MariaDB GTID padded to 19 bytes."""
    fmt = BinlogFormat.mariadb1011()
    rq = decode_event(encode_event(RowsQueryEvent(query="x" * 300), fmt), fmt)
    assert rq.length_byte == 300 & 0xFF
    gl = decode_event(encode_event(MariadbGtidListEvent(gtids=[]), fmt), fmt)
    assert gl.trailing == b"\0\0"
    g = encode_event(MariadbGtidEvent(seq_no=1, flags2=0x0C), fmt)
    assert len(g) == 19 + 19 + 4


@PROPS
@given(fmt=formats, create=uint(32), header=headers)
def test_fde_roundtrip(fmt: BinlogFormat, create: int, header: dict) -> None:
    ev = _with_header(FormatDescriptionEvent.for_format(fmt, create_timestamp=create), header)
    _assert_roundtrip(ev, fmt)
    assert decode_event(encode_event(ev, fmt), fmt).to_format() == fmt


# ------------------------------------------------------------------------------ fuzzing

TYPE_CODES = sorted({2, 3, 4, 5, 9, 11, 13, 14, 15, 16, 17, 18, 26, 27, 29, 33, 34, 35, 38, 40, 41, 42,
                     160, 161, 162, 163, 164, 165, 0, 1, 99, 200, 255})


def _frame(type_code: int, body: bytes, fmt: BinlogFormat, crc_ok: bool) -> bytes:
    footer = 4 if (fmt.footer_size or type_code == 15) else 0
    head = (0).to_bytes(4, "little") + bytes((type_code,)) + (1).to_bytes(4, "little") \
        + (19 + len(body) + footer).to_bytes(4, "little") + bytes(6)
    data = head + body
    if footer:
        data += (zlib.crc32(data) if crc_ok else 0).to_bytes(4, "little")
    return data


def _decode_only_binlog_errors(data: bytes, fmt: BinlogFormat, **kw) -> None:
    try:
        decode_event(data, fmt, **kw)
    except BinlogError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=120), fmt=formats, verify=st.booleans(), footer=st.sampled_from([None, False, True]))
def test_random_bytes_raise_only_binlog_errors(data: bytes, fmt: BinlogFormat, verify: bool, footer) -> None:
    _decode_only_binlog_errors(data, fmt, verify_checksum=verify, footer=footer)


# A tagged PREVIOUS_GTIDS whose tag is not ASCII, a tagged GTID whose uuid "bytes" exceed 255 and
# one whose tag is not ASCII: found by this test.
_BAD_PREV = ((1 << 56) | (1 << 8) | 1).to_bytes(8, "little") + bytes(16) + b"\x04\xff" + bytes(8)
_BAD_UUID = bytes([0, 20 << 1, 8 << 1, 1 << 1]) + bytes([0x01, 0xFF]) + bytes(15 * [0])
_BAD_TAG = bytes([0, 6 << 1, 8 << 1, 3 << 1, 1 << 1, 0xFF])


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(type_code=st.sampled_from(TYPE_CODES), body=st.binary(max_size=80), fmt=formats, crc_ok=st.booleans())
@example(type_code=35, body=_BAD_PREV, fmt=FORMATS[2], crc_ok=True)
@example(type_code=42, body=_BAD_UUID, fmt=FORMATS[2], crc_ok=True)
@example(type_code=42, body=_BAD_TAG, fmt=FORMATS[2], crc_ok=True)
def test_framed_random_bodies_raise_only_binlog_errors(type_code: int, body: bytes, fmt: BinlogFormat,
                                                       crc_ok: bool) -> None:
    """Well-framed events (right length, valid CRC) with random bodies reach every body decoder."""
    _decode_only_binlog_errors(_frame(type_code, body, fmt, crc_ok), fmt)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(EVENTS)), data=st.data())
def test_mutated_valid_events_raise_only_binlog_errors(name: str, data) -> None:
    """A valid event with bytes flipped / cut / appended in its body (CRC recomputed)."""
    fmt = data.draw(formats_for(name))
    ev = data.draw(EVENTS[name])
    raw = encode_event(ev, fmt)
    footer = 4 if fmt.footer_size else 0
    body = bytearray(raw[19:len(raw) - footer])
    op = data.draw(st.sampled_from(["flip", "cut", "append"]))
    if op == "flip" and body:
        i = data.draw(st.integers(0, len(body) - 1))
        body[i] = data.draw(uint(8))
    elif op == "cut":
        del body[data.draw(st.integers(0, len(body))):]
    else:
        body += data.draw(st.binary(min_size=1, max_size=8))
    _decode_only_binlog_errors(_frame(raw[4], bytes(body), fmt, True), fmt)


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_appended_body_bytes_are_kept_or_rejected(name: str) -> None:
    """Principle 3 (nothing is lost): bytes after the last field a declaration knows (a newer
    server's field, junk) either re-encode identically or give a DecodeError — decoding must
    never succeed and then drop them silently."""

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])
    @given(ev=EVENTS[name], fmt=formats_for(name), extra=st.binary(min_size=1, max_size=6))
    def check(ev: Event, fmt: BinlogFormat, extra: bytes) -> None:
        raw = encode_event(ev, fmt)
        footer = 4 if fmt.footer_size else 0
        data = _frame(raw[4], raw[19:len(raw) - footer] + extra, fmt, True)
        try:
            back = decode_event(data, fmt)
        except BinlogError:
            return
        assert encode_event(back, fmt) == data, f"{len(extra)} appended bytes were dropped"

    check()


@pytest.mark.parametrize("cls", [GtidEvent, AnonymousGtidEvent])
def test_full_gtid_event_keeps_appended_bytes(cls: type) -> None:
    """A GTID event with every known part (through commit_group_ticket) plus bytes a newer
    server might add: kept or rejected, not dropped (format.md §8 parts grow over versions)."""
    fmt = BinlogFormat.mysql80()
    ev = cls(sid="5aa72a7f-44a8-11ea-947f-0242ac190002", gno=7, transaction_length=300,
             immediate_commit_timestamp=1, immediate_server_version=80036, commit_group_ticket=9)
    raw = encode_event(ev, fmt)
    data = _frame(raw[4], raw[19:-4] + b"\x01\x02", fmt, True)
    try:
        back = decode_event(data, fmt)
    except BinlogError:
        return
    assert encode_event(back, fmt) == data
