"""Every reader path reads a transaction's GTID (and XID) the same way (issue #27).

Files written by BinlogWriter are patched (an event's body cut short or changed, its
event_length, the log_pos chain and the CRC32s fixed, so framing and checksums hold) and read
by ``changes()``, the columnar export, ``BinlogReader`` (the declarative path), the
``inspect`` listing and ``verify --roundtrip``: a malformed GTID or XID is the same located
error everywhere, never a value read from the CRC32 footer or past the event; a compressed
transaction without a GTID has none, as an uncompressed one; a GNO is the signed 64-bit
``rpl_gno`` on every path.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.compression import mariadb_compress
from binlogwriter.errors import BinlogError
from binlogwriter.events import QueryCompressedEvent, QueryEvent, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.read.export import changes_tables
from binlogwriter.read.fastverify import verify_roundtrip
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.text import RenderOptions
from binlogwriter.text.listing import write_listing
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.fuzz.seeds import fix_event
from tests.fuzz.targets import transaction_ids

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def write(
    tmp_path: Path, flavor: str, n: int = 3, gtid: str = SID, **settings
) -> tuple[BinlogFormat, list[bytes]]:
    """A file of ``n`` one-row transactions (FULL metadata; MySQL GTIDs ``gtid``): its FDE
    format and its events."""
    fmt = BinlogFormat.preset(flavor)
    t = Table.from_sql(
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(30))", database="test", flavor=fmt.flavor
    )
    given = {} if fmt.is_mariadb else {"gtid": gtid}
    d = tmp_path / "src"
    with BinlogWriter(d, fmt, settings=SessionSettings(row_metadata="FULL", **given, **settings)) as w:
        for i in range(n):
            with w.transaction() as tx:
                tx.insert(t, [{"id": i, "v": "x"}])
    data = w.files[0].read_bytes()
    out, pos = [], 4
    while pos < len(data):
        size = int.from_bytes(data[pos + 9 : pos + 13], "little")
        out.append(data[pos : pos + size])
        pos += size
    return fmt, out


def save(tmp_path: Path, events: list[bytes], name: str = "binlog.000001") -> Path:
    """The events as a file: lengths, the log_pos chain and CRC32s fixed (FDE kept as is)."""
    out = bytearray(b"\xfebin")
    for i, ev in enumerate(events):
        out += fix_event(ev, True, len(out)) if i else ev
    p = tmp_path / name
    p.write_bytes(bytes(out))
    return p


def body(ev: bytes) -> bytes:
    return ev[19:-4]


def with_body(ev: bytes, new: bytes) -> bytes:
    return ev[:19] + new + b"\0\0\0\0"


def nth(events: list[bytes], code: int, k: int = 0) -> int:
    return [i for i, e in enumerate(events) if e[4] == code][k]


def outcome(fn) -> str:
    """What a reader path gives: its value, or its error's text (only BinlogErrors)."""
    try:
        return repr(fn())
    except BinlogError as exc:
        return f"{type(exc).__name__}: {exc}"


def paths(p: Path) -> dict[str, str]:
    """The outcome of every reader path on file ``p``: for the ones that hand out GTIDs, the
    GTIDs they hand out."""

    def listing() -> None:
        write_listing([str(p)], io.StringIO(), RenderOptions(verbose=2))

    def export():
        return [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()]

    def verify():
        _n, fails = verify_roundtrip(str(p))
        if fails:
            raise _Failed(fails[0])

    return {
        "changes": outcome(lambda: [c.gtid for c in BinlogReader([p]).changes()]),
        "export": outcome(export),
        "events": outcome(lambda: None if list(BinlogReader([p])) else None),
        "listing": outcome(listing),
        "verify": outcome(verify),
    }


class _Failed(BinlogError):
    """verify's first failure line, as an error (to compare texts)."""


TRUNCATED = [("mysql80", 33, "GTID_LOG_EVENT", k) for k in (0, 10, 17, 20, 30, 45)] + [
    ("mariadb1011", 162, "MARIADB_GTID_EVENT", k) for k in (0, 8, 12)
]


@pytest.mark.parametrize("flavor,code,name,keep", TRUNCATED)
def test_truncated_gtid_is_the_same_located_error_everywhere(tmp_path, flavor, code, name, keep):
    fmt, evs = write(tmp_path, flavor)
    i = nth(evs, code, 1)
    evs[i] = with_body(evs[i], body(evs[i])[:keep])
    p = save(tmp_path, evs)
    offset = sum(len(e) for e in evs[:i]) + 4
    got = paths(p)
    # the declarative decoder's error: the body ends before a field it must hold
    want = got["events"]
    assert want.startswith("DecodeError: malformed event body") and f"{p}:{offset} ({name})" in want
    assert got["changes"] == got["export"] == got["listing"] == want
    assert got["verify"] == "_Failed: " + want.split(": ", 1)[1]


