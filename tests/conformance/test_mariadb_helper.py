"""The throwaway-server helper itself (mariadb.py): start/stop, clients, replay, canonical dumps."""

from __future__ import annotations

import os

import pytest

from .corpus import scan
from .mariadb import MariaDBError, MariaDBMissing, MariaDBServer, find_binary

pytestmark = pytest.mark.conformance

WORKLOAD = """
CREATE DATABASE d;
USE d;
CREATE TABLE t (id INT PRIMARY KEY, f FLOAT, dbl DOUBLE, b BIT(10), dec1 DECIMAL(6,3), dt DATETIME(6),
                ts TIMESTAMP(2) NULL, c CHAR(5), vb VARBINARY(8), g POINT, y YEAR, s VARCHAR(10));
INSERT INTO t VALUES
  (1, 0.1, 0.1, b'1010101010', -1.5, '2024-02-29 12:34:56.789', '2038-01-19 03:14:07.5', 'ab  ',
   x'00FF', POINT(1, 2), 2024, 'NULL'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, -2.5, 1e300, b'1', 0, '0000-00-00 00:00:00', '1970-01-01 00:00:01', 'é', x'', NULL, 1901, '10');
UPDATE t SET s = 'x' WHERE id = 2;
DELETE FROM t WHERE id = 3;
"""

EXPECTED_ROWS = [
    (1, 0.10000000149011612, 0.1, 682, "-1.500", "2024-02-29 12:34:56.789000", "2038-01-19 03:14:07.50",
     "ab", "0x00ff", "0x000000000101000000000000000000f03f0000000000000040", 2024, "NULL"),
    (2, None, None, None, None, None, None, None, None, None, None, "x"),
]


def test_query_tells_null_from_the_string_null(mariadb_server_factory) -> None:
    server = mariadb_server_factory()
    assert server.query("SELECT NULL, 'NULL', 1, ''") == [(None, "NULL", "1", "")]


def test_dump_table_gives_the_canonical_row_form(mariadb_server_factory) -> None:
    server = mariadb_server_factory()
    server.execute(WORKLOAD)
    assert server.dump_table("d", "t") == EXPECTED_ROWS


def test_dump_table_orders_null_before_numbers_before_strings(mariadb_server_factory) -> None:
    server = mariadb_server_factory()
    server.execute("CREATE DATABASE d; CREATE TABLE d.o (a INT, s VARCHAR(5) COLLATE utf8mb4_general_ci);"
                   "INSERT INTO d.o VALUES (2, 'b'), (NULL, 'B'), (10, 'a'), (2, 'B'), (2, NULL);")
    assert server.dump_table("d", "o") == [(None, "B"), (2, None), (2, "B"), (2, "b"), (10, "a")]


def test_replay_rebuilds_the_tables_in_another_server(mariadb_server_factory, tmp_path) -> None:
    source = mariadb_server_factory(row_metadata="NO_LOG", row_image="MINIMAL")
    source.execute(WORKLOAD)
    source.flush_logs()
    source.execute("INSERT INTO d.t (id, s) VALUES (4, 'after');")
    source.shutdown()
    files = source.copy_binlogs(tmp_path)
    assert [f.name for f in files] == ["binlog.000001", "binlog.000002"]
    assert (tmp_path / "binlog.index").read_text() == "./binlog.000001\n./binlog.000002\n"
    found = scan(files)
    assert found.last_types == [4, 3]  # ROTATE, then STOP after the clean shutdown

    target = mariadb_server_factory()
    target.replay(files)
    assert target.dump_table("d", "t") == EXPECTED_ROWS + [(4,) + (None,) * 10 + ("after",)]


def test_replay_reports_a_failure_with_stderr(mariadb_server_factory, tmp_path) -> None:
    bad = tmp_path / "binlog.000001"
    bad.write_bytes(b"\xfebin" + b"\x00" * 40)
    server = mariadb_server_factory()
    with pytest.raises(MariaDBError, match="mariadb-binlog exited"):
        server.replay([bad])


def test_execute_raises_with_the_client_error(mariadb_server_factory) -> None:
    server = mariadb_server_factory()
    with pytest.raises(MariaDBError, match="ERROR 1146"):
        server.execute("SELECT * FROM mysql.no_such_table;")


def test_server_options_reach_the_server(mariadb_server_factory) -> None:
    server = mariadb_server_factory(row_metadata="MINIMAL", row_image="NOBLOB", annotate=False,
                                    checksum="NONE", row_event_max_size=16384, compress=True,
                                    binlog_format="MIXED", extra_args=["--max-binlog-size=1M"])
    # binlog_row_event_max_size is a startup option only (no system variable): mariadbd would
    # not have started had it refused it.
    assert server.query(
        "SELECT @@binlog_row_metadata, @@binlog_row_image, @@binlog_annotate_row_events, "
        "@@binlog_checksum, @@log_bin_compress, @@binlog_format, "
        "@@max_binlog_size, @@bind_address, @@time_zone, @@character_set_server"
    ) == [("MINIMAL", "NOBLOB", "0", "NONE", "1", "MIXED", "1048576", "127.0.0.1", "+00:00",
           "utf8mb4")]


def test_server_stops_when_the_with_block_fails(mariadb_template) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        with MariaDBServer(mariadb_template) as server:
            pid = server._proc.pid
            base = server.base
            raise RuntimeError("boom")
    assert not server.running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not base.exists()


def test_start_failure_shows_the_error_log(mariadb_template) -> None:
    server = MariaDBServer(mariadb_template, extra_args=["--no-such-option-for-mariadbd"])
    with pytest.raises(MariaDBError, match="no-such-option-for-mariadbd"):
        server.start()
    assert not server.running


def test_a_missing_program_says_to_run_ci_run() -> None:
    with pytest.raises(MariaDBMissing, match=r"\.ci/run"):
        find_binary("mariadbd-that-does-not-exist")
