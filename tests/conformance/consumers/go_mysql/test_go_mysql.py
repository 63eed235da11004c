"""go-mysql v1.13.0 (``replication.BinlogSyncer``, adapter.py) reads generated runs through
``binlogwriter serve`` and must decode exactly the run's truth (issue #31 §4).

Each case generates a small run (every flavor; FULL/MINIMAL/NOBLOB row images; FULL/MINIMAL
row metadata; the alltypes and ecommerce workloads and a custom schema with JSON, DECIMAL,
DATETIME(6), ENUM/SET, utf8mb4 text, BIT, a keyless table and a 120-column table; DDL
mid-stream with ``ddl_every``), serves it, lets go-mysql dump it from the first file (or after
a GTID set) and compares every change of the change model go-mysql gives (docs/output.md
"The change model") — ``seq`` and ``row`` (counted by the adapter from go-mysql's
transaction boundaries), op, database, table, GTID, XID, file, rows event position,
transaction position, timestamp and the before/after images column by column — with
``truth_changes()`` in canonical form. ``before_row`` / ``after_row`` are not compared:
go-mysql gives the binlogged images only.

go-mysql's own limits, recorded rather than hidden (:func:`gomysql_signedness`):

- go-mysql #1118 (https://github.com/go-mysql-org/go-mysql/issues/1118, fixed by PR #1119
  after v1.13.0): ``TableMapEvent.UnsignedMap()`` skips the SIGNEDNESS bit the server writes
  for a YEAR column, so every integer column after a YEAR column gets the next column's bit.
  MySQL writes 0 for YEAR, MariaDB 1 (format.md §12.1), so on MariaDB a signed integer after
  YEAR is read as unsigned. The comparison expects exactly the values that shifted
  signedness produces for those columns and the truth's values everywhere else.
- go-mysql #845 (https://github.com/go-mysql-org/go-mysql/issues/845, PR #1125 after v1.13.0):
  ``mysql.ParseMysqlGTIDSet`` cannot parse a tagged GTID set (``uuid:tag:1-n``), so go-mysql
  cannot resume from one: a strict xfail records it.

The normalisation from go-mysql's natural values to canonical form is this test's
(:func:`canonical`): the truth's per-type renderers, except that a zero/invalid DATE,
DATETIME or TIMESTAMP, which go-mysql gives as text (``0000-00-00 00:00:00.000``, its
formatZeroTime), is compared as that text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow.parquet as pq
import pytest

from binlogwriter.run_truth import canonical_fns, truth_changes
from generators.engine import generate
from generators.spec import Spec
from tests.conformance.serve_process import ServeProcess

from . import adapter

pytestmark = pytest.mark.conformance

FIELDS = ("seq", "row", "op", "database", "table", "gtid", "xid", "file", "position", "transaction_position",
          "timestamp")
_TEMPORAL = {"DATE", "DATETIME", "TIMESTAMP", "TIME"}
_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "INTEGER": 32, "BIGINT": 64}
# the column types go-mysql v1.13.0's IsNumericColumn counts (row_event.go): no YEAR, no BIT
_GOMYSQL_NUMERIC = {*_INT_BITS, "BOOL", "BOOLEAN", "DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL"}


def _wide(n: int) -> str:
    return ",\n  ".join(
        f"c{i:04d} {('INT', 'VARCHAR(20)', 'DECIMAL(12,3)', 'DATETIME(6)', 'BIGINT UNSIGNED', 'YEAR')[i % 6]}"
        for i in range(1, n + 1))


def _wide_schema(n: int) -> str:
    """One table of ``n`` + 1 columns (every sixth a YEAR: go-mysql #1118 shifts on MariaDB)."""
    return f"CREATE TABLE very_wide (\n  id INT NOT NULL PRIMARY KEY,\n  {_wide(n)}\n);\n"


def _custom_schema() -> str:
    wide = _wide(120)
    return f"""
CREATE TABLE docs (
  id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  doc JSON,
  price DECIMAL(20,6),
  ratio DECIMAL(5,5) UNSIGNED,
  at DATETIME(6),
  seen TIMESTAMP(3) NULL,
  kind ENUM('a','bb','ccc'),
  tags SET('x','y','z','w'),
  title VARCHAR(100) CHARACTER SET utf8mb4,
  body TEXT CHARACTER SET utf8mb4,
  flags BIT(12),
  y YEAR,
  small TINYINT,
  n INT
);
CREATE TABLE keyless (
  a INT,
  b VARCHAR(30) CHARACTER SET utf8mb4,
  c DECIMAL(8,2),
  d BLOB
);
CREATE TABLE wide (
  id INT NOT NULL PRIMARY KEY,
  {wide}
);
"""


def _run(tmp_path: Path, **spec: Any) -> Path:
    out = tmp_path / "run"
    base = dict(seed=31, transactions=60, initial_rows=8, max_binlog_size=40000, database="gm")
    base.update(spec)
    generate(Spec.from_dict(base), out)
    return out


def _flavor(run_dir: Path) -> str:
    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["format"]["flavor"]


def _table_meta(run_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    out = {}
    for p in (run_dir / "truth" / "changes").glob("*.parquet"):
        out[p.name[: -len(".parquet")]] = json.loads(
            (pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
    return out


def canonical(changes: Iterable[dict[str, Any]], run_dir: Path) -> Iterator[dict[str, Any]]:
    """The adapter's changes in canonical form (module docstring)."""
    flavor = _flavor(run_dir)
    metas = _table_meta(run_dir)
    fns = {t: canonical_fns(m, flavor) for t, m in metas.items()}
    for c in changes:
        d = dict(c)
        key = f"{d['database']}.{d['table']}"
        f, info = fns.get(key, {}), metas.get(key, {})
        for side in ("before", "after"):
            img = d.get(side)
            if img is None:
                continue
            out = {}
            for k, v in img.items():
                t = info.get(k, {}).get("type")
                if v is None:
                    out[k] = None
                elif isinstance(v, str) and t in _TEMPORAL:
                    out[k] = v  # go-mysql's text of a zero/invalid date, fsp digits included
                else:
                    out[k] = f[k](v) if k in f else v
            d[side] = out
        yield d


def gomysql_signedness(columns: list[str], info: dict[str, dict[str, Any]], flavor: str) -> dict[str, bool]:
    """What go-mysql v1.13.0's ``UnsignedMap()`` says for each integer column of a table with
    these columns, given the SIGNEDNESS bits the server writes (one per numeric column and
    YEAR; YEAR's bit is 1 on MariaDB, 0 on MySQL): it consumes bits only for its numeric
    types, so after a YEAR column it is one bit behind (go-mysql #1118)."""
    bits = []
    for name in columns:
        t = info[name]["type"]
        if t in _GOMYSQL_NUMERIC:
            bits.append(bool(info[name].get("unsigned")))
        elif t == "YEAR":
            bits.append(flavor.startswith("mariadb"))
    out, k = {}, 0
    for name in columns:
        if info[name]["type"] in _GOMYSQL_NUMERIC:
            if info[name]["type"] in _INT_BITS or info[name]["type"] in ("BOOL", "BOOLEAN"):
                out[name] = bits[k]
            k += 1
    return out


def expected(run_dir: Path, skip: int = 0) -> list[dict[str, Any]]:
    """``truth/changes`` (after the first ``skip`` transactions), integer values as go-mysql
    #1118's shifted signedness makes them (module docstring)."""
    flavor = _flavor(run_dir)
    metas = _table_meta(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    signedness = manifest["format"]["row_metadata"].upper() != "NO_LOG"  # NO_LOG: no SIGNEDNESS
    want = [w for w in truth_changes(run_dir) if w["seq"] >= skip]
    for w in want:
        info = metas[f"{w['database']}.{w['table']}"]
        cols = list((w["after_row"] or w["before_row"]).keys())
        seen = gomysql_signedness(cols, info, flavor) if signedness else {}
        for side in ("before", "after"):
            img = w[side]
            if not img:
                continue
            for name, v in img.items():
                t = info[name]["type"]
                if v is None or name not in seen or seen[name] == bool(info[name].get("unsigned")):
                    continue
                n = 8 if t in ("BOOL", "BOOLEAN") else _INT_BITS[t]
                img[name] = v + (1 << n) if seen[name] and v < 0 else v - (1 << n) if not seen[name] and v >= 1 << (
                    n - 1) else v
    return want


def compare(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    problems = []
    if len(got) != len(want):
        problems.append(f"go-mysql decoded {len(got)} changes, the truth has {len(want)}")
    for k, (g, w) in enumerate(zip(got, want, strict=False)):
        lines = [f"  {f}: go-mysql {g.get(f)!r}, truth {w.get(f)!r}" for f in FIELDS if g.get(f) != w.get(f)]
        for side in ("before", "after"):
            gs, ws = g.get(side), w.get(side)
            if (gs is None) != (ws is None) or (gs is not None and set(gs) != set(ws)):
                lines.append(f"  {side} columns: go-mysql {None if gs is None else sorted(gs)}, "
                             f"truth {None if ws is None else sorted(ws)}")
                continue
            for col in ws or ():
                if gs[col] != ws[col] or type(gs[col]) is not type(ws[col]):
                    lines.append(f"  {side}.{col}: go-mysql {gs[col]!r:.120}, truth {ws[col]!r:.120}")
        if lines:
            problems.append(f"change {k} (seq {w['seq']} row {w['row']}: {w['op']} {w['database']}.{w['table']} "
                            f"at {w['file']}:{w['position']}):")
            problems.extend(lines)
        if len([p for p in problems if p.startswith("change")]) >= 5:
            break
    assert not problems, "go-mysql's decoding differs from truth/changes\n" + "\n".join(problems)


def _decode(run_dir: Path, count: int, gtid: str | None = None, first_seq: int = 0) -> list[dict[str, Any]]:
    """go-mysql's changes of the served run, from the first file or after ``gtid`` (then
    ``first_seq`` is the ``seq`` of the first transaction it is asked for: the adapter counts
    ``seq`` from where the dump starts)."""
    with ServeProcess([run_dir]) as srv:
        ep = SimpleNamespace(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                             flavor=_flavor(run_dir), run_dir=run_dir, server_id=4031)
        if gtid is None:
            got = adapter.decode(ep, expected_changes=count, timeout=60)
        else:
            lines = adapter.run_lines(ep, expected_changes=count, timeout=60, gtid=gtid)
            got = list(adapter.to_changes(lines, run_dir, ep.flavor, first_seq=first_seq))
        assert not any("ERROR" in line or "Traceback" in line for line in srv.log), "\n".join(srv.log)
    return got


@pytest.fixture(scope="module")
def gomysql_built() -> None:
    adapter.ensure_built()


CASES = [
    # (id, spec)
    ("mysql80-alltypes-full-full-ddl", dict(flavor="mysql80", workload="alltypes", ddl_every=15)),
    ("mysql84-alltypes-minimal-minimal-ddl",
     dict(flavor="mysql84", workload="alltypes", row_image="MINIMAL", row_metadata="MINIMAL", ddl_every=12)),
    ("mariadb-alltypes-noblob-full", dict(flavor="mariadb1011", workload="alltypes", row_image="NOBLOB")),
    ("mariadb-alltypes-full-minimal-ddl",
     dict(flavor="mariadb1011", workload="alltypes", row_metadata="MINIMAL", ddl_every=10)),
    ("mysql80-ecommerce-noblob-minimal",
     dict(flavor="mysql80", workload="ecommerce", row_image="NOBLOB", row_metadata="MINIMAL")),
    ("mariadb-ecommerce-minimal-full", dict(flavor="mariadb1011", workload="ecommerce", row_image="MINIMAL")),
    ("mysql80-custom-full-full-ddl", dict(flavor="mysql80", workload=None, schema_sql=_custom_schema(), ddl_every=10)),
    ("mysql84-custom-noblob-minimal",
     dict(flavor="mysql84", workload=None, schema_sql=_custom_schema(), row_image="NOBLOB", row_metadata="MINIMAL")),
    ("mariadb-custom-minimal-minimal-ddl",
     dict(flavor="mariadb1011", workload=None, schema_sql=_custom_schema(), row_image="MINIMAL", row_metadata="MINIMAL",
          ddl_every=8)),
    ("mariadb-alltypes-minimal-nolog-ddl",
     dict(flavor="mariadb1011", workload="alltypes", row_image="MINIMAL", row_metadata="NO_LOG", ddl_every=12)),
    ("mysql80-ecommerce-compressed", dict(flavor="mysql80", workload="ecommerce", compress=True)),
    ("mysql84-ecommerce-tagged-gtid",
     dict(flavor="mysql84", workload="ecommerce", gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562:gm")),
    ("mysql80-alltypes-anonymous-nochecksum-rowsquery",
     dict(flavor="mysql80", workload="alltypes", gtid="anonymous", checksum="NONE", rows_query=True)),
    ("mariadb-alltypes-nochecksum-annotate",
     dict(flavor="mariadb1011", workload="alltypes", checksum="NONE", rows_query=True, row_image="MINIMAL")),
    ("mysql84-1017-columns-minimal-minimal",
     dict(flavor="mysql84", workload=None, schema_sql=_wide_schema(1016), row_image="MINIMAL",
          row_metadata="MINIMAL", transactions=25, initial_rows=4)),
    ("mariadb-1017-columns-full-full",
     dict(flavor="mariadb1011", workload=None, schema_sql=_wide_schema(1016), transactions=25, initial_rows=4)),
]


@pytest.mark.parametrize("spec", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_go_mysql_decodes_the_truth(tmp_path: Path, spec: dict[str, Any], gomysql_built: None) -> None:
    run_dir = _run(tmp_path, **spec)
    want = expected(run_dir)
    assert len(want) >= 25
    got = list(canonical(_decode(run_dir, len(want)), run_dir))
    compare(got, want)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_go_mysql_resumes_after_a_gtid_set(tmp_path: Path, flavor: str, gomysql_built: None) -> None:
    """StartSyncGTID (COM_BINLOG_DUMP_GTID; MariaDB: SET @slave_connect_state, @slave_gtid_strict_mode
    and COM_BINLOG_DUMP) after the first 20 transactions: go-mysql gets exactly the rest."""
    run_dir = _run(tmp_path, flavor=flavor, workload="ecommerce")
    txns: list[str] = []
    for w in truth_changes(run_dir):
        if w["gtid"] not in txns:
            txns.append(w["gtid"])
    last = txns[19]
    gtid = f"{last.rsplit(':', 1)[0]}:1-{last.rsplit(':', 1)[1]}" if flavor.startswith("mysql") else last
    want = expected(run_dir, skip=20)
    assert want[0]["gtid"] == txns[20]
    got = list(canonical(_decode(run_dir, len(want), gtid=gtid, first_seq=20), run_dir))
    compare(got, want)


@pytest.mark.parametrize("flavor", ["mysql84", "mariadb1011"])
def test_go_mysql_starts_at_a_later_file(tmp_path: Path, flavor: str, gomysql_built: None) -> None:
    """StartSync at the second file's position 4 (COM_BINLOG_DUMP naming the file): go-mysql
    gets exactly the changes of the files from there on."""
    run_dir = _run(tmp_path, flavor=flavor, workload="ecommerce", max_binlog_size=15000)
    files = sorted({w["file"] for w in truth_changes(run_dir)})
    assert len(files) >= 3
    want = [w for w in expected(run_dir) if w["file"] >= files[1]]
    with ServeProcess([run_dir]) as srv:
        ep = SimpleNamespace(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                             flavor=flavor, run_dir=run_dir, server_id=4032)
        lines = adapter.run_lines(ep, expected_changes=len(want), timeout=60, extra=("-file", files[1]))
    got = adapter.to_changes(lines, run_dir, flavor, first_seq=want[0]["seq"])  # seq counted from the start point
    compare(list(canonical(got, run_dir)), want)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_go_mysql_waits_at_the_end_with_heartbeats(tmp_path: Path, flavor: str, gomysql_built: None) -> None:
    """Asked for more changes than the run has, go-mysql reads them all, then waits on the
    blocking dump (serve sends heartbeats: HeartbeatPeriod=1s) until the timeout, without an
    error on either side; decode returns what was read."""
    run_dir = _run(tmp_path, flavor=flavor, workload="ecommerce", transactions=20)
    want = expected(run_dir)
    with ServeProcess([run_dir]) as srv:
        ep = SimpleNamespace(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password,
                             flavor=flavor, run_dir=run_dir, server_id=4033)
        lines = adapter.run_lines(ep, expected_changes=len(want) + 5, timeout=4)
        assert not any("ERROR" in line or "Traceback" in line for line in srv.log), "\n".join(srv.log)
    end = lines[-1]
    assert (end["kind"], end["reason"], end["changes"]) == ("end", "timeout", len(want))
    assert end["heartbeats"] >= 2, end  # @master_heartbeat_period = 1 s, 4 s of waiting
    compare(list(canonical(adapter.to_changes(lines, run_dir, flavor), run_dir)), want)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "go-mysql v1.13.0 cannot parse a tagged GTID set (mysql.ParseMysqlGTIDSet: strconv.ParseInt "
    "of the tag): https://github.com/go-mysql-org/go-mysql/issues/845, fixed by PR #1125 after "
    "v1.13.0; reading tagged GTID events from a file/position works (the tagged case above)"))
def test_go_mysql_resumes_after_a_tagged_gtid_set(tmp_path: Path, gomysql_built: None) -> None:
    run_dir = _run(tmp_path, flavor="mysql84", workload="ecommerce",
                   gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562:gm")
    txns: list[str] = []
    for w in truth_changes(run_dir):
        if w["gtid"] not in txns:
            txns.append(w["gtid"])
    uuid, tag, gno = txns[19].rsplit(":", 2)
    want = expected(run_dir, skip=20)
    got = list(canonical(_decode(run_dir, len(want), gtid=f"{uuid}:{tag}:1-{gno}", first_seq=20), run_dir))
    compare(got, want)


def test_adapter_fails_with_one_line_without_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Go toolchain: ensure_built raises one line saying what to install (never a skip)."""
    monkeypatch.setattr(adapter.shutil, "which", lambda name: None)
    monkeypatch.setattr(adapter.os, "access", lambda path, mode: False)
    with pytest.raises(adapter.Missing) as exc:
        adapter.ensure_built()
    assert "\n" not in str(exc.value) and "install" in str(exc.value) and "go" in str(exc.value).lower()