def test_gtid_kept_raw_is_a_located_error_for_changes_and_export(tmp_path):
    fmt, evs = write(tmp_path, "mysql80")
    i = nth(evs, 33, 1)
    b = body(evs[i])
    # the transaction length (after the 42-byte post-header and 7-byte commit timestamp) in
    # a 3-byte packed form although it fits one byte: parses, but the encoder writes 1 byte
    assert b[49] == 0xFC  # 2 bytes follow; the 3-byte form (0xFD) is one byte longer than needed
    evs[i] = with_body(evs[i], b[:49] + b"\xfd" + b[50:52] + b"\0" + b[52:])
    p = save(tmp_path, evs)
    offset = sum(len(e) for e in evs[:i]) + 4
    got = paths(p)
    assert got["events"] == "None" and got["verify"] == "None"  # kept raw: it reads, it re-encodes
    for path in ("changes", "export"):
        assert got[path].startswith("KeptRawError: the GTID of this transaction is not read"), path
        assert f"{p}:{offset} (GTID_LOG_EVENT)" in got[path]


@pytest.mark.parametrize("keep", [4, 12])
def test_xid_of_another_size_is_never_read_from_the_footer(tmp_path, keep):
    """A 4-byte XID body is malformed (the same located error on every path); a 12-byte one
    decodes with its 4 extra bytes kept (``unparsed``): its xid is its first 8 bytes."""
    fmt, evs = write(tmp_path, "mysql80")
    i = nth(evs, 16, 1)
    evs[i] = with_body(evs[i], (body(evs[i]) + b"\x07" * 8)[:keep])
    p = save(tmp_path, evs)
    offset = sum(len(e) for e in evs[:i]) + 4
    got = paths(p)
    xids = outcome(lambda: [c.xid for c in BinlogReader([p]).changes()])
    if keep == 4:
        assert (
            got["events"].startswith("DecodeError: malformed event body") and f"{p}:{offset}" in got["events"]
        )
        assert xids == got["events"]
    else:
        assert xids == "[1, 2, 3]"


GNO_CASES = [
    (1 << 63, "-9223372036854775808"),
    ((1 << 64) - 1, "-1"),
    ((1 << 63) - 2, "9223372036854775806"),
]


@pytest.mark.parametrize("raw,text", GNO_CASES)
def test_gno_is_the_signed_rpl_gno_on_every_path(tmp_path, raw, text):
    """MySQL's GNO is ``rpl_gno`` (int64_t), read with ``read<int64_t>`` (format.md §8)."""
    fmt, evs = write(tmp_path, "mysql80", n=1)
    i = nth(evs, 33)
    b = body(evs[i])
    evs[i] = with_body(evs[i], b[:17] + raw.to_bytes(8, "little") + b[25:])
    p = save(tmp_path, evs)
    want = f"{SID}:{text}"
    assert [c.gtid for c in BinlogReader([p]).changes()] == [want]
    assert [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()] == [want]
    assert [e.gtid for e in BinlogReader([p]) if e.type_code == 33] == [want]
    out = io.StringIO()
    write_listing([str(p)], out, RenderOptions())
    assert f"SET @@SESSION.GTID_NEXT= '{want}'/*!*/;" in out.getvalue()
    ref = io.StringIO()
    write_listing([str(p)], ref, RenderOptions(), fast=False)
    assert ref.getvalue() == out.getvalue()


def test_compressed_transaction_without_gtid_has_none(tmp_path):
    """A TRANSACTION_PAYLOAD holds the whole transaction after its GTID (format.md §15): the
    next transaction does not inherit its GTID, as it would not after an XID."""
    fmt, evs = write(tmp_path, "mysql80", transaction_compression=True)
    assert [e[4] for e in evs if e[4] in (33, 40, 16)] == [33, 40] * 3
    del evs[nth(evs, 33, 1)]
    p = save(tmp_path, evs)
    want = [f"{SID}:1", None, f"{SID}:3"]
    assert [c.gtid for c in BinlogReader([p]).changes()] == want
    assert [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()] == want
    # the same transactions uncompressed say the same
    fmt, evs = write(tmp_path / "plain", "mysql80")
    del evs[nth(evs, 33, 1)]
    p = save(tmp_path, evs, "plain.000001")
    assert [c.gtid for c in BinlogReader([p]).changes()] == want
    assert [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()] == want


