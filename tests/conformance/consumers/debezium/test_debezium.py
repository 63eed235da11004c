"""Debezium 3.6.1.Final (MySQL connector, embedded engine) judges ``binlogwriter serve``
(issue #31 §4).

Each shape is one generated run (``--ddl-in-binlog``: Debezium learns the tables from the DDL
in the binlog, adapter.py), served by a ``binlogwriter serve`` subprocess and read by one
Debezium run; every change Debezium emits is compared with the run's truth: op, table, GTID,
file, position of the rows event, timestamp, the transaction's place (``seq``) and the change's
place in it (``row``), and every column of both images in canonical form
(:func:`binlogwriter.testing.canonical_changes` with the truth's column types).

Where Debezium itself departs from what the binlog says, the difference is documented below
(:data:`DOCUMENTED`), checked to be exactly that difference, and counted; anything else fails:

- ``boolean``: a column declared BOOLEAN (TINYINT(1)) becomes a Connect boolean when Debezium
  reads its type from binlogged DDL, so 126 arrives as ``true``
  (https://github.com/debezium/debezium/pull/4371, DBZ-6225, closed without the fix);
- ``zero-date``: DATE/DATETIME/TIMESTAMP zero values (``0000-00-00 …``, and dates with a zero
  year, month or day) arrive as null for a nullable column, the epoch for a NOT NULL one
  (https://github.com/debezium/debezium/pull/105, DBZ-114, and DBZ-191);
- ``year-zero``: YEAR 0000 arrives as 1900: mysql-binlog-connector-java's ``deserializeYear``
  adds 1900 to the byte unconditionally
  (https://github.com/osheroff/mysql-binlog-connector-java/issues/183, open).

The same reading also goes through the kit's comparison with the ``debezium`` consumer profile
(:func:`assert_kit_profile_accepts`): it must accept every representation above and report only
the BOOLEAN values Debezium loses.

Debezium refuses ``binlog_row_image`` other than FULL (adapter.py), which
:func:`test_debezium_refuses_a_partial_row_image` checks; MINIMAL/NOBLOB images are therefore
only served to it to see that refusal. The MariaDB flavor is not read: the MariaDB connector
3.6.1.Final does not resolve from Maven Central here (adapter.FLAVORS).

Shapes (:data:`SHAPES`): mysql80 and mysql84; ecommerce, alltypes (every type family, edge
values) and a custom schema (JSON, DECIMAL, DATETIME(6), TIMESTAMP(3), TIME(6), ENUM/SET, BIT,
utf8mb4 text, BLOB, BIGINT UNSIGNED, a composite key, a keyless table); FULL and MINIMAL row
metadata; DDL mid-stream (``--ddl-every``); rotation over several files; anonymous and tagged
GTIDs; compressed transactions; ROWS_QUERY events; no checksums; a table of 1,100 columns. Beyond them: a restart in the middle
of a transaction from file offsets, ``serve --generate`` (a stream with no files), Debezium's
``initial``/``no_data`` snapshot modes against serve, and the refusal of partial row images.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from binlogwriter.compare import diff_streams
from binlogwriter.testing import canonical_changes, truth_changes
from binlogwriter.values.json_text import mysql_json_text
from tests.conformance.consumers.base import ServedEndpoint
from tests.conformance.serve_process import ROOT, ServeProcess
from tests.conformance.toolchain import ToolchainError

from . import adapter

pytestmark = pytest.mark.conformance

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "schema.sql"

SERVER_ID = 5400  # the replica id Debezium registers with
_TIMINGS: list[tuple[str, float, float, int]] = []  # shape, generate+serve s, Debezium s, changes


@pytest.fixture(scope="module")
def debezium_built() -> None:
    try:
        adapter.ensure_built()
    except ToolchainError as e:
        pytest.fail(str(e), pytrace=False)


def generate(out: Path, *args: str) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "binlogwriter", "generate", "--out", str(out), "--ddl-in-binlog",
         "--no-progress", *args],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return out


# ------------------------------------------------------------------------- the comparison

DOCUMENTED = ("boolean", "zero-date", "year-zero")


def _column_types(run_dir: Path) -> dict[str, dict[str, dict]]:
    out = {}
    for p in (run_dir / "truth" / "changes").glob("*.parquet"):
        meta = json.loads((pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
        out[p.name[: -len(".parquet")]] = meta
    return out


def _natural_to_reader_form(value: object, sql_type: str) -> object:
    """Debezium's natural value -> the form the truth's canonical renderers take: a geometry
    struct -> the bytes MySQL stores (4-byte little-endian SRID + WKB); a parsed JSON document
    -> MySQL's text of it (canonical_changes takes any str of a JSON column as that text)."""
    if value is None:
        return None
    if sql_type == "JSON":
        return mysql_json_text(value)
    if isinstance(value, dict) and "wkb" in value:
        return int(value.get("srid") or 0).to_bytes(4, "little") + value["wkb"]
    return value


