"""QUERY (2), EXECUTE_LOAD_QUERY (18) and MariaDB QUERY_COMPRESSED (165): format.md §9,
§17; status variables §9.1 plus MariaDB codes 128–130 (mariadb.md "Query events").

Status variables are a list of (code, value) in written order; a code this declaration does
not know ends the list and the rest is kept as raw bytes under code ``None`` (a server's
decoder stops there too), so the event still re-encodes exactly.
"""

from __future__ import annotations

import construct as cs
from construct import this

from binlogwriter.layouts.primitives import SText

Q_FLAGS2_CODE = 0
Q_SQL_MODE_CODE = 1
Q_CATALOG_CODE = 2
Q_AUTO_INCREMENT = 3
Q_CHARSET_CODE = 4
Q_TIME_ZONE_CODE = 5
Q_CATALOG_NZ_CODE = 6
Q_LC_TIME_NAMES_CODE = 7
Q_CHARSET_DATABASE_CODE = 8
Q_TABLE_MAP_FOR_UPDATE_CODE = 9
Q_MASTER_DATA_WRITTEN_CODE = 10
Q_INVOKER = 11
Q_UPDATED_DB_NAMES = 12
Q_MICROSECONDS = 13
Q_COMMIT_TS = 14
Q_COMMIT_TS2 = 15
Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP = 16
Q_DDL_LOGGED_WITH_XID = 17
Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18
Q_SQL_REQUIRE_PRIMARY_KEY = 19
Q_DEFAULT_TABLE_ENCRYPTION = 20
Q_HRNOW = 128
Q_XID = 129
Q_GTID_FLAGS3 = 130

STATUS_VAR_NAMES = {
    0: "Q_FLAGS2_CODE", 1: "Q_SQL_MODE_CODE", 2: "Q_CATALOG_CODE", 3: "Q_AUTO_INCREMENT",
    4: "Q_CHARSET_CODE", 5: "Q_TIME_ZONE_CODE", 6: "Q_CATALOG_NZ_CODE", 7: "Q_LC_TIME_NAMES_CODE",
    8: "Q_CHARSET_DATABASE_CODE", 9: "Q_TABLE_MAP_FOR_UPDATE_CODE", 10: "Q_MASTER_DATA_WRITTEN_CODE",
    11: "Q_INVOKER", 12: "Q_UPDATED_DB_NAMES", 13: "Q_MICROSECONDS", 14: "Q_COMMIT_TS",
    15: "Q_COMMIT_TS2", 16: "Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP", 17: "Q_DDL_LOGGED_WITH_XID",
    18: "Q_DEFAULT_COLLATION_FOR_UTF8MB4", 19: "Q_SQL_REQUIRE_PRIMARY_KEY",
    20: "Q_DEFAULT_TABLE_ENCRYPTION", 128: "Q_HRNOW", 129: "Q_XID", 130: "Q_GTID_FLAGS3",
}

_Str8 = SText(cs.Prefixed(cs.Int8ul, cs.GreedyBytes))

# Q_UPDATED_DB_NAMES: count; 254 (OVER_MAX_DBS_IN_EVENT_MTS) means no names follow.
_UpdatedDbs = cs.Struct(
    "_count" / cs.Rebuild(cs.Int8ul, lambda c: 254 if c.names is None else len(c.names)),
    "names" / cs.If(this._count != 254, cs.Array(this._count, SText(cs.NullTerminated(cs.GreedyBytes)))),
)

_GtidFlags3 = cs.Struct(
    "flags3" / cs.Int8ul,
    "sa_seq_no" / cs.If(lambda c: c.flags3 & (4 | 8), cs.Int64ul),
)