@pytest.mark.parametrize("compressed", [False, True])
def test_mariadb_commit_query_compressed_or_not_ends_the_transaction(tmp_path, compressed):
    """A MariaDB transaction that ends with a ``COMMIT`` query (a non-transactional table)
    ends there whether the query is a QUERY_EVENT or a QUERY_COMPRESSED_EVENT (mariadb.md
    "Compression"): its changes have no XID, and a next transaction without a GTID event
    does not inherit its GTID."""
    fmt, evs = write(tmp_path, "mariadb1011")
    i = nth(evs, 16)
    q = QueryCompressedEvent(query=mariadb_compress(b"COMMIT")) if compressed else QueryEvent(query="COMMIT")
    evs[i] = encode_event(q, fmt, offset=0)
    del evs[nth(evs, 162, 1)]
    p = save(tmp_path, evs)
    got = [(c.gtid, c.xid) for c in BinlogReader([p]).changes()]
    assert got == [("0-1-1", None), (None, 2), ("0-1-3", 3)]
    assert [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()] == [
        "0-1-1",
        None,
        "0-1-3",
    ]


def _cut_bitmap(tmp_path: Path, flavor: str) -> tuple[Path, int]:
    """A file whose second rows event ends right before its column bitmap, its header
    timestamp chosen so that the CRC32's first byte equals that bitmap byte: the bytes where
    the bitmap would be are the same as in the first, whole, event."""
    fmt, evs = write(tmp_path, flavor)
    rows = [i for i, e in enumerate(evs) if e[4] in (23, 30)]
    first, i = evs[rows[0]], rows[1]
    b = body(evs[i])
    cut = b.index(b"\x02", 6 + 2 + (2 if evs[i][4] == 30 else 0)) + 1  # after the column count 2
    bitmap = b[cut]
    assert first[19 + cut] == bitmap
    offset = sum(len(e) for e in evs[:i]) + 4
    for ts in range(1, 1 << 16):  # (save() keeps this log_pos, so this CRC32)
        ev = fix_event(ts.to_bytes(4, "little") + evs[i][4:19] + b[:cut] + b"\0\0\0\0", True, offset)
        if ev[-4] == bitmap:
            evs[i] = ev
            break
    p = save(tmp_path, evs)
    assert p.read_bytes()[offset : offset + len(ev)] == ev
    return p, offset


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_rows_event_cut_before_its_bitmap_is_not_read_from_the_footer(tmp_path, flavor):
    p, offset = _cut_bitmap(tmp_path, flavor)
    got = paths(p)
    want = got["events"]
    assert want.startswith("DecodeError") and f"{p}:{offset}" in want
    assert got["changes"].startswith("DecodeError") and f"{p}:{offset}" in got["changes"]
    assert got["listing"] == want


MUTANTS = st.sampled_from(["mysql80", "mysql84", "mariadb1011"]).flatmap(
    lambda f: st.tuples(
        st.just(f),
        st.sampled_from([16, 42 if f == "mysql84" else 33 if f == "mysql80" else 162]),
        st.integers(0, 2),
        st.integers(0, 60),
        st.binary(max_size=12),
        st.booleans(),
    )
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=MUTANTS)
def test_changes_gtids_and_xids_equal_the_events_on_patched_bodies(tmp_path_factory, case) -> None:
    """A GTID or XID body cut to a drawn length and followed by drawn bytes, or the event
    left out: ``changes()`` hands out the GTIDs and XIDs the decoded events hold, or fails at
    that event (located) exactly where they have none; the export's GTIDs are the same."""
    flavor, code, k, keep, extra, drop = case
    tmp = tmp_path_factory.mktemp("patched")
    gtid = SID + ":load" if flavor == "mysql84" else SID
    fmt, evs = write(tmp, flavor, gtid=gtid)
    i = nth(evs, code, k)
    if drop:
        del evs[i]
    else:
        evs[i] = with_body(evs[i], body(evs[i])[:keep] + extra)
    p = save(tmp, evs)
    want = transaction_ids(str(p))  # the fuzzer's differential oracle (tests/fuzz/targets.py)
    assert want is not None
    try:
        got = [(c.gtid, c.xid) for c in BinlogReader([p]).changes()]
    except BinlogError as exc:
        assert want == ("none", exc.offset), str(exc)
        return
    assert want == ("changes", got)
    gtids = [g for tb in changes_tables([p]).values() for g in tb.column("gtid").to_pylist()]
    assert gtids == [g for g, _ in got]
