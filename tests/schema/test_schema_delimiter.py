"""Scripts as the ``mysql`` / ``mariadb`` client reads them (binlogwriter/schema/lexer.py
``statement_spans``): ``DELIMITER`` lines, routine and trigger bodies holding ``;`` (and
CREATE TABLE statements of their own), as mysqldump and MySQL Workbench write schema files.
A routine's body is one statement that is not a table; the tables around it are read, and
``generate --schema`` follows them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.cli import main as cli_main
from binlogwriter.schema import parse_tables
from binlogwriter.schema.lexer import statement_spans
from generators.workloads.custom import split_statements

SCRIPT = """-- a schema file as a dump tool writes it
SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0;
CREATE TABLE a (id INT NOT NULL PRIMARY KEY, note VARCHAR(20) DEFAULT 'x;y');
DELIMITER $$
CREATE PROCEDURE fill(IN n INT)
BEGIN
  DROP TEMPORARY TABLE IF EXISTS tmp;
  CREATE TEMPORARY TABLE tmp (k INT);   -- inside the body: not a table of the schema
  CREATE TABLE IF NOT EXISTS made_by_proc (k INT);
  INSERT INTO a VALUES (n, 'a$$b');
END$$
CREATE TRIGGER a_ins AFTER INSERT ON a FOR EACH ROW BEGIN
  INSERT INTO b (a_id) VALUES (NEW.id);
END $$
DELIMITER ;
  delimiter //
/*!50003 CREATE*/ /*!50003 FUNCTION twice(x INT) RETURNS INT DETERMINISTIC
BEGIN
  DECLARE y INT; SET y = x * 2; RETURN y;
END */ //
delimiter ;
CREATE TABLE b (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a_id INT NOT NULL,
  FOREIGN KEY (a_id) REFERENCES a (id)) /* a comment; with a semicolon */;
DELIMITER ;;
/*!50003 CREATE TRIGGER b_upd BEFORE UPDATE ON b FOR EACH ROW SET NEW.a_id = NEW.a_id; */;;
DELIMITER ;
CREATE TABLE c (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, `semi;colon` CHAR(3));
"""


def test_routine_bodies_are_one_statement_and_not_tables() -> None:
    tables = parse_tables(SCRIPT, "db", "mariadb1011", source="dump.sql")
    assert [t.name for t in tables] == ["a", "b", "c"]
    creates = [s for s in split_statements(SCRIPT) if s.upper().startswith("CREATE TABLE")]
    assert [s.split()[2] for s in creates] == ["a", "b", "c"]
    heads = [SCRIPT[a:b].split()[:2] for a, b in statement_spans(SCRIPT)]
    assert heads == [["--", "a"], ["CREATE", "TABLE"], ["CREATE", "PROCEDURE"], ["CREATE", "TRIGGER"],
                     ["/*!50003", "CREATE*/"], ["CREATE", "TABLE"], ["/*!50003", "CREATE"], ["CREATE", "TABLE"]]


def test_generate_follows_the_tables_of_a_dump(tmp_path: Path) -> None:
    schema = tmp_path / "dump.sql"
    schema.write_text(SCRIPT)
    r = CliRunner().invoke(cli_main, ["generate", "--schema", str(schema), "--out", str(tmp_path / "o"),
                                      "--transactions", "50", "--initial-rows", "400", "--no-progress"])
    assert r.exit_code == 0, r.output
    snapshot = (tmp_path / "o" / "truth" / "snapshot.sql").read_text()
    assert "PROCEDURE" not in snapshot and "made_by_proc" not in snapshot
    assert snapshot.count("CREATE TABLE") == 3


_WORDS = st.sampled_from(["SELECT", "1", "x", "BEGIN", "END", "'a;b'", "'it''s $$'", '"q;"', "`n;m`",
                          "/* c; $$ // */", "(", ")", ",", "'\\';'", "'\\\\'"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([";", "$$", "//", ";;"]),
                          st.lists(st.tuples(st.lists(_WORDS, min_size=1, max_size=6), st.booleans()),
                                   min_size=1, max_size=3)),
                min_size=1, max_size=5))
def test_spans_are_the_statements_written(blocks) -> None:
    """Statements written under several delimiters (a ``DELIMITER`` line before each block)
    come back one by one, each span exactly the statement's text: under another delimiter
    than ``;``, a routine whose body holds ``;`` is one statement, and plain statements
    sent together (``a; b //``) are each one, as the server runs them."""
    text, want = [], []
    for delim, stmts in blocks:
        text.append(f"DELIMITER {delim}\n")
        for words, routine in stmts:
            body = " ".join(words)
            if delim == ";":
                want.append(body)
            elif routine:
                body = f"CREATE DEFINER=`u`@`%` PROCEDURE p() BEGIN {body}; {body}; END"
                want.append(body)
            else:  # a plain statement (not one that opens a block: BEGIN, IF, … are read whole)
                body = f"SELECT {body}; SELECT {body}"
                want += [f"SELECT {' '.join(words)}"] * 2
            text.append(f"{body}{delim}\n")
    sql = "".join(text)
    assert [sql[a:b].strip() for a, b in statement_spans(sql)] == want


def test_a_delimiter_never_used_again_leaves_no_table_out(tmp_path: Path) -> None:
    """``DELIMITER //`` and then plain ``;`` statements to the end (Cacti's install file):
    the client sends the rest as one query, the server creates every table."""
    sql = "DELIMITER //\nSET @x = 1;\nCREATE TABLE t (id INT PRIMARY KEY);\nCREATE TABLE u (id INT PRIMARY KEY);\n"
    assert [t.name for t in parse_tables(sql, "db", "mysql80")] == ["t", "u"]
    assert [s.split()[2] for s in split_statements(sql) if s.startswith("CREATE")] == ["t", "u"]