def _reader_form(image: dict | None, cols: dict[str, dict]) -> dict | None:
    if image is None:
        return None
    return {k: _natural_to_reader_form(v, str(cols.get(k, {}).get("type", "")).upper()) for k, v in image.items()}


def _zero_part_date(text: str) -> bool:
    """A DATE/DATETIME/TIMESTAMP text whose year, month or day is zero (``0000-00-00``,
    ``2016-00-28``, ``0000-01-01 …``): no calendar date, which Debezium gives as null."""
    year, month, day = text[:4], text[5:7], text[8:10]
    return year == "0000" or "00" in (month, day)


def _documented(kind: str, got: object, want: object, info: dict) -> str | None:
    """Which documented Debezium difference explains ``got`` != ``want`` (module docstring),
    or None. ``got`` is Debezium's natural value, ``want`` the truth's canonical value."""
    if isinstance(got, bool) and kind in ("TINYINT",) and isinstance(want, int):
        return "boolean" if got == (want != 0) else None
    if kind in ("DATE", "DATETIME", "TIMESTAMP") and isinstance(want, str) and _zero_part_date(want):
        epoch = (dt.date(1970, 1, 1), dt.datetime(1970, 1, 1), dt.datetime(1970, 1, 1, tzinfo=dt.UTC))
        nullable = info.get("nullable", True)
        if got is None or (not nullable and got in epoch):
            return "zero-date"
        return None
    if kind == "YEAR" and want == 0 and got == 1900:
        return "year-zero"
    return None


def compare(decoded: list[dict], run_dir: Path) -> Counter:
    """Assert Debezium's changes equal the truth but for the documented differences; returns
    how many values each documented difference explained."""
    want = list(truth_changes(run_dir))
    types = _column_types(run_dir)
    natural = []
    for c in decoded:
        cols = types.get(f"{c['database']}.{c['table']}", {})
        natural.append({**c, "before": _reader_form(c["before"], cols), "after": _reader_form(c["after"], cols)})
    fields = ("op", "database", "table", "before", "after", "gtid", "file", "position", "timestamp")
    got = list(canonical_changes([{k: c[k] for k in fields} for c in natural], run_dir))
    problems: list[str] = []
    if len(got) != len(want):
        problems.append(f"Debezium emitted {len(got)} changes, the truth has {len(want)}")
    explained: Counter = Counter()
    for i, (g, raw, w) in enumerate(zip(got, decoded, want, strict=False)):
        where = f"change {i} ({w['op']} {w['database']}.{w['table']} at {w['file']}:{w['position']})"
        for f in ("op", "database", "table", "gtid", "file", "position", "timestamp"):
            if g.get(f) != w.get(f):
                problems.append(f"{where}: {f} decoded {g.get(f)!r}, truth {w.get(f)!r}")
        # the change model's place of the change: seq (its transaction among those with row
        # changes) and row (its index in the transaction), as the truth gives them
        if (raw["seq"], raw["row"]) != (w["seq"], w["row"]):
            problems.append(f"{where}: transaction place (seq, row) decoded {(raw['seq'], raw['row'])}, "
                            f"truth {(w['seq'], w['row'])}")
        for side in ("before_row", "after_row"):  # the full rows: the images, FULL being required
            gr, wr = raw.get(side), w.get(side)
            if (gr is None) != (wr is None) or list(gr or ()) != list(wr or ()):
                problems.append(f"{where}: {side} columns decoded {None if gr is None else list(gr)}, "
                                f"truth {None if wr is None else list(wr)}")
        cols = types.get(f"{w['database']}.{w['table']}", {})
        for side in ("before", "after"):
            gi, wi, ri = g.get(side), w.get(side), raw.get(side)
            if (gi is None) != (wi is None):
                problems.append(f"{where}: {side} decoded {gi!r}, truth {wi!r}")
                continue
            if gi is None:
                continue
            if set(gi) != set(wi):
                problems.append(f"{where}: {side} columns decoded {sorted(gi)}, truth {sorted(wi)}")
            for col in wi:
                gv, wv = gi.get(col), wi[col]
                if gv == wv and type(gv) is type(wv):
                    continue
                info = cols.get(col, {})
                why = _documented(str(info.get("type", "")).upper(), ri.get(col), wv, info)
                if why is None:
                    problems.append(f"{where}: {side}.{col} ({info.get('type')}) decoded {ri.get(col)!r} "
                                    f"-> {gv!r}, truth {wv!r}")
                else:
                    explained[why] += 1
        if len(problems) > 20:
            break
    assert not problems, "Debezium's reading differs from the truth:\n" + "\n".join(problems[:20])
    return explained


