"""Prepared statements and ``information_schema.COLUMNS`` in ``binlogwriter serve``
(binlogwriter/serve/prepared.py, binary_protocol.py, columns_catalog.py; docs/serve.md
"Prepared statements").

- Packet layouts against the bytes of the protocol documentation's own examples (MySQL source
  documentation "COM_STMT_PREPARE", "COM_STMT_EXECUTE", "Binary Protocol Resultset"; MariaDB
  knowledge base "Result Set Row" for the NULL bitmap's offset of 2).
- A real client: mysql2 (Node.js, the driver ZongJi uses; installed by
  tests/conformance/toolchain.py) runs ``connection.execute()`` — COM_STMT_PREPARE then
  COM_STMT_EXECUTE — against ``serve``, ZongJi's own column query included; expected rows come
  from the served run's truth (its CREATE TABLE text) and the MySQL / MariaDB documentation of
  the COLUMNS table, written out here.
- What no well-behaved client sends (unknown statement ids, an unknown parameter type), with
  the raw client of tests/serve/rawclient.py.
"""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import pytest

from binlogwriter.serve import serving
from binlogwriter.serve.binary_protocol import (
    ExecuteError,
    binary_result_set,
    binary_row,
    parse_execute,
    prepare_ok,
    sql_literal,
)
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.prepared import placeholders
from binlogwriter.serve.queries import Identity, answer
from binlogwriter.serve.session import Session
from tests.serve import rawclient

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
CLIENT = Path(__file__).with_name("prepared_client.mjs")

ZONGJI_QUERY = (  # @vlasky/zongji 0.9.0 index.js TableInfoQuery, verbatim
    "SELECT\n  COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME,\n  COLUMN_COMMENT, COLUMN_TYPE\n"
    "  FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=? AND TABLE_NAME=?\n  ORDER BY ORDINAL_POSITION")


# ------------------------------------------------------------------ packet layouts (doc bytes)

def test_prepare_ok_is_the_documented_packet() -> None:
    # MySQL "COM_STMT_PREPARE Response" example for SELECT CONCAT(?, ?) AS col1: statement 1,
    # 1 column, 2 parameters: 0c 00 00 01 | 00 01 00 00 00 01 00 02 00 00 00 00
    assert prepare_ok(1, 1, 2) == bytes.fromhex("00 01000000 0100 0200 00 0000")


def test_execute_parameters_of_the_documented_packet() -> None:
    # MySQL "COM_STMT_EXECUTE" example: statement 1, no cursor, iteration count 1, NULL bitmap
    # 00, new-params-bound 01, type 0f 00 (VARCHAR), value "foo"
    payload = bytes.fromhex("17 01000000 00 01000000 00 01 0f00 03666f6f")
    assert parse_execute(payload, 1, None) == ([b"foo"], [(0x0F, 0)])


def test_execute_reuses_types_bound_before_and_reads_ints_nulls_and_unsigned() -> None:
    first = (bytes.fromhex("17 01000000 00 01000000") + bytes([0b010]) + b"\x01"
             + bytes([0x08, 0x00, 0x06, 0x00, 0x01, 0x80]) + struct.pack("<q", -5) + b"\xff")
    values, types = parse_execute(first, 3, None)
    assert values == [-5, None, 255]  # LONGLONG signed, NULL, TINY with the unsigned flag
    again = bytes.fromhex("17 01000000 00 01000000") + bytes([0b110]) + b"\x00" + struct.pack("<q", 7)
    assert parse_execute(again, 3, types) == ([7, None, None], types)


@pytest.mark.parametrize("payload", [
    bytes.fromhex("17 01000000 00 01000000 00 01 1400 00"),  # type 0x14: no such field type
    bytes.fromhex("17 01000000 00 01000000 00 01 0800 0102"),  # LONGLONG cut short
    bytes.fromhex("17 01000000 00 01000000 00 00 03"),  # no types were ever bound
])
def test_undecodable_parameters_get_the_servers_error(payload: bytes) -> None:
    with pytest.raises(ExecuteError) as e:
        parse_execute(payload, 1, None)
    assert (e.value.code, str(e.value)) == (1210, "Incorrect arguments to mysqld_stmt_execute")


def test_binary_result_set_is_the_documented_one() -> None:
    # MySQL "Binary Protocol Resultset" example: one VAR_STRING column col1 holding "foobar"
    coldef = bytes.fromhex("03646566 00 00 00 04636f6c31 00 0c 0800 06000000 fd 0000 1f 0000")
    eof = bytes.fromhex("fe 0000 0200")
    text = [b"\x01", coldef, eof, b"\x06foobar", eof]
    assert binary_result_set(text) == [b"\x01", coldef, eof, bytes.fromhex("00 00 06666f6f626172"), eof]


