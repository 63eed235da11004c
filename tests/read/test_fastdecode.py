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
from binlogwriter.read.state import ReadState
from binlogwriter.reader import BinlogReader


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



# -- the directly-read events over their whole field space (hypothesis) -----------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from binlogwriter.events import AnonymousGtidEvent, GtidEvent, MariadbGtidEvent, XidEvent  # noqa: E402
from binlogwriter.format import BinlogFormat  # noqa: E402
from binlogwriter.read.fastdecode import EventDecoder  # noqa: E402

U64 = st.integers(0, (1 << 64) - 1)
I64 = st.integers(-(1 << 63), (1 << 63) - 1)
opt = st.none


@st.composite
def gtid_events(draw):
    cls = draw(st.sampled_from([GtidEvent, AnonymousGtidEvent]))
    sid = draw(st.binary(min_size=16, max_size=16)).hex()
    ts = draw(st.integers(0, (1 << 55) - 1))
    return cls(gtid_flags=draw(st.integers(0, 255)),
               sid=f"{sid[0:8]}-{sid[8:12]}-{sid[12:16]}-{sid[16:20]}-{sid[20:32]}", gno=draw(I64),
               lt_typecode=draw(st.integers(0, 255)), last_committed=draw(I64), sequence_number=draw(I64),
               immediate_commit_timestamp=ts,
               original_commit_timestamp=draw(st.one_of(opt(), st.integers(0, (1 << 56) - 1))),
               transaction_length=draw(st.one_of(st.integers(0, 300), st.integers(0, (1 << 64) - 1))),
               immediate_server_version=draw(st.integers(0, (1 << 31) - 1)),
               original_server_version=draw(st.one_of(opt(), st.integers(0, (1 << 32) - 1))),
               commit_group_ticket=draw(st.one_of(opt(), U64)), timestamp=draw(st.integers(0, (1 << 32) - 1)),
               server_id=draw(st.integers(0, (1 << 32) - 1)), flags=draw(st.integers(0, 0xFFFF)))


@st.composite
def mariadb_gtids(draw):
    f2 = draw(st.integers(0, 63))  # no XA bits (64, 128): their xid must be built
    return MariadbGtidEvent(seq_no=draw(U64), domain_id=draw(st.integers(0, (1 << 32) - 1)), flags2=f2,
                            commit_id=draw(U64) if f2 & 2 else None,
                            trailing=draw(st.one_of(opt(), st.binary(max_size=9))),
                            timestamp=draw(st.integers(0, (1 << 32) - 1)), server_id=draw(st.integers(0, 9)))


@settings(max_examples=300, deadline=None)
@given(ev=st.one_of(gtid_events(), mariadb_gtids(),
                    st.builds(XidEvent, xid=U64, timestamp=st.integers(0, 99), server_id=st.integers(0, 9))),
       checksum=st.sampled_from(["CRC32", "NONE"]), cut=st.integers(0, 3))
def test_direct_reads_equal_declarative(ev, checksum: str, cut: int) -> None:
    fmt = BinlogFormat.preset("mariadb1011" if isinstance(ev, MariadbGtidEvent) else "mysql80", checksum=checksum)
    data = encode_event(ev, fmt, log_pos=1234)
    same_verdict(data, fmt)
    if cut and checksum == "NONE":  # a shorter body (fields missing at the end): the same verdict
        short = bytearray(data[:-cut])
        short[9:13] = len(short).to_bytes(4, "little")
        same_verdict(bytes(short), fmt)


def same_verdict(data: bytes, fmt) -> None:
    """The fast decoder gives the declarative event, or the same error type."""
    try:
        want = decode_event(data, fmt, file="f", offset=4)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            EventDecoder().decode(data, fmt, file="f", offset=4, verify_checksum=True, columns_for=None)
        return
    got = EventDecoder().decode(data, fmt, file="f", offset=4, verify_checksum=True, columns_for=None)
    assert type(got) is type(want) and got == want
