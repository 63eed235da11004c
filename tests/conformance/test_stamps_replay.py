"""A generated run with ``ON UPDATE`` / ``DEFAULT CURRENT_TIMESTAMP`` columns (generators/stamps.py)
replayed into a real MariaDB 10.11 (``truth/snapshot.sql``, then ``mariadb-binlog | mariadb``)
ends equal to ``truth/final``, under every row image — the stamped values the row events carry
are the ones the server keeps — and its binlogs follow the rules of
tests/generators/test_stamps.py (what the server itself does is checked by
tests/conformance/test_unchanged_rows_server.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.schema import Table
from generators.engine import generate
from generators.spec import Spec

from ..generators.test_stamps import check_stamps
from .mariadb import MariaDBServer
from .test_generate_replay import replay_matches_truth

pytestmark = pytest.mark.conformance

DDL = """
CREATE TABLE acct (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(40) CHARACTER SET utf8mb4 NOT NULL,
  tier ENUM('basic') NOT NULL,
  active BOOLEAN NOT NULL,
  created_at DATETIME(3) NOT NULL,
  made TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  touched TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  seen DATETIME(3) NULL ON UPDATE NOW(3)
) ENGINE=InnoDB;
CREATE TABLE log (a INT, b DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, c BOOL);
"""


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
def test_stamped_run_replays_to_truth_final(server: MariaDBServer, tmp_path: Path, flavor: str, image: str) -> None:
    db = f"st_{flavor}_{image}".lower()
    spec = Spec.from_dict(dict(workload=None, schema_sql=DDL, schema_file="s.sql", database=db, flavor=flavor,
                               row_image=image, rows_query=True, seed=11, transactions=120, initial_rows=10,
                               ddl_every=40, mix="insert=0.3,update=0.55,delete=0.15", max_binlog_size=16384))
    out = tmp_path / "run"
    generate(spec, out)
    seen = check_stamps(out, Table.from_sql(DDL.split(";")[0], database=db, flavor=flavor))
    assert seen["updates"] > 20 and seen["inserts"] > 10
    replay_matches_truth(server, out)
