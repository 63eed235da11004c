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


# A rental shop's schema in the shape of MySQL's sample databases: link tables whose keys are
# FOREIGN KEY columns only, a 1:1 FOREIGN KEY (a UNIQUE manager), a cycle between two tables
# (a store's manager is staff, staff work in a store), TINYINT keys fewer than --initial-rows, a key of
# a FOREIGN KEY and an own column, a UNIQUE nullable FOREIGN KEY that cannot nest with it (kept NULL).
SHOP_DDL = """
CREATE TABLE language (language_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name CHAR(20) NOT NULL);
CREATE TABLE film (film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, title VARCHAR(128) NOT NULL,
  language_id TINYINT UNSIGNED NOT NULL, rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  CONSTRAINT fk_film_language FOREIGN KEY (language_id) REFERENCES language (language_id));
CREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, last_name VARCHAR(45) NOT NULL);
CREATE TABLE film_actor (actor_id SMALLINT UNSIGNED NOT NULL, film_id SMALLINT UNSIGNED NOT NULL,
  last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (actor_id, film_id),
  CONSTRAINT fk_fa_actor FOREIGN KEY (actor_id) REFERENCES actor (actor_id) ON DELETE RESTRICT ON UPDATE CASCADE,
  CONSTRAINT fk_fa_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE RESTRICT ON UPDATE CASCADE);
CREATE TABLE store (store_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  manager_staff_id TINYINT UNSIGNED NOT NULL, UNIQUE KEY idx_manager (manager_staff_id),
  CONSTRAINT fk_store_staff FOREIGN KEY (manager_staff_id) REFERENCES staff (staff_id));
CREATE TABLE staff (staff_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(45) NOT NULL,
  store_id TINYINT UNSIGNED NOT NULL, CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (store_id));
CREATE TABLE customer_film (customer SMALLINT UNSIGNED NOT NULL, film_id SMALLINT UNSIGNED NOT NULL,
  fav_actor SMALLINT UNSIGNED NULL, PRIMARY KEY (customer, film_id), UNIQUE KEY (fav_actor),
  FOREIGN KEY (film_id) REFERENCES film (film_id), FOREIGN KEY (fav_actor) REFERENCES actor (actor_id));
CREATE TABLE film_tag (film_id SMALLINT UNSIGNED NOT NULL, tag_film SMALLINT UNSIGNED NOT NULL,
  PRIMARY KEY (film_id, tag_film), UNIQUE KEY (tag_film, film_id),
  FOREIGN KEY (film_id) REFERENCES film (film_id), FOREIGN KEY (tag_film) REFERENCES film (film_id));
"""


@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
def test_link_tables_one_to_one_and_a_cycle_replay_to_truth(mariadb_server_factory, tmp_path: Path,
                                                            flavor: str) -> None:
    """Every link-table and 1:1 key stays unique and every reference live under the server's
    own checks (foreign_key_checks=1 for the replay), the cycle loaded by the snapshot."""
    db = f"shop_{flavor}"
    spec = Spec.from_dict(dict(flavor=flavor, row_metadata="FULL", row_image="FULL", database=db, seed=11,
                               transactions=400, initial_rows=300, workload=None, schema_sql=SHOP_DDL,
                               schema_file="shop.sql", mix="insert=0.5,update=0.2,delete=0.3"))
    out = tmp_path / "run"
    generate(spec, out)
    check_readers(out)
    server = mariadb_server_factory(row_image="FULL")
    server.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
    assert server.query("SELECT @@foreign_key_checks") == [("1",)]
    server.replay([out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()])
    truth = final_truth(out)
    for (tdb, table), rows in truth.items():
        assert server.dump_table(tdb, table) == rows, f"{tdb}.{table}"
    assert len(truth[(db, "language")]) == 255  # a TINYINT UNSIGNED key holds 255 rows, fewer than asked
    assert len(truth[(db, "film_actor")]) > 300  # a link table holds more rows than its parents' initial ones
    orphans = server.query(f"SELECT COUNT(*) FROM {db}.staff s LEFT JOIN {db}.store t USING (store_id) "
                           "WHERE t.store_id IS NULL")
    assert orphans == [("0",)]


def test_a_cycle_with_the_tables_in_the_binlog_is_refused() -> None:
    from binlogwriter.errors import SchemaError
    from generators.workloads import load_workload

    spec = Spec.from_dict(dict(workload=None, schema_sql=SHOP_DDL, schema_file="shop.sql", ddl_in_binlog=True))
    with pytest.raises(SchemaError, match=r"cycle between tables: .*store.* with --ddl-in-binlog"):
        load_workload(spec)
