"""The fast event decoder (binlogwriter.read.fastdecode, used by BinlogReader.decode) gives
exactly the events of the declarative decode_event, on generated runs of every workload ×
flavor × row image × row metadata (with and without compression and rows-query events), and
re-encodes them byte-identically (the real-server corpus: tests/conformance/test_fastdecode_corpus.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from binlogwriter.events import decode_event, encode_event
from binlogwriter.reader import BinlogReader
from binlogwriter.text_state import ReadState


def generate(out: Path, *args: str) -> list[Path]:
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--transactions", "40",
                    "--initial-rows", "10", "--ddl-in-binlog", "--out", str(out), "--no-progress", *args],
                   check=True, capture_output=True, timeout=300)
    return sorted(out.glob("binlog.0*"))


def check(files: list[Path], schemas=None) -> int:
    fast = BinlogReader(files, schemas=schemas)
    ref = ReadState(schemas)
    n = 0
    for rec in fast.records():
        if rec.offset == 4:
            ref = ReadState(schemas)
        got = fast.decode(rec)
        want = decode_event(rec.data, rec.fmt, file=rec.file, offset=rec.offset, columns_for=ref.columns_for)
        ref.observe(want)
        assert type(got) is type(want), f"{rec.file}:{rec.offset}"
        assert got == want, f"{rec.file}:{rec.offset} {want.type_name}"
        assert got.origin == want.origin
        assert encode_event(got, rec.fmt) == rec.data, f"{rec.file}:{rec.offset}"
        n += 1
    return n


CASES = [(w, f, i, m) for w in ("sysbench", "ecommerce", "alltypes") for f in ("mysql80", "mysql84", "mariadb1011")
         for i, m in (("full", "full"), ("minimal", "minimal"), ("noblob", "full"))]


@pytest.mark.parametrize("workload,flavor,image,metadata", CASES, ids=["-".join(c) for c in CASES])
def test_fast_decode_equals_declarative(tmp_path: Path, workload: str, flavor: str, image: str,
                                        metadata: str) -> None:
    extra = ["--rows-query"] if workload == "ecommerce" else []
    if flavor == "mysql84" and workload == "sysbench":
        extra += ["--compress"]
    files = generate(tmp_path / "run", "--workload", workload, "--flavor", flavor, "--row-image", image,
                     "--row-metadata", metadata, *extra)
    assert check(files) > 50

