"""The MySQL GTID functions a replication client evaluates on the source (part of
binlogwriter/serve/queries.py): ``GTID_SUBTRACT(set1, set2)`` and ``GTID_SUBSET(set1, set2)``
(MySQL reference manual "Functions Used with Global Transaction Identifiers").

Debezium's MySQL connector sends ``SELECT GTID_SUBTRACT(?, ?)`` (``MySqlConnection.
subtractGtidSet``) when it restarts from stored offsets, to find the GTIDs the server has that
its offsets lack. As in MySQL: a NULL argument gives NULL, a malformed set is
ER_MALFORMED_GTID_SET_SPECIFICATION (1772), the result's text is the server's (``uuid:a-b``
per UUID, ``,\\n`` between UUIDs). MariaDB has neither function (ER_SP_DOES_NOT_EXIST, 1305).
"""

from __future__ import annotations

from binlogwriter.gtids import GtidParseError, MysqlGtidSet
from binlogwriter.serve.query_errors import QueryError

__all__ = ["GTID_FUNCTIONS", "gtid_function"]

ER_SP_DOES_NOT_EXIST = 1305
ER_WRONG_PARAMCOUNT = 1582
ER_MALFORMED_GTID_SET_SPECIFICATION = 1772

GTID_FUNCTIONS = frozenset({"GTID_SUBTRACT", "GTID_SUBSET"})


def _set(value: object) -> MysqlGtidSet:
    text = str(value)
    try:
        return MysqlGtidSet.from_text(text)
    except GtidParseError:
        raise QueryError(ER_MALFORMED_GTID_SET_SPECIFICATION,
                         f"Malformed GTID set specification '{text[:200]}'.") from None


def gtid_function(name: str, args: list[object], *, mariadb: bool) -> object:
    """The value of ``name(args)`` (``name`` upper-case, one of :data:`GTID_FUNCTIONS`)."""
    if mariadb:
        raise QueryError(ER_SP_DOES_NOT_EXIST, f"FUNCTION {name.lower()} does not exist", "42000")
    if len(args) != 2:
        raise QueryError(ER_WRONG_PARAMCOUNT,
                         f"Incorrect parameter count in the call to native function '{name.lower()}'", "42000")
    if args[0] is None or args[1] is None:
        return None
    a, b = _set(args[0]), _set(args[1])
    if name == "GTID_SUBTRACT":
        return a.difference(b).text()
    return 1 if a.issubset(b) else 0
