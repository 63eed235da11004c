"""`generate --compress` (MySQL binlog_transaction_compression, docs/edge-cases.md 17): the same
transactions, each DML group in one zstd TRANSACTION_PAYLOAD event after its GTID."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from binlogwriter.events import TransactionPayloadEvent
from binlogwriter.payload import inner_events
from binlogwriter.reader import BinlogReader


def _gen(out: Path, *extra: str) -> None:
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--out", str(out), "--no-progress",
                        "--transactions", "120", "--flavor", "mysql84", "--row-image", "MINIMAL",
                        "--ddl-every", "50", "--max-binlog-size", "64K", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _rows(files: list[Path]) -> list[tuple]:
    out = []
    reader = BinlogReader(files)
    for ev in reader:
        group = [ev]
        if isinstance(ev, TransactionPayloadEvent):
            group = [i for _, _, i in inner_events(ev, reader.fmt)]
        for e in group:
            if e.type_code in (30, 31, 32):
                out.append((e.type_code, tuple(e.rows)))
            elif e.type_code == 2 and e.query not in ("BEGIN",):
                out.append((2, e.query))
    return out


def test_compressed_run_carries_the_same_changes(tmp_path):
    _gen(tmp_path / "plain")
    _gen(tmp_path / "zstd", "--compress")
    plain = sorted((tmp_path / "plain").glob("binlog.0*"))
    zstd = sorted((tmp_path / "zstd").glob("binlog.0*"))
    evs = list(BinlogReader(zstd))
    assert sum(isinstance(e, TransactionPayloadEvent) for e in evs) >= 100
    assert _rows(zstd) == _rows(plain)
    truth = sorted(p.name for p in (tmp_path / "plain" / "truth" / "final").glob("*.jsonl"))
    for name in truth:
        assert (tmp_path / "zstd" / "truth" / "final" / name).read_bytes() == \
            (tmp_path / "plain" / "truth" / "final" / name).read_bytes()
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "verify", "--roundtrip", *map(str, zstd)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("events: OK"), r.stdout


def test_compress_is_mysql_only(tmp_path):
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--out", str(tmp_path / "x"),
                        "--flavor", "mariadb1011", "--compress"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_tagged_gtids_need_mysql84(tmp_path):
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--out", str(tmp_path / "x"),
                        "--gtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:tag"], capture_output=True, text=True)
    assert r.returncode == 2 and "8.3" in r.stderr
    _gen(tmp_path / "t", "--gtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:load")
    evs = list(BinlogReader(sorted((tmp_path / "t").glob("binlog.0*"))))
    assert any(e.type_code == 42 and e.tag == "load" for e in evs)


def test_compress_with_spark_engine_is_refused_cleanly(tmp_path):
    """Compressed sizes depend on XIDs inside the payload, unknown to the Spark size pass:
    refused with a one-line error before Spark starts, and no output directory."""
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--out", str(tmp_path / "x"),
                        "--engine", "spark", "--compress"], capture_output=True, text=True)
    assert r.returncode == 2 and "--compress" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_tagged_gtids_with_spark_engine_are_refused_cleanly(tmp_path):
    r = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--out", str(tmp_path / "x"),
                        "--engine", "spark", "--flavor", "mysql84",
                        "--gtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:t"], capture_output=True, text=True)
    assert r.returncode == 2 and "--gtid" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