def test_binary_row_null_bitmap_starts_at_bit_two() -> None:
    # MariaDB "Result Set Row": column i is bit i + 2 of a (columns + 9) / 8 byte bitmap
    longlong = (0x08, 0)
    row = binary_row([None] * 6 + [b"1"], [longlong] * 7)
    assert row == b"\x00" + bytes([0b11111100, 0b00000000]) + struct.pack("<q", 1)
    assert binary_row([b"-2", None], [longlong, longlong]) == b"\x00\x08" + struct.pack("<q", -2)


def test_placeholders_outside_quotes_only() -> None:
    assert placeholders("SELECT '?', `a?`, ? FROM t WHERE b = \"?\" AND c=?") == [
        "SELECT '?', `a?`, ", " FROM t WHERE b = \"?\" AND c=", ""]


@pytest.mark.parametrize("text", ["plain", "it's", "back\\slash\\", "nul\0z\x1a\n\r", "'; SELECT 1; --", "\\'"])
def test_a_parameter_comes_back_as_it_was_sent(text: str) -> None:
    binlogs = BinlogSet([SAMPLES / "mysql80-full-full-ecommerce"])
    resp = answer(binlogs, Identity("x"), Session(1, "p"), f"SELECT {sql_literal(text.encode())} AS v")
    assert resp[0] == b"\x01"
    n = resp[3][0]
    assert resp[3][1: 1 + n].decode() == text


# ------------------------------------------------------------------ a real client: mysql2

@pytest.fixture(scope="module")
def node() -> str:
    from tests.conformance.toolchain import ZONGJI, ToolchainError, ensure

    try:
        return ensure(ZONGJI)["node"]
    except ToolchainError as exc:  # a missing toolchain fails in one line, it never skips
        pytest.fail(str(exc), pytrace=False)


