"""Every mistake a user can make gets one clear line, exit status 2, and nothing at --out.

The table below is what a new user tries: bad options, bad spec files, bad schema files, an
output directory that cannot be made. Each case asserts the exit status, that stderr is one
line without a traceback, that it names the place (file:line, option, table.column), and
that nothing was written (neither ``--out`` nor anything beside it). The Python API cases
assert the exception type: only BinlogError subclasses escape the public entry points.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from binlogwriter.cli import main as cli_main
from binlogwriter.errors import BinlogError, SchemaError, ValueEncodeError
from binlogwriter.schema import Column, Table, parse_tables
from generators.errors import SpecError
from generators.spec import Spec, load_spec_file

REPO = Path(__file__).resolve().parents[1]
OK_SQL = "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  v INT\n);\n"


@dataclass
class Case:
    id: str
    args: list[str]
    needle: str  # the place the message must name
    files: dict[str, str] = field(default_factory=dict)


CLI_CASES = [
    # schema files (the place: FILE:LINE and table.column)
    Case("varchar-abc", ["--schema", "s.sql"], "s.sql:4",
         {"s.sql": "-- users\nCREATE TABLE t (\n  id INT PRIMARY KEY,\n  v VARCHAR(abc)\n);\n"}),
    Case("decimal-abc", ["--schema", "s.sql"], "test.t.d", {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(x,2));"}),
    Case("int-display-abc", ["--schema", "s.sql"], "s.sql:1", {"s.sql": "CREATE TABLE t (id INT(abc) PRIMARY KEY);"}),
    Case("trailing-comma", ["--schema", "s.sql"], "s.sql:3",
         {"s.sql": "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  v INT,\n);\n"}),
    Case("double-comma", ["--schema", "s.sql"], "s.sql:1", {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY,, v INT);"}),
    Case("temporary-table", ["--schema", "s.sql"], "s.sql:2",
         {"s.sql": "CREATE TABLE a (id INT PRIMARY KEY);\nCREATE TEMPORARY TABLE t (id INT PRIMARY KEY);\n"}),
    Case("duplicate-column", ["--schema", "s.sql"], "s.sql:4",
         {"s.sql": "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  v INT,\n  V INT\n);\n"}),
    Case("unknown-type", ["--schema", "s.sql"], "test.t.v", {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY, v NOTATYPE);"}),
    Case("key-length-abc", ["--schema", "s.sql"], "s.sql:3",
         {"s.sql": "CREATE TABLE t (\n  id INT PRIMARY KEY, v VARCHAR(9),\n  KEY k (v(abc))\n);"}),
    Case("unterminated-quote", ["--schema", "s.sql"], "s.sql:2",
         {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY,\n v VARCHAR(3) DEFAULT 'x);\n"}),
    Case("empty-schema", ["--schema", "s.sql"], "s.sql", {"s.sql": "-- nothing here\n"}),
    Case("missing-schema", ["--schema", "nope.sql"], "nope.sql"),
    Case("schema-not-utf8", ["--schema", "s.sql"], "s.sql", {"s.sql": "\udcff"}),
    # values the user's own generators give that do not fit (a key narrower than --initial-rows
    # holds what it can: generators/workloads/custom.py)
    Case("spec-int-overflow", ["--schema", "s.sql", "--spec", "g.json", "--initial-rows", "300"], "test.t.n",
         {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY, n TINYINT);",
          "g.json": '{"columns": {"t.n": {"gen": "int", "min": 0, "max": 1000}}}'}),
    Case("spec-enum-unknown", ["--schema", "s.sql", "--spec", "g.json"], "t.e",
         {"s.sql": "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'));",
          "g.json": '{"columns": {"t.e": {"gen": "choice", "values": ["a", "zz"]}}}'}),
    # options
    Case("seed-abc", ["--seed", "abc"], "--seed"),
    Case("seed-negative", ["--seed", "-1"], "--seed"),
    Case("size-10XB", ["--size", "10XB"], "--size"),
    Case("size-negative", ["--size", "-5"], "--size"),
    Case("transactions-negative", ["--transactions", "-3"], "--transactions"),
    Case("unknown-workload", ["--workload", "tpcc"], "--workload"),
    Case("unknown-flavor", ["--flavor", "mysql57"], "--flavor"),
    Case("bad-gtid", ["--gtid", "xyz"], "--gtid"),
    Case("tables-zero", ["--tables", "0"], "--tables"),
    Case("basename-path", ["--basename", "../x"], "--basename"),
    Case("exclude-unknown-type", ["--exclude-types", "JSON,NOPE"], "--exclude-types"),
    Case("exclude-with-schema", ["--schema", "s.sql", "--exclude-types", "JSON"], "--exclude-types",
         {"s.sql": OK_SQL}),
    Case("partitions-without-spark", ["--partitions", "2"], "--partitions"),
    Case("spark-log-level-without-spark", ["--spark-log-level", "INFO"], "--spark-log-level"),
    Case("workload-and-schema", ["--workload", "sysbench", "--schema", "s.sql"], "--schema", {"s.sql": OK_SQL}),
    # spec files (the place: SPEC:LINE)
    Case("spec-yaml-syntax", ["--spec", "p.yaml"], "p.yaml:2:", {"p.yaml": "workload: sysbench\n  seed: [1\n"}),
    Case("spec-json-syntax", ["--spec", "p.json"], "p.json:2:", {"p.json": '{"workload": "sysbench",\n "seed": 1,,\n}'}),
    Case("spec-unknown-key", ["--spec", "p.yaml"], "p.yaml:3", {"p.yaml": "workload: sysbench\nseed: 1\nsed: 2\n"}),
    Case("spec-bad-seed", ["--spec", "p.yaml"], "p.yaml:2", {"p.yaml": "workload: sysbench\nseed: -4\n"}),
    Case("spec-not-mapping", ["--spec", "p.yaml"], "p.yaml", {"p.yaml": "- a\n- b\n"}),
    Case("spec-missing", ["--spec", "nope.yaml"], "nope.yaml"),
    Case("spec-schema-missing", ["--spec", "d/p.yaml"], "d/p.yaml:1", {"d/p.yaml": "schema: nope.sql\n"}),
    Case("spec-schema-bad-ddl", ["--spec", "d/p.yaml"], "s.sql:3",
         {"d/p.yaml": "schema: s.sql\n", "d/s.sql": "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  v INT,\n);"}),
    Case("spec-schema-and-workload", ["--spec", "d/p.yaml"], "d/p.yaml",
         {"d/p.yaml": "workload: sysbench\nschema: s.sql\n", "d/s.sql": OK_SQL}),
    Case("spec-column-unknown-setting", ["--spec", "d/p.yaml"], "d/p.yaml:4",
         {"d/p.yaml": "schema: s.sql\ncolumns:\n  t.v: {gen: int, min: 1}\n  t.id2: {gen: int, bogus: 1}\n",
          "d/s.sql": OK_SQL}),
    Case("spec-column-value-mismatch", ["--spec", "d/p.yaml"], "t.v",
         {"d/p.yaml": "schema: s.sql\ncolumns:\n  t.v: {gen: const, value: abc}\n", "d/s.sql": OK_SQL}),
    Case("spec-column-no-such-column", ["--spec", "d/p.yaml"], "d/p.yaml:3",
         {"d/p.yaml": "schema: s.sql\ncolumns:\n  t.nope: {gen: int}\n", "d/s.sql": OK_SQL}),
    # output directory
    Case("out-in-proc", ["--out", "/proc/binlogwriter-nope"], "--out"),
    Case("out-parent-missing", ["--out", "no/such/dir"], "--out"),
    Case("out-is-a-file", ["--out", "f.txt"], "--out", {"f.txt": "x"}),
]


def _write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8", "surrogateescape"))


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(root.rglob("*"))}


def test_the_table_is_large_enough() -> None:
    assert len(CLI_CASES) >= 30 and len({c.id for c in CLI_CASES}) == len(CLI_CASES)


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_mistake_gives_one_line_exit_2_and_writes_nothing(case: Case, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _write_files(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    args = list(case.args)
    if "--out" not in args:
        args = ["--out", "out", *args]
    if "--transactions" not in args and "--size" not in args and not any(a.startswith("--spec") for a in args):
        args += ["--transactions", "20"]
    r = CliRunner().invoke(cli_main, ["generate", "--no-progress", *args])
    err = r.stderr.strip()
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    assert len(err.splitlines()) == 1, err
    assert err.startswith("binlogwriter generate: error: ") and "Traceback" not in err, err
    assert case.needle in err, err
    assert r.stdout == ""
    assert _snapshot(tmp_path) == before  # nothing at --out, nothing beside it


SUBPROCESS_CASES = ["varchar-abc", "out-in-proc", "spec-int-overflow", "spec-yaml-syntax"]


@pytest.mark.parametrize("cid", SUBPROCESS_CASES)
def test_real_command_prints_one_line(cid: str, tmp_path: Path) -> None:
    """The installed entry point (a new process): one line on stderr, status 2."""
    case = next(c for c in CLI_CASES if c.id == cid)
    _write_files(tmp_path, case.files)
    args = list(case.args) if "--out" in case.args else ["--out", "out", *case.args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--no-progress", *args],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and case.needle in p.stderr, p.stderr
    assert not (tmp_path / "out").exists() and sorted(x.name for x in tmp_path.iterdir()) == \
        sorted({n.split("/")[0] for n in case.files})


# -- Python API ------------------------------------------------------------------------------

def _generate(spec):
    from generators.engine import generate

    return generate(spec, Path("/nonexistent-binlogwriter-dir/out"))


API_CASES = [
    ("from_sql-varchar-abc", lambda: Table.from_sql("CREATE TABLE t (v VARCHAR(abc))"), SchemaError, "t.v"),
    ("from_sql-decimal-float-arg", lambda: Table.from_sql("CREATE TABLE t (d DECIMAL(1e5,2))"), SchemaError, "t.d"),
    ("from_sql-trailing-comma", lambda: Table.from_sql("CREATE TABLE t (a INT,)"), SchemaError, "'t'"),
    ("from_sql-leading-comma", lambda: Table.from_sql("CREATE TABLE t (,a INT)"), SchemaError, "'t'"),
    ("from_sql-temporary", lambda: Table.from_sql("CREATE TEMPORARY TABLE t (a INT)"), SchemaError, "TEMPORARY"),
    ("from_sql-two-statements", lambda: Table.from_sql("CREATE TABLE a (x INT); CREATE TABLE b (y INT)"),
     SchemaError, "parse_tables"),
    ("from_sql-key-length-abc", lambda: Table.from_sql("CREATE TABLE t (v VARCHAR(9), KEY (v(abc)))"),
     SchemaError, "'t'"),
    ("from_sql-key-length-float", lambda: Table.from_sql("CREATE TABLE t (v VARCHAR(9), KEY k (v(1.5)))"),
     SchemaError, "'t'"),
    ("from_sql-not-text", lambda: Table.from_sql(None), SchemaError, "NoneType"),  # type: ignore[arg-type]
    ("from_sql-multiline-line", lambda: Table.from_sql("CREATE TABLE t (\n a INT,\n a INT\n)"), SchemaError, "line 3"),
    ("parse_tables-source-line", lambda: parse_tables("CREATE TABLE a (x INT);\n\nCREATE TABLE b (y NOPE);",
                                                      source="s.sql"), SchemaError, "s.sql:3"),
    ("parse_tables-not-text", lambda: parse_tables(b"CREATE TABLE a (x INT)"), SchemaError, "bytes"),  # type: ignore[arg-type]
    ("column-length-not-int", lambda: Column("x", "VARCHAR", length="abc"), SchemaError, "'x'"),
    ("engine-not-a-spec", lambda: _generate(5), SpecError, "Spec"),
    ("engine-mapping-bad-seed", lambda: _generate({"seed": "x"}), SpecError, "--seed"),
    ("spec-exclude-unknown", lambda: Spec.from_dict({"exclude_types": ["JASON"]}), SpecError, "--exclude-types"),
    ("spec-exclude-with-schema", lambda: Spec.from_dict({"workload": None, "schema_sql": OK_SQL,
                                                         "exclude_types": "JSON"}), SpecError, "--exclude-types"),
    ("spec-exclude-not-a-list", lambda: Spec.from_dict({"exclude_types": 5}), SpecError, "--exclude-types"),
    ("spec-unknown-setting", lambda: Spec.from_dict({"seeed": 1}), SpecError, "seed"),
    ("spec-compress-not-bool", lambda: Spec.from_dict({"compress": "no"}), SpecError, "compression"),
    ("spec-column-gen-setting", lambda: Spec.from_dict({"columns": {"t.v": {"gen": "text", "max": 3}}}),
     SpecError, "columns.t.v"),
]


@pytest.mark.parametrize(("name", "call", "exc", "needle"), API_CASES, ids=[c[0] for c in API_CASES])
def test_python_api_raises_typed_errors(name, call, exc, needle) -> None:
    with pytest.raises(exc) as info:
        call()
    assert needle in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


def test_load_spec_file_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text("workload: sysbench\n  seed: [1\n")
    with pytest.raises(SpecError, match=r"s\.yaml:2:\d+: not valid YAML"):
        load_spec_file(p)


def test_engine_value_error_leaves_nothing(tmp_path: Path) -> None:
    from generators.engine import generate

    spec = Spec.from_dict({"workload": None, "schema_sql": "CREATE TABLE t (id INT PRIMARY KEY, n TINYINT)",
                           "columns": {"t.n": {"gen": "int", "min": 0, "max": 1000}},
                           "initial_rows": 300, "transactions": 5})
    with pytest.raises(ValueEncodeError, match=r"test\.t\.n"):
        generate(spec, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


_DDL = ["CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), d DECIMAL(10,2), e ENUM('a','b'), KEY k (v(3)))",
        "CREATE TABLE `db`.`t2` (a BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, b TEXT, "
        "c DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), PRIMARY KEY (a), UNIQUE KEY u (c)) DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE t3 (x FLOAT(7,3), y DOUBLE PRECISION, z BIT(5), w SET('x','y') CHARACTER SET latin1, "
        "g POINT, j JSON, y2 YEAR)"]
_TOKENS = ["(", ")", ",", "abc", "-1", "0", "99999", "'", "`", "KEY", "PRIMARY", "NULL", "UNSIGNED", "COLLATE",
           "CHARSET", ".", ";", "DEFAULT", "/*", "--", "\\", "1e5", "1.5", "TEMPORARY", "LIKE", "\n"]


@given(st.sampled_from(_DDL), st.lists(st.tuples(st.integers(0, 2), st.integers(0, 200), st.sampled_from(_TOKENS)),
                                       min_size=1, max_size=3))
def test_mutated_ddl_raises_only_schema_errors(ddl: str, edits) -> None:
    """Table.from_sql and parse_tables on mangled DDL: a Table or a SchemaError, never
    another exception from deep inside the parsers."""
    parts = ddl.replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()
    for op, at, tok in edits:
        j = at % len(parts) if parts else 0
        if op == 0 and parts:
            parts[j] = tok
        elif op == 1:
            parts.insert(j, tok)
        elif parts:
            del parts[j]
    sql = " ".join(parts)
    for fn in (Table.from_sql, parse_tables):
        try:
            fn(sql)
        except BinlogError as e:
            assert isinstance(e, SchemaError), repr(e)


# -- what used to be ignored now takes effect ---------------------------------------------------

def test_spec_schema_is_used_and_relative_to_the_spec_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_files(tmp_path, {"conf/p.yaml": "schema: ddl/s.sql\ntransactions: 5\ninitial_rows: 3\n",
                            "conf/ddl/s.sql": "CREATE TABLE people (id INT PRIMARY KEY, name VARCHAR(20));"})
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    r = CliRunner().invoke(cli_main, ["generate", "--no-progress", "--spec", "../conf/p.yaml", "--out", "o"])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "elsewhere/o/manifest.json").read_text())
    assert [t["name"] for t in m["tables"]] == ["people"]
    assert m["spec"]["workload"] is None and "people" in m["spec"]["schema_sql"]


def test_generate_ends_with_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "o"
    r = CliRunner().invoke(cli_main, ["generate", "--no-progress", "--out", str(out), "--transactions", "30",
                                      "--initial-rows", "10", "--max-binlog-size", "16K"])
    assert r.exit_code == 0, r.output
    line = r.stdout.strip().splitlines()[-1]
    binlogs = sorted(p for p in out.iterdir() if p.name.startswith("binlog.0"))
    nbytes = sum(p.stat().st_size for p in binlogs)
    assert len(binlogs) > 1
    assert f"{len(binlogs)} binlog files" in line and f"{nbytes:,} bytes" in line, line
    assert "30 transactions" in line and "inserted" in line and "updated" in line and "deleted" in line
    assert "MB/s" in line and "wall time" in line and line.endswith(f"output: {out}")