def assert_kit_profile_accepts(decoded: list[dict], run_dir: Path) -> int:
    """The kit's ``debezium`` consumer profile (binlogwriter.compare, docs/testing.md "Consumer
    profiles", issue #31 §2) accepts Debezium's reading of the run: the only differences
    :func:`binlogwriter.compare.diff_streams` still reports are the values Debezium loses — a
    BOOLEAN (TINYINT(1)) holding other than 0/1 arrives as ``true`` (a profile accepts
    representations, never a changed value). Those are counted here from Debezium's bools and
    the truth's ints, independently of the profile; returns how many."""
    want = list(truth_changes(run_dir))
    types = _column_types(run_dir)
    lossy = []
    for g, w in zip(decoded, want, strict=True):
        cols = types[f"{w['database']}.{w['table']}"]
        for side in ("before", "after"):
            for col, v in (g[side] or {}).items():
                if isinstance(v, bool) and cols[col]["type"] == "TINYINT" and w[side][col] not in (0, 1):
                    lossy.append(f"{w['database']}.{w['table']} {side} {col}")
    flavor = json.loads((run_dir / "manifest.json").read_text())["format"]["flavor"]
    diff, _n = diff_streams(decoded, want, profile="debezium", flavor=flavor, fields=("op", "table", "before", "after"),
                            columns=types, max_differences=len(lossy) + 20)
    assert diff.counts == ({"column value": len(lossy)} if lossy else {}), diff.report("profile debezium")
    assert all(" [bool], truth " in line for line in diff.lines), diff.report("profile debezium")
    return len(lossy)


# ------------------------------------------------------------------------- the shapes

WIDE = "<wide schema>"
"""Stands for a schema of one table with 1,100 columns, written by the test (wide_schema)."""


def wide_schema(path: Path, columns: int = 1100) -> Path:
    kinds = ("INT", "VARCHAR(20)", "DECIMAL(10,3)", "DATETIME(3)", "DOUBLE", "TEXT CHARACTER SET utf8mb4")
    cols = ",\n".join(f"  c{i:04d} {kinds[i % len(kinds)]}" for i in range(columns))
    path.write_text(f"CREATE TABLE wide (\n  id INT NOT NULL PRIMARY KEY,\n{cols}\n);\n")
    return path


