"""The readers' parser order (issue 30): ``parse_tables(..., own_parser_first=True)`` reads
each CREATE TABLE with the own parser (binlogwriter/schema/fallback.py) and goes to sqlglot
only where that one refuses; it must give exactly the tables (or the error) of the reference
order, sqlglot first. Drawn tables (every type, wide ones of 60–300 columns, every flavor,
multibyte names and members) as the fixtures write them, with table options and column
attributes a dump holds; every ``.sql`` file of the repository; and the statements the
sqlglot-gap tests list."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import SchemaError
from binlogwriter.schema import FLAVORS
from binlogwriter.schema.parse import parse_tables
from binlogwriter.strategies import table_sql, tables
from tests.schema.test_schema_sqlglot_gaps import SAME, SILENTLY_WRONG, UNMAPPED

ROOT = Path(__file__).resolve().parents[2]


def _both(sql: str, flavor: str) -> tuple[object, object]:
    """(reference order's tables or error text, own-parser-first order's)."""
    out = []
    for own in (False, True):
        try:
            out.append(parse_tables(sql, "db", flavor, binlog_columns=True, own_parser_first=own))
        except SchemaError as exc:
            out.append(("SchemaError", str(exc)))
    return out[0], out[1]


_OPTIONS = st.sampled_from([
    "", " ENGINE=InnoDB", " ENGINE=InnoDB AUTO_INCREMENT=10001 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    " DEFAULT CHARSET=latin1", " CHARACTER SET = utf8mb3 COMMENT='t'", " ROW_FORMAT=DYNAMIC",
    " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin", " /*!40101 DEFAULT CHARSET=latin1 */",
])
_ATTRS = st.sampled_from(["", " COMMENT 'é ü'", " COMMENT 'LONG INT8'", " INVISIBLE", " DEFAULT NULL"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(sorted(FLAVORS)))
def test_own_parser_first_gives_the_reference_tables(data: st.DataObject, flavor: str) -> None:
    table = data.draw(tables(flavor, max_columns=data.draw(st.sampled_from([4, 12, 300]))))
    sql = table_sql(table)
    head, sep, tail = sql.partition(" NULL")  # an attribute on the first nullable column
    if sep:
        sql = head + sep + data.draw(_ATTRS) + tail
    sql = sql.rstrip().rstrip(";") + data.draw(_OPTIONS) + ";\n"
    ref, fast = _both(sql, flavor)
    assert fast == ref, sql


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.sql")
                                        if ".git" not in p.parts))
def test_own_parser_first_on_every_sql_file(path: str) -> None:
    sql = (ROOT / path).read_text(encoding="utf-8", errors="surrogateescape")
    for flavor in ("mysql80", "mariadb1011"):
        ref, fast = _both(sql, flavor)
        assert fast == ref


@pytest.mark.parametrize("column", [c for c, *_ in SILENTLY_WRONG + UNMAPPED] + SAME + [
    "a DECIMAL(66,2)", "a VARCHAR(70000)", "a INT, b INT AS (a + 1) STORED", "a INT CHECK (a > 0)",
    "a INT, FOREIGN KEY (a) REFERENCES u (b)", "a INT /*!80023 INVISIBLE */", "a NOSUCHTYPE",
    "a INT) IGNORE SELECT 1 AS (b", "a ENUM(_utf8mb4'x', 'y' 'z')", "a INT, a INT",
])
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_own_parser_first_on_the_listed_statements(column: str, flavor: str) -> None:
    ref, fast = _both(f"CREATE TABLE t ({column});", flavor)
    assert fast == ref


SYSBENCH = """CREATE TABLE `sbtest1` (
  `id` int(11) NOT NULL AUTO_INCREMENT,
  `k` int(11) NOT NULL DEFAULT 0,
  `c` char(120) NOT NULL DEFAULT '',
  `pad` char(60) NOT NULL DEFAULT '',
  PRIMARY KEY (`id`),
  KEY `k_1` (`k`)
) ENGINE=InnoDB AUTO_INCREMENT=10001 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
"""
"""``SHOW CREATE TABLE`` of a sysbench table on MariaDB 10.11 (bench/export_command.py --real)."""


def test_a_plain_schema_does_not_import_sqlglot(tmp_path: Path) -> None:
    (tmp_path / "schema.sql").write_text(SYSBENCH)
    code = ("import sys; from binlogwriter.schema.source import SchemaSource; "
            f"t = SchemaSource({str(tmp_path / 'schema.sql')!r}).for_flavor('mariadb1011'); "
            "print(sorted(t), 'sqlglot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "['test.sbtest1'] False"
    assert _both(SYSBENCH, "mariadb1011")[0] == _both(SYSBENCH, "mariadb1011")[1]
