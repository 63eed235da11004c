"""The fuzzer's aimed operators and its export / differential / mariadb oracles
(tests/fuzz/hostile.py, tests/fuzz/oracles.py; docs/fuzzing.md): each operator makes the
change it names and keeps the framing valid, each oracle flags what it is for and passes
clean files — so a finding it reports, or its silence, means something."""

from __future__ import annotations

import random
import subprocess
import zlib
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.format import BinlogFormat
from binlogwriter.read.framing import scan_file
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.fuzz import hostile, oracles
from tests.fuzz.mutate import framed
from tests.fuzz.seeds import real_units

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
SQL = "CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(10,2), s VARCHAR(10))"


def _written(tmp: Path, fmt: BinlogFormat, **kw) -> list[bytearray]:
    """FDE and events of a two-transaction file (PREVIOUS_GTIDS / GTID_LIST / checkpoint out)."""
    t = Table.from_sql(SQL, database="db")
    with BinlogWriter(tmp, fmt, settings=SessionSettings(row_metadata="FULL", **kw), stop_event=False) as w:
        for i in (1, 2):
            with w.transaction() as tx:
                tx.insert(t, [{"id": i, "d": Decimal("1.50"), "s": f"v{i}"}])
    data = Path(w.files[0]).read_bytes()
    pos, evs = 4, []
    while pos < len(data):
        n = int.from_bytes(data[pos + 9 : pos + 13], "little")
        if data[pos + 4] not in (35, 161, 163):
            evs.append(bytearray(data[pos : pos + n]))
        pos += n
    return evs


def _compressed_rows() -> list[bytearray]:
    """The real MariaDB 10.11 unit with a compressed rows event (tests/data/vectors)."""
    u = next(u for u in real_units() if any(e[4] in (166, 167, 168, 169, 170, 171) for e in u.events))
    return [bytearray(u.fde)] + [bytearray(e) for e in u.events]


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> dict[str, list[bytearray]]:
    d = tmp_path_factory.mktemp("bases")
    return {
        "mariadb": _written(d / "m", BinlogFormat.mariadb1011()),
        "mysql": _written(d / "y", BinlogFormat.mysql80(), gtid=UUID),
        "payload": _written(d / "z", BinlogFormat.mysql80(), gtid=UUID, transaction_compression=True),
        "compressed": _compressed_rows(),
    }


def _file(evs: list[bytearray], path: Path) -> Path:
    crc = evs[0][-5] == 1
    path.write_bytes(framed(random.Random(0), evs[0], evs[1:], crc, fix_len=True, cut=False))
    return path


def _copy(evs: list[bytearray]) -> list[bytearray]:
    return [bytearray(e) for e in evs]


OPS = [op for op, _w in hostile.UNIT_OPS]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    op=st.sampled_from(OPS),
    base=st.sampled_from(["mariadb", "mysql", "payload", "compressed"]),
)
def test_aimed_operators_keep_framing_and_crc(bases, tmp_path_factory, seed, op, base):
    evs = _copy(bases[base])
    crc = evs[0][-5] == 1
    op(random.Random(seed), evs[1:], crc)
    path = _file(evs, tmp_path_factory.mktemp("op") / "m.bin")
    scan = scan_file(path)
    assert scan.failures == [], scan.failures


def test_u_names_writes_the_hostile_name(bases, tmp_path, monkeypatch):
    monkeypatch.setattr(hostile, "HOSTILE_NAMES", (b"../../y",))
    evs = _copy(bases["mariadb"])
    maps = [e for e in evs if e[4] == 19]
    for e in maps:  # one name of each Table_map: its schema or its table
        hostile.u_names(random.Random(1), [e], True)
    names = [
        (ev.schema, ev.table) for ev in BinlogReader(_file(evs, tmp_path / "n.bin")) if ev.type_code == 19
    ]
    assert len(names) == 2 and all(
        "../../y" in pair and set(pair) <= {"db", "t", "../../y"} for pair in names
    )


def test_u_gno_and_u_gtid_body(bases, tmp_path, monkeypatch):
    monkeypatch.setattr(hostile, "BOUNDARY64", (1 << 63,))
    evs = _copy(bases["mysql"])
    g = next(e for e in evs if e[4] == 33)
    assert hostile.u_gno(random.Random(0), [g], True)
    assert bytes(g[36:44]) == bytes.fromhex("0000000000000080")
    evs = _copy(bases["mariadb"])
    g = next(e for e in evs if e[4] == 162)
    n = len(g)
    assert hostile.u_gtid_body(random.Random(0), [g], True)
    assert len(g) != n


