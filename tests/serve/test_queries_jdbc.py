"""What Debezium's MySQL connector (3.6) and its JDBC driver, MySQL Connector/J 9.1, send to
``binlogwriter serve`` before and while they stream, answered as a server answers them
(binlogwriter/serve/variables.py ``JDBC_SESSION_DEFAULTS``, queries_catalog.py, queries.py).
The statements are the ones Connector/J and Debezium sent in the conformance runs
(tests/conformance/consumers/debezium); the expected values are MySQL's defaults and the
server's error codes, written out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.queries import Identity, answer
from binlogwriter.serve.session import Session

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

CONNECTOR_J_STARTUP = (
    "/* mysql-connector-j-9.1.0 (Revision: cf2917ea44ae2e43a4514a33771035aa99de73bf) */SELECT  "
    "@@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS "
    "character_set_client, @@character_set_connection AS character_set_connection, "
    "@@character_set_results AS character_set_results, @@character_set_server AS character_set_server, "
    "@@collation_server AS collation_server, @@collation_connection AS collation_connection, "
    "@@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, "
    "@@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, "
    "@@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, "
    "@@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, "
    "@@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout"
)


@pytest.fixture(scope="module")
def binlogs() -> BinlogSet:
    return BinlogSet([SAMPLES / "mysql80-full-full-ecommerce"])


def _answer(binlogs: BinlogSet, sql: str) -> list[bytes]:
    return answer(binlogs, Identity("3e11fa47-71ca-11e1-9e33-c80aa9429562"), Session(1, "127.0.0.1"), sql)


def _lenenc(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    first = buf[pos]
    if first == 0xFB:
        return None, pos + 1
    if first < 0xFB:
        n, pos = first, pos + 1
    else:
        width = {0xFC: 2, 0xFD: 3, 0xFE: 8}[first]
        n, pos = int.from_bytes(buf[pos + 1 : pos + 1 + width], "little"), pos + 1 + width
    return buf[pos : pos + n], pos + n


def _result(resp: list[bytes]) -> tuple[list[str], list[list[str | None]]]:
    """(column names, rows) of a text result set (protocol: count, definitions, EOF, rows, EOF)."""
    assert resp[0][:1] not in (b"\xff", b"\x00"), resp[0]
    count = resp[0][0]
    names = []
    for d in resp[1 : 1 + count]:
        pos = 0
        fields = []
        for _ in range(5):  # catalog, schema, table, org_table, name
            value, pos = _lenenc(d, pos)
            fields.append(value)
        names.append(fields[4].decode())
    assert resp[1 + count][:1] == b"\xfe"  # EOF after the definitions
    rows = []
    for r in resp[2 + count : -1]:
        pos, row = 0, []
        for _ in range(count):
            value, pos = _lenenc(r, pos)
            row.append(None if value is None else value.decode())
        rows.append(row)
    return names, rows


def _error(resp: list[bytes]) -> tuple[int, str]:
    assert resp[0][:1] == b"\xff", resp[0]
    return int.from_bytes(resp[0][1:3], "little"), resp[0][9:].decode()


def test_connector_j_startup_select_gets_server_defaults(binlogs: BinlogSet) -> None:
    names, rows = _result(_answer(binlogs, CONNECTOR_J_STARTUP))
    got = dict(zip(names, rows[0], strict=True))
    assert len(names) == 19
    assert got["auto_increment_increment"] == "1"  # MySQL's default
    assert got["init_connect"] == ""  # none set
    assert got["max_allowed_packet"].isdigit()
    assert got["transaction_isolation"] == "REPEATABLE-READ"


@pytest.mark.parametrize("name", ["auto_increment_increment", "auto_increment_offset"])
def test_auto_increment_variables(binlogs: BinlogSet, name: str) -> None:
    names, rows = _result(_answer(binlogs, f"SHOW GLOBAL VARIABLES LIKE '{name}'"))
    assert rows == [[name, "1"]]


def test_debezium_snapshot_schemata_query_has_no_rows(binlogs: BinlogSet) -> None:
    """Debezium's readDatabaseCollations: serve lists no databases, so no rows, with the
    selected column names."""
    names, rows = _result(_answer(binlogs, "SELECT schema_name, default_character_set_name, "
                                           "default_collation_name FROM information_schema.schemata"))
    assert names == ["schema_name", "default_character_set_name", "default_collation_name"]
    assert rows == []
    names, rows = _result(_answer(binlogs, "SELECT t.TABLE_NAME AS n, COUNT(*) FROM `INFORMATION_SCHEMA`.`TABLES` t"))
    assert names[0] == "n" and rows == []
    assert _result(_answer(binlogs, "SHOW DATABASES"))[1] == []


def test_unknown_information_schema_table_is_the_servers_error(binlogs: BinlogSet) -> None:
    assert _error(_answer(binlogs, "SELECT a FROM information_schema.no_such_table")) == (
        1109, "Unknown table 'NO_SUCH_TABLE' in information_schema")
    # `*` would need the server's own column definitions: refused, as other tables are
    assert _error(_answer(binlogs, "SELECT * FROM information_schema.columns"))[0] == 1146
    # other tables still have none
    assert _error(_answer(binlogs, "SELECT a FROM test.orders"))[0] == 1146


@pytest.mark.parametrize("sql", ["FLUSH TABLES WITH READ LOCK", "UNLOCK TABLES", "LOCK TABLES t READ",
                                 "START TRANSACTION WITH CONSISTENT SNAPSHOT",
                                 "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                                 "SET SESSION lock_wait_timeout=10"])
def test_snapshot_statements_are_accepted(binlogs: BinlogSet, sql: str) -> None:
    """A Debezium snapshot's locking statements: OK (serve has nothing to lock)."""
    assert _answer(binlogs, sql)[0][:1] == b"\x00"


