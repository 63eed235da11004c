"""Schema model: CREATE TABLE parsing (sqlglot + own tokenizer), normalisation, validation,
binlog type/metadata per column (values.md §1, §5, §6; format.md §12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter import schema as S
from binlogwriter.errors import SchemaError
from binlogwriter.schema import Column, Key, KeyPart, Table, parse_tables


def col(sql_type: str, flavor: str = "mysql80", table_opts: str = "") -> Column:
    return Table.from_sql(f"CREATE TABLE t (c {sql_type}) {table_opts}", flavor=flavor).columns[0]


@pytest.mark.parametrize("sql_type,flavor,btype,meta", [
    ("TINYINT", "mysql80", 1, ""), ("BOOL", "mysql80", 1, ""), ("SMALLINT", "mysql80", 2, ""),
    ("MEDIUMINT", "mysql80", 9, ""), ("MIDDLEINT", "mysql80", 9, ""), ("INTEGER", "mysql80", 3, ""),
    ("INT8", "mysql80", 8, ""), ("FLOAT", "mysql80", 4, "04"), ("FLOAT(30)", "mysql80", 5, "08"),
    ("REAL", "mysql80", 5, "08"), ("DOUBLE PRECISION", "mysql80", 5, "08"),
    ("NUMERIC(5,2)", "mysql80", 246, "0502"), ("DECIMAL", "mysql80", 246, "0a00"),
    ("BIT(10)", "mysql80", 16, "0201"), ("BIT", "mysql80", 16, "0100"), ("YEAR", "mysql80", 13, ""),
    ("DATE", "mysql80", 10, ""), ("TIME(3)", "mysql80", 19, "03"), ("DATETIME", "mysql80", 18, "00"),
    ("TIMESTAMP(6)", "mysql80", 17, "06"), ("CHAR(100)", "mysql80", 254, "ee90"),
    ("CHAR(255) CHARSET latin1", "mysql80", 254, "feff"), ("CHAR(10) CHARACTER SET binary", "mysql80", 254, "fe0a"),
    ("NATIONAL CHAR(3)", "mysql80", 254, "fe09"), ("VARCHAR(256)", "mysql80", 15, "0004"),
    ("VARBINARY(10)", "mysql80", 15, "0a00"), ("LONG", "mysql80", 252, "03"),
    ("LONG VARBINARY", "mysql80", 252, "03"), ("TEXT(300) CHARSET latin1", "mysql80", 252, "02"),
    ("TEXT(100)", "mysql80", 252, "02"), ("TINYBLOB", "mysql80", 252, "01"), ("LONGTEXT", "mysql80", 252, "04"),
    ("ENUM('a','b')", "mysql80", 254, "f701"), ("SET('a','b','c','d','e','f','g','h','i')", "mysql80", 254, "f802"),
    ("JSON", "mysql80", 245, "04"), ("JSON", "mariadb1011", 252, "04"), ("POINT", "mysql80", 255, "04"),
    ("GEOMCOLLECTION", "mysql80", 255, "04"), ("INET6", "mariadb1011", 254, "fe10"),
    ("UUID", "mariadb1011", 254, "fe10"), ("INET4", "mariadb1011", 254, "fe04"),
    ("SERIAL", "mysql80", 8, ""),
])
def test_binlog_type_and_meta(sql_type, flavor, btype, meta):
    c = col(sql_type, flavor)
    assert c.binlog_type(flavor) == btype
    assert c.binlog_meta(flavor).hex() == meta


def test_enum_2_bytes_and_set_8_bytes():
    e = Column("e", "ENUM", members=tuple(f"v{i}" for i in range(256)))
    s = Column("s", "SET", members=tuple(f"v{i}" for i in range(64)))
    assert e.binlog_meta() == b"\xf7\x02" and s.binlog_meta() == b"\xf8\x08"
    assert Column("s", "SET", members=tuple(f"v{i}" for i in range(18))).binlog_meta() == b"\xf8\x03"


def test_collation_resolution_order():
    t = Table.from_sql("""CREATE TABLE t (a CHAR(1), b CHAR(1) CHARSET latin1, c CHAR(1) COLLATE latin1_bin,
        d CHAR(1) CHARSET utf8mb4, e TEXT CHARACTER SET binary, f VARCHAR(3) BINARY)
        DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin""")
    ids = [c.collation_id("mysql80") for c in t.columns]
    assert ids == [46, 8, 47, 255, 63, 46]
    assert t.columns[4].type == "BLOB"
    assert Table.from_sql("CREATE TABLE t (a CHAR(1))", flavor="mariadb1011").columns[0].collation_id(
        "mariadb1011") == 45
    assert Table.from_sql("CREATE TABLE t (a CHAR(1))").columns[0].collation_id("mysql80") == 255
    t2 = Table.from_sql("CREATE TABLE t (a CHAR(1))", database_charset="latin2")
    assert t2.columns[0].collation_id("mysql80") == 9


def test_parse_tables_follows_use_and_create_database():
    ts = parse_tables("""CREATE DATABASE x CHARACTER SET latin1; USE x;
        CREATE TABLE a (c CHAR(2)); INSERT INTO a VALUES ('x;y'); -- comment; here
        /* CREATE TABLE nope (a INT); */ CREATE TABLE y.b (d INT);""")
    assert [(t.database, t.name) for t in ts] == [("x", "a"), ("y", "b")]
    assert ts[0].columns[0].collation_id("mysql80") == 8


def test_keys_inline_and_table_level():
    t = Table.from_sql("""CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(20),
        w TEXT, KEY kv (v(5)), UNIQUE INDEX uw (w(10), u), INDEX (u DESC))""")
    assert t.primary_key.parts == (KeyPart("id"),)
    assert [k.columns for k in t.unique_keys] == [("u",), ("w", "u")]
    assert [k.parts for k in t.other_keys] == [(KeyPart("v", 5),), (KeyPart("u"),)]
    assert not t.columns[0].nullable


def test_invisible_default_autoinc_comment():
    t = Table.from_sql("""CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'x',
        d INT INVISIBLE DEFAULT -5, z INT ZEROFILL, PRIMARY KEY (id))""")
    assert t.columns[0].auto_increment and t.columns[0].unsigned
    assert t.columns[1].invisible and t.columns[1].default == "-5"
    t2 = Table.from_sql("CREATE TABLE t (a CHAR(3) DEFAULT 'x''y', b TIMESTAMP(3) DEFAULT now(3))")
    assert [c.default for c in t2.columns] == ["'x''y'", "NOW(3)"]
    t3 = Table.from_sql("CREATE TABLE t (a INT) /*!50100 DEFAULT CHARSET=latin1 */")
    assert t3.charset == "latin1"
    assert t.columns[2].unsigned  # ZEROFILL implies UNSIGNED


def test_fallback_parser_forms():
    t = Table.from_sql("""CREATE TABLE IF NOT EXISTS `we``ird` (
        `a b` INT(11) UNSIGNED ZEROFILL, c FLOAT UNSIGNED, d NATIONAL VARCHAR(10),
        e POINT NOT NULL SRID 4326, f CHAR(3) ASCII, g VARCHAR(3) BYTE,
        h INT GENERATED ALWAYS AS (1 + 2) VIRTUAL, i ENUM(_utf8mb4'x', 'y''z') NOT NULL,
        CONSTRAINT pk PRIMARY KEY USING BTREE (`a b`), CHECK (h > 0),
        FOREIGN KEY (h) REFERENCES o (id) ON DELETE CASCADE
        ) /*!50100 ENGINE=InnoDB DEFAULT CHARSET=latin1 */ PARTITION BY HASH(h) PARTITIONS 2""")
    assert t.name == "we`ird"
    assert [c.type for c in t.columns] == ["INT", "FLOAT", "VARCHAR", "POINT", "CHAR", "VARBINARY",
                                           "INT", "ENUM"]
    assert t.columns[1].unsigned and t.columns[2].charset == "utf8mb3"
    assert t.columns[4].charset == "latin1" and t.columns[7].members == ("x", "y'z")
    assert t.charset == "latin1" and t.primary_key.columns == ("a b",)


def _ddl(t: Table) -> str:
    def typ(c: Column) -> str:
        s = c.type
        if c.type == "DECIMAL":
            s += f"({c.precision},{c.scale})"
        elif c.type in ("CHAR", "VARCHAR", "BINARY", "VARBINARY", "BIT") and c.length is not None:
            s += f"({c.length})"
        elif c.type in ("TIME", "DATETIME", "TIMESTAMP"):
            s += f"({c.fsp or 0})"
        elif c.members:
            s += "(" + ",".join("'" + m + "'" for m in c.members) + ")"
        if c.unsigned:
            s += " UNSIGNED"
        if c.charset and c.type not in ("BINARY", "VARBINARY"):
            s += f" CHARACTER SET {c.charset}"
        if c.collation:
            s += f" COLLATE {c.collation}"
        s += "" if c.nullable else " NOT NULL"
        s += f" DEFAULT {c.default}" if c.default is not None else ""
        return s + (" INVISIBLE" if c.invisible else "")
    items = [f"`{c.name}` {typ(c)}" for c in t.columns]
    for k in t.keys:
        kw = {"PRIMARY": "PRIMARY KEY", "UNIQUE": "UNIQUE KEY", "INDEX": "KEY"}[k.kind]
        items.append(kw + " (" + ", ".join(p.column + (f"({p.prefix})" if p.prefix else "")
                                            for p in k.parts) + ")")
    return f"CREATE TABLE `{t.name}` (" + ", ".join(items) + ")" + (
        f" DEFAULT CHARSET={t.charset}" if t.charset else "") + (
        f" COLLATE={t.collation}" if t.collation else "")


_SIMPLE = st.sampled_from(["INT", "BIGINT UNSIGNED", "SMALLINT", "DECIMAL(12,3)", "DATETIME(6)", "TIME",
                           "CHAR(9)", "VARCHAR(40) CHARACTER SET latin1", "VARCHAR(7) COLLATE utf8mb4_bin",
                           "TEXT", "MEDIUMBLOB", "ENUM('a','b')", "SET('x','y')", "JSON", "BIT(5)",
                           "VARBINARY(12)", "DATE", "LONGTEXT CHARACTER SET utf8mb3", "TINYINT UNSIGNED",
                           "BINARY(3)", "TIMESTAMP(2)", "MEDIUMINT UNSIGNED"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_SIMPLE, st.booleans(), st.booleans()), min_size=1, max_size=10),
       st.sampled_from(["", " DEFAULT CHARSET=latin1", " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"]))
def test_sqlglot_and_fallback_parsers_agree(cols, opts):
    parts = [f"c{i} {t}{'' if null else ' NOT NULL'}{' INVISIBLE' if inv else ''}"
             + (" DEFAULT 'q''1'" if "CHAR" in t and i % 2 else (" DEFAULT -7" if t == "INT" else ""))
             for i, (t, null, inv) in enumerate(cols)]
    if all(inv for _, _, inv in cols):
        parts.append("vis INT")
    if "JSON" not in cols[0][0]:
        parts.append("PRIMARY KEY (c0)" if "TEXT" not in cols[0][0] and "BLOB" not in cols[0][0]
                     else "KEY (c0(3))")
    sql = "CREATE TABLE t (" + ", ".join(parts) + ")" + opts
    toks = S.tokenize(sql)
    glot = S.parse_with_sqlglot(sql)
    assert glot is not None, sql
    own = S.parse_create_fallback(toks)
    a = S.table_from_spec(glot, "test", "mysql80", None, None)
    b = S.table_from_spec(own, "test", "mysql80", None, None)
    assert a == b
    assert Table.from_sql(_ddl(a)) == a


# -- validation: every error names table and column ------------------------------------

BAD = [
    ("CREATE TABLE tv (c VARCHAR(70000))", "c"),
    ("CREATE TABLE tv (c VARCHAR(16384) CHARSET utf8mb4)", "c"),
    ("CREATE TABLE tv (c CHAR(256))", "c"),
    ("CREATE TABLE tv (c BINARY(256))", "c"),
    ("CREATE TABLE tv (c DECIMAL(66,2))", "c"),
    ("CREATE TABLE tv (c DECIMAL(5,6))", "c"),
    ("CREATE TABLE tv (c DECIMAL(40,31))", "c"),
    ("CREATE TABLE tv (c TIME(7))", "c"),
    ("CREATE TABLE tv (c DATETIME(9))", "c"),
    ("CREATE TABLE tv (c ENUM('a','b','a'))", "c"),
    ("CREATE TABLE tv (c ENUM('a','A'))", "c"),
    ("CREATE TABLE tv (c SET('x','x'))", "c"),
    ("CREATE TABLE tv (c SET(" + ",".join(f"'v{i}'" for i in range(65)) + "))", "c"),
    ("CREATE TABLE tv (c ENUM(" + ",".join(f"'v{i}'" for i in range(65536)) + "))", "c"),
    ("CREATE TABLE tv (c BIT(65))", "c"),
    ("CREATE TABLE tv (c INT, PRIMARY KEY (c(3)))", "c"),
    ("CREATE TABLE tv (c VARCHAR(5), PRIMARY KEY (c(6)))", "c"),
    ("CREATE TABLE tv (a INT, PRIMARY KEY (c))", "c"),
    ("CREATE TABLE tv (c CHAR(3) COLLATE nope_ci)", "c"),
    ("CREATE TABLE tv (c CHAR(3) CHARACTER SET latin1 COLLATE utf8mb4_bin)", "c"),
    ("CREATE TABLE tv (c INT, C BIGINT)", "C"),
    ("CREATE TABLE tv (c TEXT, PRIMARY KEY (c))", "c"),
    ("CREATE TABLE tv (c INET6)", "c"),
    ("CREATE TABLE tv (c CHAR(3) CHARSET nosuch)", "c"),
    ("CREATE TABLE tv (c FLOAT(54))", "c"),
    ("CREATE TABLE tv (c INT UNSIGNED, d CHAR(3) UNSIGNED)", "d"),
    ("CREATE TABLE tv (c INT FROBNICATE)", "c"),
]


@pytest.mark.parametrize("sql,column", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_validation_errors_name_table_and_column(sql, column):
    with pytest.raises(SchemaError) as ei:
        Table.from_sql(sql)
    msg = str(ei.value)
    assert "'tv'" in msg and f"'{column}'" in msg, msg


def test_mariadb_collation_name_unknown_on_mariadb():
    with pytest.raises(SchemaError, match="utf8mb4_0900_ai_ci"):
        Table.from_sql("CREATE TABLE tv (c CHAR(3) COLLATE utf8mb4_0900_ai_ci)", flavor="mariadb1011")


def test_python_built_table_and_keys():
    t = Table("db", "t", (Column("id", "integer"), Column("n", "varchar", 30, charset="utf8")),
              (Key("PRIMARY", ("id", ("n", 10))),))
    assert t.columns[0].type == "INT" and t.columns[1].charset == "utf8mb3"
    assert t.effective_primary_key() == [(0, 0), (1, 10)]
    assert not t.columns[1].nullable
    with pytest.raises(SchemaError):
        Table("db", "t", (Column("a", "INT", invisible=True),))
    with pytest.raises(SchemaError):
        Table("db", "t", (Column("a", "INT"),), (Key("PRIMARY", ("a",)), Key("PRIMARY", ("a",))))


def test_frozen():
    c = Column("a", "INT")
    with pytest.raises(AttributeError):
        c.name = "b"  # type: ignore[misc]


def test_column_descs():
    t = Table.from_sql("CREATE TABLE t (a INT UNSIGNED NOT NULL, e ENUM('x','y') CHARSET latin1, "
                       "ts TIMESTAMP(3), y YEAR)", flavor="mariadb1011")
    d = t.column_descs()
    assert d[0].unsigned and not d[0].nullable and d[0].name == "a" and d[0].table == "t"
    assert d[1].collation == 8 and d[1].enum_values == ("x", "y") and d[1].meta == b"\xf7\x01"
    assert d[2].fsp == 3 and d[2].type_code == 17
    assert d[3].unsigned and not t.column_descs("mysql80")[3].unsigned


def test_create_table_like_copies_an_earlier_table():
    a, b = parse_tables("CREATE TABLE src (id INT PRIMARY KEY, v VARCHAR(3) CHARSET latin1);\n"
                        "CREATE TABLE IF NOT EXISTS other.`dst` LIKE src;", database="d")
    assert (b.database, b.name) == ("other", "dst")
    assert b.columns == a.columns and b.keys == a.keys


def test_create_table_like_unknown_source_names_the_table():
    with pytest.raises(SchemaError, match="dst"):
        parse_tables("CREATE TABLE dst LIKE nowhere")


def test_functional_index_is_not_a_key():
    """MySQL 8 functional key parts index hidden columns that Table_maps leave out (format.md §12)."""
    (t,) = parse_tables("CREATE TABLE g (id INT NOT NULL, a INT NOT NULL, UNIQUE KEY k ((a + 1)), "
                        "KEY j ((id * 2)))")
    assert t.keys == () and t.effective_primary_key() == []