def _mysql2(node: str, srv, statements: list) -> list[dict]:
    proc = subprocess.run([node, str(CLIENT), str(srv.port), srv.user, srv.password, json.dumps(statements)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()]


def _create(run: Path, table: str) -> str:
    for line in (run / "truth" / "schema_history.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d["table"] == table:
            return d["create"]
    raise AssertionError(table)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_zongji_column_query_answers_the_runs_columns(node: str, flavor: str) -> None:
    run = SAMPLES / f"{flavor}-full-minimal-alltypes"
    with serving(run, password="pw") as srv:
        out = _mysql2(node, srv, [[ZONGJI_QUERY, ["test", "at_string"]], [ZONGJI_QUERY, ["test", "no_such"]]])
    rows = {r["COLUMN_NAME"]: r for r in out[0]["rows"]}
    assert out[0]["fields"] == ["COLUMN_NAME", "COLLATION_NAME", "CHARACTER_SET_NAME", "COLUMN_COMMENT",
                                "COLUMN_TYPE"]
    create = _create(run, "at_string")  # the column order and charsets of the truth's CREATE TABLE
    assert [r["COLUMN_NAME"] for r in out[0]["rows"]] == [
        ln.strip().split("`")[1] for ln in create.splitlines()[1:] if ln.strip().startswith("`")]
    assert "`c255` CHAR(255) CHARACTER SET latin1" in create and "`v_bin` VARCHAR(40) COLLATE utf8mb4_bin" in create
    mysql = flavor.startswith("mysql")
    # MySQL 8.0 drops integer display widths, MariaDB keeps them (SHOW CREATE TABLE / COLUMNS)
    assert rows["id"] == {"COLUMN_NAME": "id", "COLLATION_NAME": None, "CHARACTER_SET_NAME": None,
                          "COLUMN_COMMENT": "", "COLUMN_TYPE": "int unsigned" if mysql else "int(10) unsigned"}
    assert (rows["c255"]["CHARACTER_SET_NAME"], rows["c255"]["COLLATION_NAME"], rows["c255"]["COLUMN_TYPE"]) == (
        "latin1", "latin1_swedish_ci", "char(255)")
    assert rows["v_bin"]["COLLATION_NAME"] == "utf8mb4_bin"
    # the utf8mb4 default collation: utf8mb4_0900_ai_ci on MySQL 8.0, utf8mb4_general_ci on MariaDB
    assert rows["v255"]["COLLATION_NAME"] == ("utf8mb4_0900_ai_ci" if mysql else "utf8mb4_general_ci")
    assert rows["lt"]["COLUMN_TYPE"] == "longtext"
    assert out[1] == {"rows": [], "fields": out[0]["fields"]}


def test_columns_keys_nullability_and_types(node: str) -> None:
    run = SAMPLES / "mariadb1011-full-minimal-alltypes"
    q = ("SELECT COLUMN_NAME, COLUMN_KEY, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS "
         "WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?) ORDER BY TABLE_NAME, ORDINAL_POSITION")
    with serving(run, password="pw") as srv:
        out = _mysql2(node, srv, [[q, ["test", "at_uniq", "at_nopk"]]])
    got = [tuple(r.values()) for r in out[0]["rows"]]
    # at_nopk: KEY idx_a (a) -> MUL; at_uniq: UNIQUE KEY (code NOT NULL) with no primary key is
    # shown as PRI (MySQL manual "The INFORMATION_SCHEMA COLUMNS Table", COLUMN_KEY)
    assert got == [
        ("a", "MUL", "YES", "int", "int(11)"), ("b", "", "YES", "varchar", "varchar(20)"),
        ("c", "", "YES", "datetime", "datetime(3)"), ("d", "", "YES", "decimal", "decimal(8,3)"),
        ("code", "PRI", "NO", "varchar", "varchar(24)"), ("n", "", "YES", "int", "int(11)"),
        ("t", "", "YES", "text", "text")]


def test_parameters_of_each_kind_round_trip(node: str) -> None:
    with serving(SAMPLES / "mysql80-full-full-ecommerce", password="pw") as srv:
        out = _mysql2(node, srv, [
            ["SELECT ? AS s, ? AS n, ? AS i, @@server_id AS sid", ["it's a \\ 'test' ?", None, 42]],
            ["SHOW BINARY LOGS", []],
            ["SELECT x FROM nowhere WHERE a = ?", [1]],
        ])
    assert out[0] == {"rows": [{"s": "it's a \\ 'test' ?", "n": None, "i": 42, "sid": 1}],
                      "fields": ["s", "n", "i", "sid"]}
    assert out[1]["rows"][0]["Log_name"] == "binlog.000001"
    assert isinstance(out[1]["rows"][0]["File_size"], int)  # a BIGINT column, decoded from 8 bytes
    assert out[2]["error"]["errno"] == 1146  # refused at prepare, as a server refuses an unknown table


def test_without_definitions_columns_has_no_rows(tmp_path: Path, node: str) -> None:
    src = SAMPLES / "mysql80-full-full-ecommerce"
    (tmp_path / "binlog.000001").write_bytes((src / "binlog.000001").read_bytes())  # no truth/
    with serving(tmp_path, password="pw") as srv:
        out = _mysql2(node, srv, [[ZONGJI_QUERY, ["ecommerce", "orders"]]])
    assert out[0]["rows"] == []


# ------------------------------------------------------------------ what well-behaved clients never send

def _command(sock, payload: bytes) -> bytes:
    sock.sendall(rawclient.packet(payload, 0))
    return rawclient.read_packet(sock)


def test_unknown_statement_ids_close_and_reset() -> None:
    with serving(SAMPLES / "mysql80-full-full-ecommerce", password="pw") as srv:
        s = rawclient.login(srv.port, srv.user, srv.password)
        try:
            ok = _command(s, b"\x16SELECT ? AS a")
            assert ok[:1] == b"\x00" and struct.unpack_from("<IHH", ok, 1) == (1, 1, 1)
            for _ in range(4):  # the parameter definition, EOF, the column definition, EOF
                rawclient.read_packet(s)
            assert _command(s, b"\x1a" + struct.pack("<I", 1))[:1] == b"\x00"  # COM_STMT_RESET: OK
            err = _command(s, b"\x17" + struct.pack("<IBI", 9, 0, 1))
            assert err[:3] == b"\xff" + struct.pack("<H", 1243)
            assert err[9:] == b"Unknown prepared statement handler (9) given to mysqld_stmt_execute"
            bad = _command(s, b"\x17" + struct.pack("<IBI", 1, 0, 1) + bytes.fromhex("00 01 1400 00"))
            assert bad[:3] == b"\xff" + struct.pack("<H", 1210)
            s.sendall(rawclient.packet(b"\x19" + struct.pack("<I", 1), 0))  # COM_STMT_CLOSE: no answer
            assert _command(s, b"\x0e")[:1] == b"\x00"  # COM_PING answers next, so CLOSE sent nothing
            err = _command(s, b"\x17" + struct.pack("<IBI", 1, 0, 1) + bytes.fromhex("00 01 0800") + bytes(8))
            assert err[:3] == b"\xff" + struct.pack("<H", 1243)
        finally:
            s.close()
