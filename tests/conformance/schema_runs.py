"""Helpers of the `generate --schema` replay tests (wide tables, CHECK constraints, real-world
schemas): a run of one DDL text, replayed into a MariaDB and compared with `truth/final`."""

from __future__ import annotations

from pathlib import Path

from generators.engine import generate
from generators.spec import Spec

from .mariadb import MariaDBServer
from .test_generate_replay import _check_readers, _truth


def generate_schema(out: Path, ddl: str, db: str, flavor: str, image: str, **extra) -> Path:
    """``generate --schema`` of ``ddl`` into ``out`` (FULL metadata on MariaDB, MINIMAL on
    MySQL), checked by ``verify --roundtrip`` and ``mariadb-binlog``."""
    meta = "FULL" if flavor.startswith("mariadb") else "MINIMAL"
    settings = dict(
        workload=None,
        schema_sql=ddl,
        schema_file="schema.sql",
        database=db,
        flavor=flavor,
        row_image=image,
        row_metadata=meta,
        seed=3,
        transactions=60,
        initial_rows=20,
    )
    generate(Spec.from_dict({**settings, **extra}), out)
    _check_readers(out)
    return out


def replay_matches_truth(server: MariaDBServer, out: Path) -> dict[tuple[str, str], list[tuple]]:
    """`truth/snapshot.sql` then the binlogs into ``server``; every table equals `truth/final`."""
    server.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
    server.replay([out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()])
    truth = _truth(out)
    assert truth
    for (tdb, table), rows in truth.items():
        assert server.dump_table(tdb, table) == rows, f"{tdb}.{table}"
    return truth
