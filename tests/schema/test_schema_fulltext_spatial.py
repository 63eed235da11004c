"""FULLTEXT and SPATIAL keys (issue #28 item 4): they index a TEXT / GEOMETRY column whole,
without a prefix length (MySQL 8.0 reference "CREATE INDEX"; MariaDB the same), so the
"used in key specification without a key length" rule of other keys does not apply; they are
neither unique nor a primary key equivalent. Both parsers (sqlglot's and the fallback)."""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import KeyPart, Table
from tests.schema.test_schema_sqlglot_gaps import via_fallback, via_sqlglot

ACCEPTED = [
    (
        "CREATE TABLE t (id INT PRIMARY KEY, body TEXT, FULLTEXT KEY ft (body)) ENGINE=InnoDB",
        "FULLTEXT",
        "ft",
    ),
    (
        "CREATE TABLE t (id INT PRIMARY KEY, title VARCHAR(200), body MEDIUMTEXT, FULLTEXT INDEX (title, body))",
        "FULLTEXT",
        None,
    ),
    (
        "CREATE TABLE t (id INT PRIMARY KEY, body LONGTEXT, FULLTEXT (body) WITH PARSER ngram)",
        "FULLTEXT",
        None,
    ),
    ("CREATE TABLE t (id INT PRIMARY KEY, g GEOMETRY NOT NULL, SPATIAL INDEX (g))", "SPATIAL", None),
    ("CREATE TABLE t (id INT PRIMARY KEY, g POINT NOT NULL, y YEAR, SPATIAL KEY sp (g))", "SPATIAL", "sp"),
]


@pytest.mark.parametrize(("sql", "kind", "name"), ACCEPTED, ids=[f"a{i}" for i in range(len(ACCEPTED))])
def test_fulltext_and_spatial_keys_need_no_key_length(sql: str, kind: str, name: str | None) -> None:
    for t in (Table.from_sql(sql), via_fallback(sql), via_sqlglot(sql)):
        if t is None:  # sqlglot cannot read it: the fallback's answer above is the one
            continue
        (k,) = [k for k in t.keys if k.kind != "PRIMARY"]
        assert (k.kind, k.name) == (kind, name)
        assert t.unique_keys == ()
        assert [t.columns[i].name for i, _ in t.effective_primary_key()] == ["id"]


def test_without_primary_key_fulltext_is_no_pke() -> None:
    t = Table.from_sql("CREATE TABLE t (body TEXT NOT NULL, FULLTEXT KEY (body))")
    assert not t.effective_primary_key()


REFUSED = [
    ("CREATE TABLE t (id INT PRIMARY KEY, n INT, FULLTEXT KEY (n))", "FULLTEXT index on a INT column"),
    ("CREATE TABLE t (id INT PRIMARY KEY, g POINT, SPATIAL KEY (g))", "must be NOT NULL"),
    (
        "CREATE TABLE t (id INT PRIMARY KEY, s TEXT NOT NULL, SPATIAL KEY (s))",
        "SPATIAL index on a TEXT column",
    ),
    ("CREATE TABLE t (id INT PRIMARY KEY, body TEXT, KEY (body))", "without a key length"),
    ("CREATE TABLE t (id INT PRIMARY KEY, body TEXT, UNIQUE KEY (body))", "without a key length"),
]


@pytest.mark.parametrize(("sql", "why"), REFUSED, ids=[f"r{i}" for i in range(len(REFUSED))])
def test_what_the_servers_refuse_is_still_refused(sql: str, why: str) -> None:
    with pytest.raises(SchemaError, match=why):
        Table.from_sql(sql)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("via", [Table.from_sql, via_fallback])
def test_prefix_of_a_geometry_column_in_a_plain_key(via, flavor: str) -> None:
    """A geometry value is stored as a BLOB: a non-SPATIAL key takes a prefix of it (MariaDB
    10.11 accepts ``KEY (p(32))`` on a POLYGON, ``UNIQUE (g(32))``, ``PRIMARY KEY (p(25))``).
    sqlglot does not map POLYGON / POINT: the fallback reads these either way."""
    t = via("CREATE TABLE t (id INT PRIMARY KEY, p POLYGON NOT NULL, g GEOMETRY, KEY k (p(32)), "
            "UNIQUE KEY u (g(500)))", flavor=flavor)
    assert [(k.kind, k.parts) for k in t.keys[1:]] == [
        ("INDEX", (KeyPart("p", 32),)),
        ("UNIQUE", (KeyPart("g", 500),)),
    ]
    pk = via("CREATE TABLE t (p POINT NOT NULL, PRIMARY KEY (p(25)))", flavor=flavor)
    assert pk.effective_primary_key() == [(0, 25)]


def test_prefix_of_a_geometry_column_in_a_spatial_key_is_refused() -> None:
    with pytest.raises(SchemaError, match="a prefix length on a SPATIAL index part"):
        Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, p POINT NOT NULL, SPATIAL KEY (p(5)))")
