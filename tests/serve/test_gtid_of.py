"""``gtid_of`` reads GTID events in place exactly as the codec decodes them (every GTID event of
every sample run, MySQL and MariaDB)."""

from __future__ import annotations

from pathlib import Path

from binlogwriter.format import GTID_TYPES
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
