"""What ``serve`` reads from clients and the command line: GTID sets, MariaDB positions, rates,
dump requests, SQL it answers (hand-written inputs and expectations)."""

from __future__ import annotations

import struct

import pytest

from binlogwriter.gtids import GtidParseError, MariadbState, MysqlGtidSet
from binlogwriter.serve.dump import DumpError, parse_dump, parse_dump_gtid
from binlogwriter.serve.pacing import parse_rate

U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562"


def test_mysql_gtid_set_text() -> None:
    s = MysqlGtidSet.from_text(f"{U1}:1-5:7,\n{U2.upper()}:3, {U1}:6")
    assert s.contains(U1, "", 6) and s.contains(U1, "", 7) and not s.contains(U1, "", 8)
    assert s.contains(U2, "", 3) and not s.contains(U2, "", 2)
    assert s.text() == f"{U1}:1-7,\n{U2}:3"
    tagged = MysqlGtidSet.from_text(f"{U1}:1-3:Load_A:1-2")
    assert tagged.contains(U1, "load_a", 2) and not tagged.contains(U1, "", 4)
    assert MysqlGtidSet.from_text(f"{U1}:1-2").issubset(s)
    assert not MysqlGtidSet.from_text(f"{U1}:1-9").issubset(s)
    for bad in ("nope:1", f"{U1}:0", f"{U1}:5-3", f"{U1}:1-2:x y"):
        with pytest.raises(GtidParseError):
            MysqlGtidSet.from_text(bad)


def test_mysql_gtid_set_binary_as_mysql_encodes_it() -> None:
    # Gtid_set::encode: n_sids (8), then per sid uuid (16), n_intervals (8), [start, end) (8 + 8)
    data = (
        struct.pack("<Q", 1)
        + bytes.fromhex(U1.replace("-", ""))
        + struct.pack("<Q", 2)
        + struct.pack("<qq", 1, 6)
        + struct.pack("<qq", 9, 10)
    )
    s = MysqlGtidSet.from_binary(data)
    assert s.text() == f"{U1}:1-5:9"
    with pytest.raises(GtidParseError):
        MysqlGtidSet.from_binary(data[:-3])


def test_mariadb_state() -> None:
    st = MariadbState.from_text(" 0-1-100, 2-5-7 ")
    assert st.domains == {0: (1, 100), 2: (5, 7)}
    assert st.text() == "0-1-100,2-5-7"
    assert MariadbState.from_text("").domains == {}
    for bad in ("0-1", "a-b-c", "0-1-2,0-1-3"):
        with pytest.raises(GtidParseError):
            MariadbState.from_text(bad)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("20MB/s", ("bytes", 20 * 2**20)),
        ("5000tps", ("tps", 5000.0)),
        ("1.5G", ("bytes", 1.5 * 2**30)),
        ("100", ("bytes", 100.0)),
        ("64KiB/s", ("bytes", 65536.0)),
        ("10 TPS", ("tps", 10.0)),
    ],
)
def test_parse_rate(text: str, want: tuple) -> None:
    assert parse_rate(text) == want


@pytest.mark.parametrize("text", ["fast", "0tps", "-5MB/s", "10 rows/s"])
def test_parse_rate_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rate(text)


def test_dump_requests() -> None:
    req = parse_dump(b"\x12" + struct.pack("<IHI", 120, 1, 7) + b"binlog.000002")
    assert (req.file, req.pos, req.flags, req.server_id, req.blocking) == ("binlog.000002", 120, 1, 7, False)
    # python-mysql-replication's MariaDB request: empty name padded with NULs; server id 0 never blocks
    req = parse_dump(b"\x12" + struct.pack("<IHI", 4, 2, 0) + b"\0\0\0")
    assert (req.file, req.blocking) == ("", False)
    with pytest.raises(DumpError):
        parse_dump(b"\x12\x04\x00")
    gset = struct.pack("<Q", 1) + bytes.fromhex(U1.replace("-", "")) + struct.pack("<Qqq", 1, 1, 4)
    body = struct.pack("<HII", 4, 9, 0) + struct.pack("<Q", 4) + struct.pack("<I", len(gset)) + gset
    req = parse_dump_gtid(b"\x1e" + body)
    assert req.mysql_gtids.text() == f"{U1}:1-3" and req.blocking
    with pytest.raises(DumpError):
        parse_dump_gtid(b"\x1e" + body[:-5])
