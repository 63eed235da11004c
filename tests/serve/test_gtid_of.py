"""``gtid_of`` reads GTID events in place exactly as the codec decodes them (every GTID event of
every sample run, MySQL and MariaDB)."""

from __future__ import annotations

from pathlib import Path

from binlogwriter.format import GTID_LOG_EVENT, GTID_TYPES
from binlogwriter.read.places import MYSQL_GTID
from binlogwriter.reader import iter_raw
from binlogwriter.serve.binlogs import gtid_of, gtid_of_codec

SAMPLES = sorted(Path(__file__).resolve().parents[2].glob("samples/*/binlog.0*"))


def test_gtid_of_equals_the_codec() -> None:
    seen = {"mysql": 0, "mariadb": 0}
    for path in SAMPLES:
        for rec in iter_raw(path):
            if rec.type_code in GTID_TYPES:  # ANONYMOUS_GTID's too: gtid_of gives None as the codec
                want = gtid_of_codec(rec.data, rec.fmt)
                assert gtid_of(rec.data, rec.fmt) == want, f"{path}:{rec.offset}"
                if want:
                    seen[want[0]] += 1
    assert seen["mysql"] > 100 and seen["mariadb"] > 100


def test_a_gno_past_int64_max_reads_as_the_codec_reads_it() -> None:
    """The GNO is MySQL's signed ``rpl_gno`` (format.md §8): bytes ``00..80`` are -2^63 for the
    codec (``Int64sl``), so for ``gtid_of`` too (it read them as 2^63 before)."""
    rec = next(r for p in SAMPLES for r in iter_raw(p) if r.type_code == GTID_LOG_EVENT)
    gno = MYSQL_GTID.gno
    for raw in (b"\x00" * 7 + b"\x80", b"\xff" * 8, (5).to_bytes(8, "little")):
        data = rec.data[:gno] + raw + rec.data[gno + len(raw):]
        assert gtid_of(data, rec.fmt) == gtid_of_codec(data, rec.fmt)
        assert gtid_of(data, rec.fmt)[3] == int.from_bytes(raw, "little", signed=True)
