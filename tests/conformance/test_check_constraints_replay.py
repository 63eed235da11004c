"""CHECK constraints of `generate --schema` DDL against a real MariaDB 10.11 (issue #27 item 5):
MariaDB enforces them (ERROR 4025 "CONSTRAINT … failed"), so `truth/snapshot.sql` and the
replay apply only when every generated row passes every constraint (generators/checks.py).
tests/data/check_constraints.sql holds the column- and table-level forms the generator follows
(comparisons with constants, BETWEEN, IN, IS NOT NULL, NOT, AND / OR, LENGTH / CHAR_LENGTH
bounds, dates, ENUM, DECIMAL, FLOAT / DOUBLE, YEAR, a lower bound on the primary key).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .mariadb import MariaDBServer
from .schema_runs import generate_schema, replay_matches_truth

pytestmark = pytest.mark.conformance

DDL = (Path(__file__).parent.parent / "data" / "check_constraints.sql").read_text()
JSON_DDL = """CREATE TABLE docs (id INT PRIMARY KEY, body LONGTEXT CHECK (JSON_VALID(body)),
  meta JSON, tag VARCHAR(8) NOT NULL CHECK (tag IN ('x', 'y')) );"""


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


@pytest.mark.parametrize(
    ("flavor", "image", "ddl"),
    [
        ("mariadb1011", "FULL", DDL),
        ("mysql80", "MINIMAL", DDL),
        ("mariadb1011", "NOBLOB", JSON_DDL),
    ],
)
def test_generated_rows_pass_the_check_constraints(
    server: MariaDBServer, tmp_path: Path, flavor: str, image: str, ddl: str
) -> None:
    db = f"chk_{flavor}_{image}".lower()
    out = generate_schema(tmp_path / "run", ddl, db, flavor, image, seed=4, transactions=150, initial_rows=60)
    truth = replay_matches_truth(server, out)
    assert all(truth.values())
    # the server holds the constraints it enforced
    created = server.query(
        f"SELECT COUNT(*) FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = '{db}'"
    )
    assert int(created[0][0]) >= 3