def test_u_metadata_makes_decimal_238_224(bases, tmp_path, monkeypatch):
    monkeypatch.setattr(hostile, "EXTREME", ((246, bytes((238, 224))),))
    evs = _copy(bases["mysql"])
    tm = next(e for e in evs if e[4] == 19)
    assert hostile.u_metadata(random.Random(0), [tm], True)
    ev = next(ev for ev in BinlogReader(_file(evs, tmp_path / "d.bin")) if ev.type_code == 19)
    assert bytes((238, 224)) in ev.metadata and 246 in ev.column_types


def test_u_recompress_keeps_the_plain_bytes(bases):
    evs = _copy(bases["compressed"])
    ev = next(e for e in evs if e[4] in (166, 167, 168, 169, 170, 171))
    q = hostile.blob_at(ev, True)
    n = ev[q] & 7
    plain = zlib.decompress(bytes(ev[q + 1 + n : -4]))
    for seed in range(20):
        e = bytearray(ev)
        assert hostile.u_recompress(random.Random(seed), [e], True)
        assert zlib.decompress(bytes(e[q + 1 + n : -4])) == plain
    assert zlib.compress(plain) == bytes(ev[q + 1 + n : -4])  # the vector is what compress() writes


def test_u_drop_gtid_repeats_the_transaction_without_gtid(bases):
    evs = _copy(bases["payload"])[1:]
    first = evs[: evs.index(next(e for e in evs[1:] if e[4] == 33))]  # GTID + payload of the first
    assert [e[4] for e in first] == [33, 40]
    assert hostile.u_drop_gtid(random.Random(0), first, True)
    assert [e[4] for e in first] == [33, 40, 40]


def test_model_follows_transactions_without_gtid(bases, tmp_path):
    """Rows after a TRANSACTION_PAYLOAD without a GTID of their own have none (the payload
    held the whole transaction, XID included)."""
    evs = _copy(bases["payload"])
    second = [i for i, e in enumerate(evs) if e[4] == 33][1]
    del evs[second]
    m = oracles.model(str(_file(evs, tmp_path / "p.bin")))
    assert [r[5] for r in m.rows] == [f"{UUID}:1", None]
    assert m.error is None and m.refused is None and m.kept == []


@pytest.mark.parametrize("base", ["mariadb", "mysql", "payload", "compressed"])
def test_clean_files_pass_every_oracle(bases, tmp_path, base):
    path = _file(_copy(bases[base]), tmp_path / "input.bin")
    data = path.read_bytes()
    oracles.export_target(data, str(path))
    oracles.differential_target(data, str(path))
    oracles.mariadb_target(data, str(path))


def test_export_oracle_sees_writes_outside(bases, tmp_path, monkeypatch):
    path = _file(_copy(bases["mariadb"]), tmp_path / "input.bin")
    import binlogwriter.read.export as export

    def beside(paths, out, **kw):
        (Path(out).parent / "db.t").mkdir()
        return {}

    monkeypatch.setattr(export, "export_parquet", beside)
    with pytest.raises(oracles.Escape, match="outside its output directory"):
        oracles.export_target(b"", str(path))

    def absolute(paths, out, **kw):
        Path(hostile.ESCAPE_ROOT).mkdir()
        return {}

    monkeypatch.setattr(export, "export_parquet", absolute)
    with pytest.raises(oracles.Escape, match=hostile.ESCAPE_ROOT):
        oracles.export_target(b"", str(path))
    assert not Path(hostile.ESCAPE_ROOT).exists()


def test_differential_oracle_sees_another_gtid(bases, tmp_path, monkeypatch):
    path = _file(_copy(bases["mysql"]), tmp_path / "input.bin")
    real = oracles.reader_changes

    def shifted(p):
        out, err = real(p)
        out[-1].gtid = f"{UUID}:9"
        return out, err

    monkeypatch.setattr(oracles, "reader_changes", shifted)
    with pytest.raises(oracles.Disagreement, match="GTID differs"):
        oracles.differential_target(b"", str(path))


def test_mariadb_oracle_and_its_allow_list(bases, tmp_path, monkeypatch):
    path = _file(_copy(bases["mariadb"]), tmp_path / "input.bin")
    refused = subprocess.CompletedProcess(
        [],
        1,
        b"",
        b"ERROR: Error in Log_event::read_log_event(): "
        b"'Found invalid event in binary log', data_len: 40, event_type: 162",
    )
    monkeypatch.setattr(oracles.subprocess, "run", lambda *a, **kw: refused)
    with pytest.raises(oracles.Disagreement, match="mariadb-binlog refuses what the reader decodes"):
        oracles.mariadb_target(b"", str(path))
    refused.stderr = refused.stderr.replace(b"event_type: 162", b"event_type: 29")  # allow-listed
    oracles.mariadb_target(b"", str(path))
