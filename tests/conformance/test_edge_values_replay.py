"""``--edge-values`` runs against real MariaDB 10.11: a schema covering every type family the
generator draws by type (tests/generators/edge_schemas.py), a fifth of its values edge
values (type limits, zero dates, the longest strings in bytes, ±838:59:59, NULL …), and the
integers over their types' whole range: ``truth/snapshot.sql`` then ``mariadb-binlog | mariadb``
must leave exactly ``truth/final`` (the helpers and the flavor rules of
test_generate_replay.py: the mysql flavors are replayed into MariaDB too, without JSON,
which MariaDB cannot apply in MySQL's binary form). alltypes at another share than its own
is replayed the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.engine import generate
from generators.spec import Spec
from tests.generators.edge_schemas import EVERY_FAMILY_DDL, JSON_DDL

from .mariadb import MariaDBServer
from .schema_runs import generate_schema
from .test_generate_replay import check_readers, replay_matches_truth

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


def _replay_equals_truth(server: MariaDBServer, spec: Spec, out: Path) -> None:
    generate(spec, out)
    check_readers(out)
    replay_matches_truth(server, out)


@pytest.mark.parametrize(
    ("flavor", "meta", "image"),
    [
        ("mariadb1011", "FULL", "FULL"),
        ("mariadb1011", "NO_LOG", "MINIMAL"),
        ("mysql80", "FULL", "NOBLOB"),
        ("mysql80", "MINIMAL", "FULL"),
    ],
)
def test_edge_values_of_every_family_replay_to_truth(
    server: MariaDBServer, tmp_path: Path, flavor: str, meta: str, image: str
) -> None:
    db = f"edge_{flavor}_{meta}_{image}".lower()
    ddl = EVERY_FAMILY_DDL + (JSON_DDL if flavor.startswith("mariadb") else "")
    out = generate_schema(tmp_path / "run", ddl, db, flavor, image, schema_file="edge.sql", row_metadata=meta,
                          rows_query=True, seed=5, initial_rows=25, edge_values=0.2, max_binlog_size=65536)
    assert sum(len(rows) for rows in replay_matches_truth(server, out).values()) > 40


@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
def test_alltypes_at_another_edge_share_replays_to_truth(
    server: MariaDBServer, tmp_path: Path, flavor: str
) -> None:
    mysql = not flavor.startswith("mariadb")
    spec = Spec.from_dict(
        dict(
            workload="alltypes",
            database=f"edge_all_{flavor}",
            flavor=flavor,
            seed=3,
            transactions=25,
            initial_rows=6,
            edge_values=0.6,
            exclude_types="JSON" if mysql else (),
        )
    )
    _replay_equals_truth(server, spec, tmp_path / "run")


def test_mysql_snapshot_json_literals_are_json_text(server: MariaDBServer, tmp_path: Path) -> None:
    """A MySQL run's binlogs hold binary JSON, which MariaDB cannot apply, but its
    ``snapshot.sql`` is SQL: each JSON literal must be JSON text (MySQL: ERROR 3140 Invalid JSON
    text otherwise). MariaDB's JSON columns check ``JSON_VALID``, so it judges every literal;
    edge values include the string scalars (``"a string"``, not ``a string``)."""
    db = "edge_json_mysql80"
    out = tmp_path / "run"
    generate(Spec.from_dict(dict(workload=None, schema_sql=JSON_DDL, schema_file="json.sql", database=db,
                                 flavor="mysql80", seed=7, initial_rows=60, edge_values=0.6, transactions=5)), out)
    server.execute((out / "truth" / "snapshot.sql").read_text(encoding="utf-8"))
    rows = server.query(f"SELECT COUNT(*), SUM(JSON_VALID(jn)), SUM(JSON_TYPE(jn) = 'STRING') FROM `{db}`.docs")
    count, valid, strings = (int(str(v)) for v in rows[0])
    assert count == 60 and valid == 60 and strings >= 1
