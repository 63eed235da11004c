"""Custom DDL with FOREIGN KEYs (generators/foreign_keys.py) replays into MariaDB 10.11 with the
constraints enforced (foreign_key_checks=1, the server default) to exactly truth/final.

The schema lists children before parents, has a composite-key child, a composite FOREIGN KEY
onto that child's key (itself partly a foreign key), a key referencing a UNIQUE NOT NULL
column, ON DELETE RESTRICT and a self-reference. Runs: snapshot + binlogs,
and everything (CREATE TABLEs, initial rows) in the binlog, for MariaDB and MySQL 8.0 flavors
and FULL / MINIMAL images. A control shows the replay path does enforce the constraints: a
DELETE of a referenced parent row, written by our writer, is refused by the server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from generators.engine import generate
from generators.spec import Spec

from .mariadb import MariaDBError
from .test_generate_replay import check_readers, final_truth

pytestmark = pytest.mark.conformance

FK_DDL = """
CREATE TABLE shipments (
  id INT NOT NULL PRIMARY KEY,
  o BIGINT UNSIGNED NOT NULL,
  l SMALLINT UNSIGNED NOT NULL,
  carrier VARCHAR(20),
  CONSTRAINT fk_ship_line FOREIGN KEY (o, l) REFERENCES order_lines (order_id, line)
);
CREATE TABLE order_lines (
  order_id BIGINT UNSIGNED NOT NULL,
  line SMALLINT UNSIGNED NOT NULL,
  sku VARCHAR(32) NOT NULL,
  qty INT NOT NULL,
  PRIMARY KEY (order_id, line),
  CONSTRAINT fk_line_order FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE RESTRICT,
  CONSTRAINT fk_line_product FOREIGN KEY (sku) REFERENCES products (sku)
);
CREATE TABLE orders (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_email VARCHAR(120) NOT NULL,
  note VARCHAR(40),
  FOREIGN KEY (customer_email) REFERENCES customers (email)
);
CREATE TABLE customers (
  id INT NOT NULL PRIMARY KEY,
  email VARCHAR(120) NOT NULL,
  name VARCHAR(60),
  UNIQUE KEY uk_email (email)
);
CREATE TABLE products (sku VARCHAR(32) NOT NULL PRIMARY KEY, price DECIMAL(8,2));
CREATE TABLE categories (
  id INT NOT NULL PRIMARY KEY,
  parent_id INT NULL,
  label VARCHAR(30),
  FOREIGN KEY (parent_id) REFERENCES categories (id)
);
"""


@pytest.mark.parametrize(("flavor", "image", "in_binlog"), [
    ("mariadb1011", "FULL", True), ("mariadb1011", "MINIMAL", False), ("mysql80", "FULL", False),
])
def test_foreign_key_schema_replays_to_truth(mariadb_server_factory, tmp_path: Path, flavor: str, image: str,
                                             in_binlog: bool) -> None:
    db = f"fk_{flavor}_{image}".lower()
    spec = Spec.from_dict(dict(flavor=flavor, row_metadata="FULL", row_image=image, rows_query=True, database=db,
                               seed=5, transactions=150, initial_rows=8, ddl_in_binlog=in_binlog,
                               workload=None, schema_sql=FK_DDL, schema_file="fk.sql",
                               mix="insert=0.4,update=0.2,delete=0.4", max_binlog_size=32768))
    out = tmp_path / "run"
    generate(spec, out)
    check_readers(out)
    server = mariadb_server_factory(row_image=image)
    server.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
    assert server.query("SELECT @@foreign_key_checks") == [("1",)]
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    server.replay(files)
    fks = server.query("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS "
                       f"WHERE CONSTRAINT_SCHEMA = '{db}'")
    assert fks == [("5",)]
    truth = final_truth(out)
    assert len(truth) == 6
    for (tdb, table), rows in truth.items():
        assert server.dump_table(tdb, table) == rows, f"{tdb}.{table}"
    lines = truth[(db, "order_lines")]
    assert lines, "no child rows to check"
    # control: deleting a referenced parent (ON DELETE RESTRICT) is refused on this replay path
    orders = Table.from_sql(FK_DDL.split(";")[2], database=db, flavor=flavor)
    parent = next(r for r in truth[(db, "orders")] if r[0] == lines[0][0])
    with BinlogWriter(tmp_path / "bad", BinlogFormat.preset(flavor),
                      settings=SessionSettings(row_image="FULL")) as w:
        with w.transaction() as tx:
            tx.delete(orders, [parent])
    with pytest.raises(MariaDBError, match="foreign key constraint fails"):
        server.replay(w.files)
