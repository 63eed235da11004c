"""The server variables a connection can read (part of binlogwriter/serve/queries.py):
``@@version``, ``@@server_id``, ``@@gtid_mode``, the binlog settings, … computed from the
served files and the server's identity on demand."""

from __future__ import annotations

from typing import Any

from binlogwriter.gtids import MariadbState, MysqlGtidSet
from binlogwriter.serve.protocol import MAX_ALLOWED_PACKET
from binlogwriter.serve.query_errors import ER_UNKNOWN_SYSTEM_VARIABLE, QueryError

JDBC_SESSION_DEFAULTS: dict[str, object] = {
    "auto_increment_increment": 1,
    "auto_increment_offset": 1,
    "init_connect": "",
    "query_cache_size": 0,
    "query_cache_type": "OFF",
}
"""Server defaults (MySQL reference manual "Server System Variables") that MySQL Connector/J
reads in one ``SELECT @@session.auto_increment_increment AS …, @@init_connect …`` right after
its login (Debezium's JDBC connection): the values of a server left at its defaults."""


class VariablesMixin:
    """:class:`~binlogwriter.serve.queries.Answerer`'s variables."""

    # ------------------------------------------------------------------------- variables
    def variables(self) -> dict[str, object]:
        """Every variable by name: the server's identity and settings, the defaults clients
        read, then the flavor's GTID state at the end of the served files."""
        bs = self.binlogs
        maria = bs.is_mariadb
        mysql_set, maria_state, uuid = bs.end_state()
        version = bs.server_version
        v: dict[str, object] = {
            "version": version,
            "version_comment": "binlogwriter serve",
            "version_compile_os": "Linux",
            "server_id": bs.server_id,
            "server_uuid": self.ident.server_uuid,
            "port": self.ident.port,
            "hostname": self.ident.hostname,
            "log_bin": "ON",
            "log_bin_basename": "binlog",
            "binlog_format": "ROW",
            "binlog_row_image": self.ident.row_image,
            "binlog_row_metadata": self.ident.row_metadata,
            "binlog_checksum": bs.checksum_name,
            "master_verify_checksum": "OFF",
            "binlog_transaction_compression": "OFF",
            "log_slave_updates": "ON",
            "log_replica_updates": "ON",
            "server_id_bits": 32,
            "character_set_server": "utf8mb4",
            "character_set_client": "utf8mb4",
            "character_set_connection": "utf8mb4",
            "character_set_results": "utf8mb4",
            "character_set_database": "utf8mb4",
            "collation_server": "utf8mb4_general_ci" if maria else "utf8mb4_0900_ai_ci",
            "collation_connection": "utf8mb4_general_ci",
            "lower_case_table_names": 0,
            "max_allowed_packet": MAX_ALLOWED_PACKET,
            "max_connections": self.ident.max_connections,
            "connect_timeout": round(self.ident.connect_timeout),
            "net_write_timeout": 60,
            "net_read_timeout": 30,
            "wait_timeout": 28800,
            "interactive_timeout": 28800,
            "time_zone": "SYSTEM",
            "system_time_zone": "UTC",
            "sql_mode": "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
            "autocommit": 1,
            "read_only": "ON",
            "transaction_isolation": "REPEATABLE-READ",
            "tx_isolation": "REPEATABLE-READ",
            "performance_schema": "OFF",
            "rpl_semi_sync_master_enabled": "OFF",
            "license": "GPL",
        }
        v.update(JDBC_SESSION_DEFAULTS)
        v.update(_mariadb_gtid_variables(maria_state) if maria else _mysql_gtid_variables(bs, mysql_set, uuid))
        return v

    def sysvar(self, name: str) -> object:
        name = name.lower()
        for prefix in ("global.", "session.", "local."):
            if name.startswith(prefix):
                name = name[len(prefix) :]
        v = self.variables()
        if name not in v:
            raise QueryError(ER_UNKNOWN_SYSTEM_VARIABLE, f"Unknown system variable '{name}'")
        return v[name]


def _mariadb_gtid_variables(maria_state: MariadbState) -> dict[str, object]:
    """MariaDB's GTID variables: every position is the served files' end state."""
    binlog_pos = maria_state.text()
    return {
        "gtid_domain_id": 0,
        "gtid_binlog_pos": binlog_pos,
        "gtid_binlog_state": binlog_pos,
        "gtid_current_pos": binlog_pos,
        "gtid_slave_pos": "",
        "gtid_strict_mode": 0,
        "gtid_ignore_duplicates": 0,
        "binlog_annotate_row_events": "ON",
        "log_bin_compress": "OFF",
    }


def _mysql_gtid_variables(bs: Any, mysql_set: MysqlGtidSet, uuid: str | None) -> dict[str, object]:
    """MySQL's GTID variables. GTIDs are on when the served events carry them: a generated
    stream (generated.py) knows its UUID before any GTID is sent, while its executed set is
    still empty."""
    gtids = bool(mysql_set) or uuid is not None
    return {
        "gtid_mode": "ON" if gtids else "OFF",
        "enforce_gtid_consistency": "ON" if gtids else "OFF",
        "gtid_executed": mysql_set.text(),
        "gtid_purged": bs.first.start_mysql.text(),
        "binlog_gtid_simple_recovery": "ON",
        "binlog_rows_query_log_events": "OFF",
        "transaction_write_set_extraction": "XXHASH64",
    }