SHAPES = {
    # name: (flavor, generate arguments)
    "mysql80-ecommerce-full-meta-rotating": (
        "mysql80", ("--workload", "ecommerce", "--transactions", "60", "--initial-rows", "4",
                    "--row-metadata", "full", "--max-binlog-size", "16KB", "--checksum", "none")),
    "mysql84-alltypes-minimal-meta": (
        "mysql84", ("--workload", "alltypes", "--transactions", "50", "--initial-rows", "4",
                    "--row-metadata", "minimal", "--seed", "7")),
    "mysql80-alltypes-full-meta-edges": (
        "mysql80", ("--workload", "alltypes", "--transactions", "50", "--initial-rows", "4",
                    "--row-metadata", "full", "--edge-values", "0.5", "--seed", "3")),
    "mysql84-custom-ddl-every-minimal-meta": (
        "mysql84", ("--schema", str(SCHEMA), "--transactions", "60", "--initial-rows", "5",
                    "--row-metadata", "minimal", "--ddl-every", "15", "--edge-values", "0.2",
                    "--max-binlog-size", "32KB")),
    "mysql84-ecommerce-tagged-gtid": (
        "mysql84", ("--workload", "ecommerce", "--transactions", "40", "--initial-rows", "3",
                    "--gtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:orders", "--rows-query", "--seed", "2")),
    "mysql80-alltypes-compressed": (
        "mysql80", ("--workload", "alltypes", "--transactions", "40", "--initial-rows", "3",
                    "--compress", "--seed", "9")),
    "mysql84-wide-1100-columns": (
        "mysql84", ("--schema", WIDE, "--transactions", "25", "--initial-rows", "4", "--edge-values", "0.1")),
    "mysql80-custom-anonymous-full-meta": (
        "mysql80", ("--schema", str(SCHEMA), "--transactions", "60", "--initial-rows", "5",
                    "--row-metadata", "full", "--gtid", "anonymous", "--edge-values", "0.2", "--seed", "11")),
}

