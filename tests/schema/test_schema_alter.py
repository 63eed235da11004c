"""ALTER TABLE statements of a schema file folded into the CREATE TABLE they change
(binlogwriter/schema/alter.py): the tables a server ends up with, whether a tool wrote the
keys inside the CREATE TABLE or after it (phpMyAdmin's export, ORM and migration output)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import SchemaError
from binlogwriter.fixtures._table_sql import table_sql
from binlogwriter.schema import parse_tables
from binlogwriter.schema.alter import fold_alters
from binlogwriter.strategies import tables

PMA = """-- phpMyAdmin SQL Dump
SET SQL_MODE = "NO_AUTO_VALUE_ON_ZERO";
START TRANSACTION;
CREATE TABLE `users` (
  `id` int(11) NOT NULL,
  `email` varchar(191) NOT NULL,
  `bio` text COMMENT 'two  blanks,
and a line'
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE `posts` (
  `id` bigint(20) UNSIGNED NOT NULL,
  `user_id` int(11) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
/*!40000 ALTER TABLE `posts` DISABLE KEYS */;
ALTER TABLE `users`
  ADD PRIMARY KEY (`id`),
  ADD UNIQUE KEY `users_email_unique` (`email`);
ALTER TABLE `posts`
  ADD PRIMARY KEY (`id`),
  ADD KEY `posts_user_id_foreign` (`user_id`);
ALTER TABLE `users`
  MODIFY `id` int(11) NOT NULL AUTO_INCREMENT, AUTO_INCREMENT=2;
alter table posts add constraint `posts_user_id_foreign` foreign key (`user_id`) references `users` (`id`)
  on delete cascade;
ALTER TABLE posts ADD COLUMN title VARCHAR(40) NOT NULL DEFAULT '' AFTER id, ADD COLUMN n INT FIRST,
  ALTER COLUMN user_id SET DEFAULT 0, ENGINE = InnoDB;
COMMIT;
"""


def test_a_phpmyadmin_export_gets_its_keys_and_foreign_keys() -> None:
    users, posts = parse_tables(PMA, "db", "mariadb1011")
    assert [k.kind for k in users.keys] == ["PRIMARY", "UNIQUE"]
    assert [c.name for c in posts.columns] == ["n", "id", "title", "user_id"]
    assert posts.primary_key is not None and [p.column for p in posts.primary_key.parts] == ["id"]
    folded = fold_alters(PMA)
    assert "FOREIGN KEY (`user_id`) references `users` (`id`)" in folded.replace("foreign key", "FOREIGN KEY")
    assert "COMMENT 'two  blanks,\nand a line'" in folded  # a definition left as it was written
    assert folded.count("\n") == PMA.count("\n")


def test_errors_after_a_folded_table_name_their_own_line() -> None:
    sql = PMA + "CREATE TABLE bad (a NOTATYPE);\n"
    with pytest.raises(SchemaError) as e:
        parse_tables(sql, "db", "mysql80", source="dump.sql")
    assert f"dump.sql:{sql.count(chr(10))}:" in str(e.value)


@pytest.mark.parametrize(("alter", "message"), [
    ("ALTER TABLE t DROP COLUMN b", "ALTER TABLE … DROP COLUMN b of table db.t is not followed"),
    ("ALTER TABLE t RENAME TO u", "RENAME TO u of table db.t is not followed"),
    ("ALTER TABLE t CHANGE b c INT", "renames a column"),
    ("ALTER TABLE t ADD COLUMN b INT", "column b exists already"),
    ("ALTER TABLE t MODIFY zz INT", "no column zz"),
    ("ALTER TABLE t ADD COLUMN c INT AFTER zz", "no column zz"),
    ("ALTER TABLE t CONVERT TO CHARACTER SET latin1", "CONVERT TO CHARACTER SET latin1 of table db.t"),
    ("ALTER TABLE nowhere ADD PRIMARY KEY (a)", "ALTER TABLE db.nowhere: no CREATE TABLE"),
])
def test_what_is_not_folded_is_a_one_line_error(alter: str, message: str) -> None:
    sql = f"CREATE TABLE t (a INT NOT NULL, b INT);\n{alter};\n"
    with pytest.raises(SchemaError) as e:
        parse_tables(sql, "db", "mysql80", source="s.sql")
    assert message in str(e.value) and "s.sql:2:" in str(e.value) and "\n" not in str(e.value)


@settings(max_examples=80, deadline=None)
@given(t=tables("mysql80", max_columns=12), data=st.data())
def test_a_table_written_bare_then_altered_is_the_table(t, data) -> None:
    """A drawn table written whole, and written as a CREATE TABLE of some of its columns (some
    with a placeholder type) followed by ALTER TABLEs — columns added FIRST / AFTER / last,
    placeholders MODIFYed or CHANGEd back, keys added — parse to the same table."""
    whole = table_sql(t)
    head, body = whole.split("(\n  ", 1)
    defs = body[:-2].split(",\n  ")
    ncols = len(t.columns)
    cols, keys = defs[:ncols], defs[ncols:]
    names = [d.split(" ", 1)[0] for d in cols]
    kept = sorted(data.draw(st.sets(st.integers(0, ncols - 1), min_size=1), label="kept"))
    placeholders = data.draw(st.sets(st.sampled_from(kept)), label="placeholders")
    create = [f"{names[i]} TINYINT" if i in placeholders else cols[i] for i in kept]
    alters: list[str] = []
    for i in placeholders:
        verb = data.draw(st.sampled_from(["MODIFY", "MODIFY COLUMN", "CHANGE"]), label="verb")
        alters.append(f"ALTER TABLE {t.name} {verb} {names[i] + ' ' if verb == 'CHANGE' else ''}{cols[i]}")
    have = list(kept)
    for i in range(ncols):
        if i in kept:
            continue
        before = [j for j in have if j < i]
        where = f" AFTER {names[max(before)]}" if before else " FIRST"
        alters.append(f"ALTER TABLE {t.name} ADD COLUMN {cols[i]}{where}")
        have.append(i)
    if keys:
        alters.append(f"ALTER TABLE {t.name} " + ", ".join(f"ADD {k}" for k in keys) + ", AUTO_INCREMENT = 3")
    script = f"{head}(\n  " + ",\n  ".join(create) + "\n);\n" + ";\n".join(alters) + ";\n"
    assert parse_tables(script, "db", "mysql80") == parse_tables(whole, "db", "mysql80"), script


def test_a_partitioning_given_by_alter_table_is_folded() -> None:
    """``ALTER TABLE t PARTITION BY …`` (the employees sample partitions its tables so) goes after
    the CREATE TABLE's options, where generators/partitions.py reads it; a second partitioning
    is refused."""
    sql = ("CREATE TABLE t (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) ENGINE=InnoDB;\n"
           "/*!50100 ALTER TABLE t PARTITION BY RANGE COLUMNS (d)\n"
           "  (PARTITION p0 VALUES LESS THAN ('2001-01-01'), PARTITION p1 VALUES LESS THAN ('2002-01-01')) */;\n")
    folded = fold_alters(sql, "db")
    assert folded.splitlines()[0].endswith("ENGINE=InnoDB PARTITION BY RANGE COLUMNS (d) (PARTITION p0 VALUES LESS "
                                           "THAN ('2001-01-01'), PARTITION p1 VALUES LESS THAN ('2002-01-01'));")
    assert folded.count("\n") == sql.count("\n")
    again = sql + "ALTER TABLE t PARTITION BY HASH (id) PARTITIONS 2;\n"
    with pytest.raises(SchemaError, match="PARTITION BY HASH"):
        parse_tables(again, "db", "mysql80")
