"""CHECK constraints the generator cannot follow are refused with one line naming the
constraint and the table (generators/checks.py); the ones it follows become per-column
generators whose values pass them. The replay into MariaDB, which enforces them, is
tests/conformance/test_check_constraints_replay.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main
from binlogwriter.errors import SchemaError
from binlogwriter.schema import Check, Table
from generators.engine import Run
from generators.spec import Spec

REFUSED = [
    ("a INT, b INT, CONSTRAINT ab CHECK (a < b)", "`ab`", "compares two columns"),
    ("a INT CHECK (a > 10 AND a < 5)", "CHECK (a > 10 AND a < 5)", "no value"),
    ("a TINYINT UNSIGNED CHECK (a > 300)", "CHECK (a > 300)", "no value"),
    ("s VARCHAR(10), CONSTRAINT s_up CHECK (UPPER(s) = s)", "`s_up`", "UPPER(s) is not a constant"),
    ("s VARCHAR(10) CHECK (s > 'm')", "CHECK (s > 'm')", "ordering comparison"),
    ("d DOUBLE CHECK (d <> 0)", "CHECK (d <> 0)", "approximate type"),
    ("s VARCHAR(4) CHECK (CHAR_LENGTH(s) >= 9)", "CHECK (CHAR_LENGTH ( s ) >= 9)", "no length"),
    ("s VARCHAR(20) CHECK (JSON_VALID(s))", "CHECK (JSON_VALID ( s ))", "JSON_VALID on a VARCHAR"),
    ("u INT NOT NULL, UNIQUE KEY (u), CONSTRAINT u_big CHECK (u > 100)", "`u_big`", "key column"),
    ("u INT NOT NULL, UNIQUE KEY (u), CONSTRAINT u_few CHECK (u IN (1, 2))", "`u_few`", "key column"),
    ("a INT CHECK (a IS NULL)", "CHECK (a IS NULL)", "NULL"),
    ("g POINT CHECK (g IS NOT NULL OR g = g)", None, None),
]


def _spec(cols: str) -> Spec:
    ddl = f"CREATE TABLE t (id INT PRIMARY KEY, {cols});"
    return Spec.from_dict(
        dict(workload=None, schema_sql=ddl, schema_file="c.sql", transactions=20, initial_rows=5)
    )


@pytest.mark.parametrize(("cols", "name", "why"), REFUSED, ids=[f"r{i}" for i in range(len(REFUSED))])
def test_unfollowable_check_is_a_one_line_schema_error(cols: str, name: str | None, why: str | None) -> None:
    if name is None:  # followed: IS NOT NULL chosen, the other branch never needed
        Run(_spec(cols), Path("unused"))
        return
    with pytest.raises(SchemaError) as ei:
        Run(_spec(cols), Path("unused"))
    msg = str(ei.value)
    assert "\n" not in msg
    assert name in msg and "test.t" in msg and why in msg, msg


def test_unreadable_expression_is_a_one_line_schema_error() -> None:
    """Text sqlglot cannot tokenize (an unterminated string) is a one-line SchemaError naming
    the table and the clause, never a traceback (sqlglot's TokenError)."""
    from dataclasses import replace

    from generators.checks import check_overrides

    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(5))")
    t = replace(t, checks=(Check(None, "a <> '\\"),))
    with pytest.raises(SchemaError) as ei:
        check_overrides(t, {})
    msg = str(ei.value)
    assert "\n" not in msg and "of table test.t: cannot read its expression" in msg, msg


def test_cli_refusal_is_one_line_exit_2(tmp_path: Path) -> None:
    ddl = tmp_path / "c.sql"
    ddl.write_text("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, CONSTRAINT ab CHECK (a < b));\n")
    r = CliRunner().invoke(cli_main, ["generate", "--schema", str(ddl), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "`ab`" in lines[0] and "test.t" in lines[0], r.output


def test_checks_are_parsed_column_and_table_level() -> None:
    t = Table.from_sql(
        "CREATE TABLE t (a INT CHECK (a >= 0), b VARCHAR(4) CONSTRAINT bl CHECK (b <> ''), "
        "y YEAR, CONSTRAINT c1 CHECK (a < 10 OR b IN ('x')), CHECK (a <> 3) NOT ENFORCED)"
    )
    assert t.checks == (
        Check(None, "a >= 0", "a"),
        Check("bl", "b <> ''", "b"),
        Check("c1", "a < 10 OR b IN ( 'x' )"),
    )


def _is_json(v: str) -> bool:
    try:
        json.loads(v)
    except ValueError:
        return False
    return True


def _values(run: Run, column: str) -> list:
    (rt,) = run.rows
    i = rt.table.index_of(column)
    return [rt.compute(k, v, 0)[i] for k in range(300) for v in (0, 5)]


@pytest.mark.parametrize(
    ("cols", "column", "ok"),
    [
        (
            "a INT CHECK (a BETWEEN -5 AND 5 AND a <> 0)",
            "a",
            lambda v: v is None or (-5 <= v <= 5 and v != 0),
        ),
        ("a SMALLINT UNSIGNED CHECK (NOT (a < 100))", "a", lambda v: v is None or v >= 100),
        ("p DECIMAL(6,2) CHECK (p > 0.005 AND p <= 10)", "p", lambda v: v is None or 0.005 < v <= 10),
        ("f FLOAT CHECK (f > 0.01 AND f < 0.5)", "f", lambda v: v is None or 0.01 < v < 0.5),
        ("s VARCHAR(30) NOT NULL CHECK (LENGTH(s) BETWEEN 4 AND 6)", "s", lambda v: 4 <= len(v) <= 6),
        ("s VARCHAR(30) CHECK (s IN ('a', 'bb') OR s IS NULL)", "s", lambda v: v in (None, "a", "bb")),
        ("e ENUM('x','y','z') CHECK (e NOT IN ('x', 'z'))", "e", lambda v: v in (None, "y")),
        ("n INT CHECK (n IS NOT NULL)", "n", lambda v: v is not None),
        ("j LONGTEXT CHECK (JSON_VALID(j))", "j", lambda v: v is None or _is_json(v)),  # MySQL too
        (
            "d DATE CHECK (d > '1999-12-31' AND d <= '2000-01-03')",
            "d",
            lambda v: v is None or str(v) in ("2000-01-01", "2000-01-02", "2000-01-03"),
        ),
    ],
)
def test_followed_checks_hold_for_every_value(cols: str, column: str, ok) -> None:
    bad = [v for v in _values(Run(_spec(cols), Path("unused")), column) if not ok(v)]
    assert not bad, bad[:5]


def test_spec_generator_for_a_checked_column_is_refused() -> None:
    """A spec's own generator would replace the one the CHECK asks for and could break it."""
    from generators.spec import SpecError

    ddl = "CREATE TABLE t (id INT PRIMARY KEY, a INT CHECK (a BETWEEN 1 AND 9), b INT);"
    base = dict(workload=None, schema_sql=ddl, schema_file="c.sql", transactions=5, initial_rows=2)
    with pytest.raises(SpecError, match="CHECK constraint of table t restricts"):
        Run(
            Spec.from_dict({**base, "columns": {"t.a": {"gen": "int", "min": 50, "max": 60}}}), Path("unused")
        )
    Run(Spec.from_dict({**base, "columns": {"t.b": {"gen": "int", "min": 50, "max": 60}}}), Path("unused"))