SERVE_ARGS = {
    # Connector/J logs in with either plugin (serve's default for MySQL files: caching_sha2_password)
    "mysql80-custom-anonymous-full-meta": ("--auth-plugin", "mysql_native_password"),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_debezium_reads_served_run_as_the_truth(shape: str, tmp_path: Path, debezium_built: None) -> None:
    flavor, args = SHAPES[shape]
    assert flavor in adapter.FLAVORS
    if WIDE in args:
        args = tuple(str(wide_schema(tmp_path / "wide.sql")) if a == WIDE else a for a in args)
    t0 = time.monotonic()
    run = generate(tmp_path / "run", "--flavor", flavor, *args)
    expected = sum(1 for _ in truth_changes(run))
    with ServeProcess([run], *SERVE_ARGS.get(shape, ())) as srv:
        t1 = time.monotonic()
        endpoint = ServedEndpoint(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                                  flavor=flavor, run_dir=run, server_id=SERVER_ID)
        decoded = adapter.decode(endpoint, expected_changes=expected, timeout=120.0)
        t2 = time.monotonic()
        refused = [line for line in srv.log if "query refused" in line]
    _TIMINGS.append((shape, t1 - t0, t2 - t1, expected))
    assert not refused, "serve refused a query Debezium sent:\n" + "\n".join(refused)
    explained = compare(decoded, run)
    lossy = assert_kit_profile_accepts(decoded, run)
    print(f"{shape}: {expected} changes, Debezium {t2 - t1:.1f} s, documented differences {dict(explained)}, "
          f"BOOLEAN values other than 0/1 the debezium profile reports {lossy}")


def test_debezium_resumes_mid_transaction_after_a_restart(tmp_path: Path, debezium_built: None) -> None:
    """Debezium stopped in the middle of a transaction (offsets and schema history kept in
    files) and started again: it asks serve for ``GTID_SUBTRACT`` of its stored set, dumps
    from that GTID set, skips the events and rows it had already emitted, and the two runs
    together are exactly the truth (no change lost or repeated)."""
    run = generate(tmp_path / "run", "--flavor", "mysql84", "--schema", str(SCHEMA), "--transactions", "40",
                   "--initial-rows", "3", "--rows-per-txn", "2-6", "--mix", "insert=0.5,update=0.4,delete=0.1",
                   "--max-binlog-size", "24KB", "--seed", "5")
    want = list(truth_changes(run))
    by_txn = Counter(c["seq"] for c in want)
    placed: Counter = Counter()
    stop = None
    for i, c in enumerate(want):  # the first change past the middle that is inside a transaction
        placed[c["seq"]] += 1
        if i >= len(want) // 2 and 0 < placed[c["seq"]] < by_txn[c["seq"]]:
            stop = i + 1
            break
    assert stop is not None, "the run has no transaction of several changes past its middle"
    files = {
        "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
        "offset.storage.file.filename": str(tmp_path / "offsets.dat"),
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
    }
    with ServeProcess([run]) as srv:
        endpoint = ServedEndpoint(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                                  flavor="mysql84", run_dir=run, server_id=SERVER_ID)
        first, _ = adapter.run_records(endpoint, expected_changes=stop, timeout=120.0, properties=files)
        second, _ = adapter.run_records(endpoint, expected_changes=len(want) - stop, timeout=120.0,
                                        properties=files)
        refused = [line for line in srv.log if "query refused" in line]
        dumps = [line for line in srv.log if "dump from" in line]
    assert not refused, "serve refused a query Debezium sent:\n" + "\n".join(refused)
    assert len(first) == stop and len(dumps) == 2
    assert "dump from GTID (empty set)" in dumps[0] and "dump from GTID 3e11fa47" in dumps[1], dumps
    compare(adapter.changes_from_records(first + second), run)


def test_debezium_reads_a_generated_stream_as_the_runs_truth(tmp_path: Path, debezium_built: None) -> None:
    """``serve --generate manifest.json`` streams the same bytes as the run's files without
    writing them: Debezium's reading equals the run's truth (GTIDs included: serve reports
    @@gtid_mode=ON for a stream whose transactions carry GTIDs, so Debezium dumps by GTID)."""
    run = generate(tmp_path / "run", "--flavor", "mysql84", "--schema", str(SCHEMA), "--transactions", "40",
                   "--initial-rows", "4", "--ddl-every", "12", "--max-binlog-size", "24KB", "--seed", "4")
    expected = sum(1 for _ in truth_changes(run))
    with ServeProcess([], "--generate", str(run / "manifest.json")) as srv:
        endpoint = ServedEndpoint(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                                  flavor="mysql84", run_dir=run, server_id=SERVER_ID)
        decoded = adapter.decode(endpoint, expected_changes=expected, timeout=120.0)
        refused = [line for line in srv.log if "query refused" in line]
        dumps = [line for line in srv.log if "dump from" in line]
    assert not refused, "serve refused a query Debezium sent:\n" + "\n".join(refused)
    assert len(dumps) == 1 and "dump from GTID (empty set)" in dumps[0], dumps
    compare(decoded, run)


@pytest.mark.parametrize("mode", ["initial", "no_data"])
def test_debezium_snapshot_modes_start_against_serve(mode: str, tmp_path: Path, debezium_built: None) -> None:
    """Debezium's default snapshot mode (``initial``) and ``no_data`` take their snapshot
    through serve's answers (SHOW DATABASES: none, information_schema: no rows, FLUSH/UNLOCK
    TABLES) without one refused statement, then stream from the end of the served files
    (the GTID set SHOW BINARY LOG STATUS reported): nothing more to emit, no engine error."""
    run = generate(tmp_path / "run", "--flavor", "mysql84", "--workload", "ecommerce",
                   "--transactions", "5", "--initial-rows", "2")
    executed = json.loads((run / "manifest.json").read_text())["gtid_executed"]
    with ServeProcess([run]) as srv:
        endpoint = ServedEndpoint(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                                  flavor="mysql84", run_dir=run, server_id=SERVER_ID)
        records, _err = adapter.run_records(endpoint, expected_changes=1, timeout=6.0,
                                            properties={"snapshot.mode": mode})
        refused = [line for line in srv.log if "query refused" in line]
        dumps = srv.wait_log("dump from", timeout=5.0)
    assert records == []
    assert not refused, "serve refused a query Debezium sent:\n" + "\n".join(refused)
    assert len(dumps) == 1 and f"dump from GTID {executed}" in dumps[0], dumps


@pytest.mark.parametrize("image", ["minimal", "noblob"])
def test_debezium_refuses_a_partial_row_image(image: str, tmp_path: Path, debezium_built: None) -> None:
    """Debezium requires binlog_row_image=FULL: serve reports the run's MINIMAL/NOBLOB image
    and Debezium stops at startup with its own message (nothing decoded)."""
    run = generate(tmp_path / "run", "--flavor", "mysql80", "--workload", "ecommerce",
                   "--transactions", "10", "--initial-rows", "2", "--row-image", image)
    with ServeProcess([run], "--row-image", image.upper()) as srv:
        endpoint = ServedEndpoint(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                                  flavor="mysql80", run_dir=run, server_id=SERVER_ID)
        with pytest.raises(adapter.DebeziumFailed, match="binlog_row_image=FULL"):
            adapter.decode(endpoint, expected_changes=5, timeout=60.0)


def test_adapter_converts_debezium_wire_values() -> None:
    """The wire -> natural conversions, on values whose meaning Debezium's documentation gives
    (data type mappings of the MySQL connector), written out by hand."""
    from decimal import Decimal

    conv = adapter.convert
    assert conv({"type": "int32", "name": "io.debezium.time.Date"}, -1) == dt.date(1969, 12, 31)
    assert conv({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, 1_500_000) == dt.datetime(
        1970, 1, 1, 0, 0, 1, 500000)
    assert conv({"type": "int64", "name": "io.debezium.time.Timestamp"}, -1) == dt.datetime(
        1969, 12, 31, 23, 59, 59, 999000)
    assert conv({"type": "string", "name": "io.debezium.time.ZonedTimestamp"}, "2023-05-08T06:01:32.22Z") == (
        dt.datetime(2023, 5, 8, 6, 1, 32, 220000, tzinfo=dt.UTC))
    assert conv({"type": "int64", "name": "io.debezium.time.MicroTime"}, -3_600_000_001) == -dt.timedelta(
        hours=1, microseconds=1)
    # Connect Decimal: big-endian two's complement unscaled value, here -1 at scale 2
    assert conv({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                 "parameters": {"scale": "2"}}, "/w==") == Decimal("-0.01")
    assert conv({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                 "parameters": {"scale": "0"}}, "AP//////////") == Decimal(2**64 - 1)
    # Bits: least significant byte first
    assert conv({"type": "bytes", "name": "io.debezium.data.Bits"}, "AQI=") == 0x0201
    assert conv({"type": "string", "name": "io.debezium.data.Json"}, '{"a": [1]}') == {"a": [1]}
    assert conv({"type": "float"}, 59732.812) == 59732.8125
    assert conv({"type": "string", "parameters": {"__debezium.source.column.type": "VARBINARY"}}, "AP8=") == b"\x00\xff"
    assert conv({"type": "string", "parameters": {"__debezium.source.column.type": "VARCHAR"}}, "AP8=") == "AP8="
    assert conv({"type": "string", "parameters": {"__debezium.source.column.type": "DECIMAL UNSIGNED"}},
                "65.40") == Decimal("65.40")
    assert conv({"type": "struct", "name": "io.debezium.data.geometry.Point"},
                {"x": 1.0, "y": 2.0, "wkb": "AQ==", "srid": 4326}) == {"wkb": b"\x01", "srid": 4326}


def teardown_module() -> None:
    if _TIMINGS:
        total = sum(a + b for _, a, b, _n in _TIMINGS)
        lines = [f"  {s}: generate+serve {a:.1f} s, Debezium {b:.1f} s, {n} changes" for s, a, b, n in _TIMINGS]
        print("\nDebezium conformance runs (total {:.1f} s):\n{}".format(total, "\n".join(lines)))


def test_a_missing_toolchain_is_one_line_saying_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """No java/javac/mvn on PATH: ensure_built fails (never skips) with one line naming the
    program and the Debian package to install."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError) as info:
        adapter.ensure_built()
    message = str(info.value)
    assert "\n" not in message
    assert "needs java" in message and "openjdk-17-jdk-headless" in message