# ------------------------------------------------------------------------- GTID functions

U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562"


def _value(binlogs: BinlogSet, sql: str) -> str | None:
    return _result(_answer(binlogs, sql))[1][0][0]


def test_gtid_subtract_as_debezium_asks_it_on_restart(binlogs: BinlogSet) -> None:
    assert _value(binlogs, f"SELECT GTID_SUBTRACT('{U1}:1-46', '{U1}:1-15')") == f"{U1}:16-46"
    assert _value(binlogs, f"SELECT GTID_SUBTRACT('{U1}:1-46,{U2}:5', '{U1}:3-15:20')") == (
        f"{U1}:1-2:16-19:21-46,\n{U2}:5")
    assert _value(binlogs, f"SELECT GTID_SUBTRACT('{U1}:1-5', '{U1}:1-5')") == ""
    assert _value(binlogs, f"SELECT GTID_SUBTRACT(NULL, '{U1}:1')") is None
    assert _value(binlogs, f"SELECT GTID_SUBSET('{U1}:2', '{U1}:1-15') AS s") == "1"
    assert _value(binlogs, f"SELECT GTID_SUBSET('{U1}:2,{U2}:1', '{U1}:1-15')") == "0"
    assert _error(_answer(binlogs, "SELECT GTID_SUBTRACT('x', '')")) == (
        1772, "Malformed GTID set specification 'x'.")
    assert _error(_answer(binlogs, f"SELECT GTID_SUBTRACT('{U1}:1')"))[0] == 1582


def test_mariadb_has_no_gtid_subtract() -> None:
    maria = BinlogSet([SAMPLES / "mariadb1011-full-full-ecommerce"])
    assert _error(_answer(maria, "SELECT GTID_SUBTRACT('', '')")) == (1305, "FUNCTION gtid_subtract does not exist")


_intervals = st.lists(st.tuples(st.integers(1, 60), st.integers(0, 8)), max_size=6)


@given(a=st.dictionaries(st.sampled_from([U1, U2]), _intervals), b=st.dictionaries(st.sampled_from([U1, U2]), _intervals))
@settings(max_examples=300, deadline=None)
def test_gtid_subtract_is_set_difference(a: dict, b: dict) -> None:
    """GTID_SUBTRACT over interval lists equals the difference of the sets of (uuid, gno) they
    name, enumerated one GTID at a time."""
    from binlogwriter.gtids import MysqlGtidSet

    def build(d: dict) -> tuple[MysqlGtidSet, set]:
        s, names = MysqlGtidSet(), set()
        for uuid, ivs in d.items():
            for start, length in ivs:
                s.add_interval(uuid, "", start, start + length + 1)
                names |= {(uuid, g) for g in range(start, start + length + 1)}
        return s, names

    (sa, na), (sb, nb) = build(a), build(b)
    got = sa.difference(sb)
    got_names = {(u, g) for (u, _t), ivs in got.sids.items() for x, y in ivs for g in range(x, y)}
    assert got_names == na - nb
    assert all(ivs for ivs in got.sids.values())
    for ivs in got.sids.values():  # sorted, disjoint, not touching (merged)
        assert all(ivs[k][1] < ivs[k + 1][0] for k in range(len(ivs) - 1))


# ------------------------------------------------------------------------- gtid_mode of a generated stream

@pytest.mark.parametrize(("gtid", "mode"), [(U1, "ON"), ("anonymous", "OFF")])
def test_generated_stream_reports_the_gtid_mode_its_events_have(tmp_path: Path, gtid: str, mode: str) -> None:
    """``serve --generate``: no GTID is executed before the first dump, yet the stream's
    transactions carry GTIDs unless the spec says anonymous, so @@gtid_mode is ON (Debezium
    reads it to decide between a GTID dump and a position dump, and to fill source.gtid)."""
    from binlogwriter.serve.generated import GeneratedBinlogs

    spec = tmp_path / "spec.yaml"
    spec.write_text(f"flavor: mysql80\nworkload: ecommerce\ntransactions: 5\ninitial_rows: 2\ngtid: {gtid}\n")
    gb = GeneratedBinlogs(spec, None)
    assert _result(_answer(gb, "SHOW GLOBAL VARIABLES LIKE 'gtid_mode'"))[1] == [["gtid_mode", mode]]
    assert _result(_answer(gb, "SHOW GLOBAL VARIABLES LIKE 'enforce_gtid_consistency'"))[1] == [
        ["enforce_gtid_consistency", mode]]
    assert _value(gb, "SELECT @@gtid_executed") == ""  # nothing streamed yet