STATUS_VAR_VALUES = {
    Q_FLAGS2_CODE: cs.Int32ul,
    Q_SQL_MODE_CODE: cs.Int64ul,
    Q_AUTO_INCREMENT: cs.Struct("increment" / cs.Int16ul, "offset" / cs.Int16ul),
    Q_CHARSET_CODE: cs.Struct("client" / cs.Int16ul, "connection" / cs.Int16ul, "server" / cs.Int16ul),
    Q_TIME_ZONE_CODE: _Str8,
    Q_CATALOG_NZ_CODE: _Str8,
    Q_LC_TIME_NAMES_CODE: cs.Int16ul,
    Q_CHARSET_DATABASE_CODE: cs.Int16ul,
    Q_TABLE_MAP_FOR_UPDATE_CODE: cs.Int64ul,
    Q_MASTER_DATA_WRITTEN_CODE: cs.Int32ul,
    Q_INVOKER: cs.Struct("user" / _Str8, "host" / _Str8),
    Q_UPDATED_DB_NAMES: _UpdatedDbs,
    Q_MICROSECONDS: cs.Int24ul,
    Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP: cs.Int8ul,
    Q_DDL_LOGGED_WITH_XID: cs.Int64ul,
    Q_DEFAULT_COLLATION_FOR_UTF8MB4: cs.Int16ul,
    Q_SQL_REQUIRE_PRIMARY_KEY: cs.Int8ul,
    Q_DEFAULT_TABLE_ENCRYPTION: cs.Int8ul,
    Q_HRNOW: cs.Int24ul,
    Q_XID: cs.Int64ul,
    Q_GTID_FLAGS3: _GtidFlags3,
}
# Q_CATALOG_CODE (5.0.0–5.0.3 only): length byte, name, NUL.
STATUS_VAR_VALUES[Q_CATALOG_CODE] = cs.Struct(
    "_len" / cs.Rebuild(cs.Int8ul, lambda c: len(c.name.encode())),
    "name" / SText(cs.Bytes(this._len)), cs.Const(b"\0"))

StatusVar = cs.Struct(
    "code" / cs.Int8ul,
    "value" / cs.Switch(this.code, STATUS_VAR_VALUES, default=cs.GreedyBytes),
)
"""One status variable; an unknown code swallows the rest of the block as raw bytes."""

class _StatusVars(cs.Construct):
    """The status-variable block: variables in written order; bytes that do not parse as one
    more variable (a known code cut short, a value that would not build back to its bytes)
    are kept raw as a last ``(None, bytes)`` entry, so the block re-encodes exactly."""

    def _parse(self, stream, context, path):
        data = cs.stream_read_entire(stream, path)
        out = cs.ListContainer()
        pos = 0
        while pos < len(data):
            try:
                sv = StatusVar.parse(data[pos:])
                size = len(StatusVar.build(sv))
                if size == 0 or data[pos:pos + size] != StatusVar.build(sv):
                    raise cs.ConstructError("status variable does not build back to its bytes")
            except (cs.ConstructError, ValueError, UnicodeError, OverflowError, TypeError, KeyError):
                out.append(cs.Container(code=None, value=bytes(data[pos:])))
                break
            out.append(sv)
            pos += size
        return out

    def _build(self, obj, stream, context, path):
        for sv in obj:
            if sv["code"] is None:
                v = bytes(sv["value"])
                cs.stream_write(stream, v, len(v), path)
            else:
                StatusVar._build(sv, stream, context, path)
        return obj

    def _sizeof(self, context, path):
        raise cs.SizeofError("status variables have variable size", path=path)


StatusVars = _StatusVars()


def _status_len(ctx) -> int:
    return len(StatusVars.build(ctx.status_vars))


QUERY_POST_HEADER = [
    "thread_id" / cs.Int32ul,
    "exec_time" / cs.Int32ul,
    "_db_len" / cs.Rebuild(cs.Int8ul, lambda c: len(c.db.encode("utf-8", "surrogateescape"))),
    "error_code" / cs.Int16ul,
    "_status_vars_len" / cs.Rebuild(cs.Int16ul, _status_len),
]
QUERY_BODY = [
    "status_vars" / cs.FixedSized(this._status_vars_len, StatusVars),
    "db" / SText(cs.Bytes(this._db_len)),
    cs.Const(b"\0"),
    "query" / SText(cs.GreedyBytes),
]
QUERY_FIELDS = QUERY_POST_HEADER + QUERY_BODY

EXECUTE_LOAD_QUERY_FIELDS = QUERY_POST_HEADER + [
    "file_id" / cs.Int32ul,
    "fn_pos_start" / cs.Int32ul,
    "fn_pos_end" / cs.Int32ul,
    "dup_handling" / cs.Int8ul,
] + QUERY_BODY

# MariaDB QUERY_COMPRESSED: same layout; ``query`` holds the compressed blob (mariadb.md
# "Compression"); binlogwriter.events exposes the text.
QUERY_COMPRESSED_FIELDS = QUERY_POST_HEADER + QUERY_BODY[:-1] + ["query" / cs.GreedyBytes]
