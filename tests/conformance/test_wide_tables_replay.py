"""`binlogwriter generate --schema` on wide tables, replayed into a real MariaDB 10.11
(issue #28 step 0: a table of 64 or more updatable columns crashed every run).

The column counts cross the places where a width changes: 64 (one 64-bit word), 250/251/256/257
(the packed integer of the column count takes 1 then 3 bytes, the column bitmaps 32 then 33
bytes), 1017 (InnoDB's limit), 2,500 (on MyISAM and Aria: their table definition, the
.frm file, holds about 2,600–2,900 such columns before MariaDB 10.11 answers ERROR 1117
"Table definition is too large") and 4096 (the most columns a MySQL or MariaDB table may
have: generated and read by `mariadb-binlog`, no server can create it to replay into).
Narrow column types keep the rows within the server's 65,535 byte row size limit.
`truth/snapshot.sql` plus the replayed binlogs must give exactly `truth/final`, and
`mariadb-binlog` must read the binlogs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .mariadb import MariaDBServer
from .schema_runs import generate_schema, replay_matches_truth
from .test_generate_replay import final_truth

pytestmark = pytest.mark.conformance

_TYPES = (
    "TINYINT",
    "SMALLINT NULL",
    "VARCHAR(3)",
    "CHAR(2) NULL",
    "BIT(1)",
    "DATE NULL",
    "DECIMAL(5,2)",
    "TINYINT UNSIGNED NULL",
    "ENUM('a','b') NULL",
)


def wide_ddl(name: str, ncols: int, engine: str) -> str:
    """A table of ``ncols`` columns: an INT primary key and ``ncols - 1`` narrow columns
    (no ENUM past 1,017 columns: its members take room in the .frm)."""
    types = _TYPES if ncols <= 1017 else _TYPES[:-1]
    cols = "".join(f",\n  c{i} {types[i % len(types)]}" for i in range(ncols - 1))
    return f"CREATE TABLE {name} (\n  id INT NOT NULL PRIMARY KEY{cols}\n) ENGINE={engine};\n"


def _generate(tmp_path: Path, db: str, ncols: int, engine: str, flavor: str, image: str) -> Path:
    """A run over one table of ``ncols`` columns (fewer rows for the widest)."""
    small = ncols > 1000
    return generate_schema(
        tmp_path / "run",
        wide_ddl(f"w{ncols}", ncols, engine),
        db,
        flavor,
        image,
        transactions=15 if small else 60,
        initial_rows=5 if small else 20,
    )


@pytest.mark.parametrize("flavor", ["mysql84", "mariadb1011"])
def test_4096_columns_generate_and_read(tmp_path: Path, flavor: str) -> None:
    out = _generate(tmp_path, "wide", 4096, "MyISAM", flavor, "FULL")
    rows = final_truth(out)[("wide", "w4096")]
    assert rows and all(len(r) == 4096 for r in rows)


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


@pytest.mark.parametrize(
    ("ncols", "engine", "flavor", "image"),
    [
        (64, "InnoDB", "mariadb1011", "MINIMAL"),
        (65, "InnoDB", "mysql80", "FULL"),
        (250, "InnoDB", "mysql80", "MINIMAL"),
        (251, "InnoDB", "mariadb1011", "NOBLOB"),
        (256, "InnoDB", "mariadb1011", "MINIMAL"),
        (257, "InnoDB", "mysql84", "FULL"),
        (1017, "InnoDB", "mariadb1011", "MINIMAL"),
        (2500, "Aria", "mariadb1011", "MINIMAL"),
        (2500, "MyISAM", "mysql80", "FULL"),
    ],
)
def test_wide_table_generates_and_replays(
    server: MariaDBServer, tmp_path: Path, ncols: int, engine: str, flavor: str, image: str
) -> None:
    db = f"wide_{ncols}_{engine}_{flavor}_{image}".lower()
    out = _generate(tmp_path, db, ncols, engine, flavor, image)
    rows = replay_matches_truth(server, out)[(db, f"w{ncols}")]
    assert rows and len(rows[0]) == ncols


def test_wide_table_in_several_batches_replays(server: MariaDBServer, tmp_path: Path) -> None:
    """A run long enough for several batches of a 2,500-column table: its batches are sized
    from the schema's estimate (generators/batch_size.py ``batch_txns``: about 200 transactions
    here, not 1,024), with MariaDB group commits across the batch ends."""
    from generators.api import make_run
    from generators.batch import BATCH_BYTES, FIRST_TXNS
    from generators.batch_size import batch_txns
    from generators.spec import Spec, resolve

    ddl = wide_ddl("w2500", 2500, "Aria")
    first = batch_txns(make_run(resolve(Spec(workload=None, schema_sql=ddl, flavor="mariadb1011")), 0),
                       BATCH_BYTES, FIRST_TXNS)
    assert first < 300
    out = generate_schema(tmp_path / "run", ddl, "wide_batches", "mariadb1011", "FULL",
                          transactions=2 * first + 30, initial_rows=5, parallel_groups=3)
    rows = replay_matches_truth(server, out)[("wide_batches", "w2500")]
    assert rows and len(rows[0]) == 2500
