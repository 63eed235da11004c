"""BinlogFormat: everything about a binlog's format that layouts depend on (docs/design.md).

Flavor, server version, checksum algorithm and the FDE's post-header length table are data:
layouts are built from a frozen :class:`BinlogFormat` (cached per format). Presets follow
``docs/format.md`` §4 (MySQL 8.0: 41 entries, 8.4: 42) and
``docs/mariadb.md`` "FDE" (MariaDB 10.11: 171 entries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import IntEnum

from binlogwriter.errors import BinlogError
from binlogwriter.layouts.header import HEADER_SIZE

__all__ = ["BinlogFormat", "Checksum", "FLAVORS", "EventType", "flavor_family"]

FLAVORS = ("mysql80", "mysql84", "mariadb1011")


def flavor_family(flavor: str | None) -> str:
    """``"mariadb"`` for a MariaDB flavor (``mariadb1011``), else ``"mysql"`` (None too): the
    family whose rules apply (collation ids, Table_map metadata, ``###`` listing text)."""
    return "mariadb" if flavor and flavor.startswith("mariadb") else "mysql"


class Checksum(IntEnum):
    """FDE checksum algorithm byte (format.md §4)."""

    NONE = 0
    CRC32 = 1


class EventType(IntEnum):
    """Event type codes (format.md §4 table, mariadb.md "Events")."""

    UNKNOWN_EVENT = 0
    START_EVENT_V3 = 1
    QUERY_EVENT = 2
    STOP_EVENT = 3
    ROTATE_EVENT = 4
    INTVAR_EVENT = 5
    LOAD_EVENT = 6
    SLAVE_EVENT = 7
    CREATE_FILE_EVENT = 8
    APPEND_BLOCK_EVENT = 9
    EXEC_LOAD_EVENT = 10
    DELETE_FILE_EVENT = 11
    NEW_LOAD_EVENT = 12
    RAND_EVENT = 13
    USER_VAR_EVENT = 14
    FORMAT_DESCRIPTION_EVENT = 15
    XID_EVENT = 16
    BEGIN_LOAD_QUERY_EVENT = 17
    EXECUTE_LOAD_QUERY_EVENT = 18
    TABLE_MAP_EVENT = 19
    PRE_GA_WRITE_ROWS_EVENT = 20
    PRE_GA_UPDATE_ROWS_EVENT = 21
    PRE_GA_DELETE_ROWS_EVENT = 22
    WRITE_ROWS_EVENT_V1 = 23
    UPDATE_ROWS_EVENT_V1 = 24
    DELETE_ROWS_EVENT_V1 = 25
    INCIDENT_EVENT = 26
    HEARTBEAT_LOG_EVENT = 27
    IGNORABLE_LOG_EVENT = 28
    ROWS_QUERY_LOG_EVENT = 29
    WRITE_ROWS_EVENT = 30
    UPDATE_ROWS_EVENT = 31
    DELETE_ROWS_EVENT = 32
    GTID_LOG_EVENT = 33
    ANONYMOUS_GTID_LOG_EVENT = 34
    PREVIOUS_GTIDS_LOG_EVENT = 35
    TRANSACTION_CONTEXT_EVENT = 36
    VIEW_CHANGE_EVENT = 37
    XA_PREPARE_LOG_EVENT = 38
    PARTIAL_UPDATE_ROWS_EVENT = 39
    TRANSACTION_PAYLOAD_EVENT = 40
    HEARTBEAT_LOG_EVENT_V2 = 41
    GTID_TAGGED_LOG_EVENT = 42
    ANNOTATE_ROWS_EVENT = 160
    BINLOG_CHECKPOINT_EVENT = 161
    MARIADB_GTID_EVENT = 162
    MARIADB_GTID_LIST_EVENT = 163
    START_ENCRYPTION_EVENT = 164
    QUERY_COMPRESSED_EVENT = 165
    WRITE_ROWS_COMPRESSED_EVENT_V1 = 166
    UPDATE_ROWS_COMPRESSED_EVENT_V1 = 167
    DELETE_ROWS_COMPRESSED_EVENT_V1 = 168
    WRITE_ROWS_COMPRESSED_EVENT = 169
    UPDATE_ROWS_COMPRESSED_EVENT = 170
    DELETE_ROWS_COMPRESSED_EVENT = 171


# The members the readers compare with, as module names (issue 30): ``t == TABLE_MAP_EVENT``
# costs what ``t == 19`` does, ``t == EventType.TABLE_MAP_EVENT`` looks the member up on the
# class each time (8x; per event in the read loops). tests/test_event_type_names.py keeps
# bare integers out of event-type comparisons.
QUERY_EVENT = EventType.QUERY_EVENT
ROTATE_EVENT = EventType.ROTATE_EVENT
FORMAT_DESCRIPTION_EVENT = EventType.FORMAT_DESCRIPTION_EVENT
XID_EVENT = EventType.XID_EVENT
EXECUTE_LOAD_QUERY_EVENT = EventType.EXECUTE_LOAD_QUERY_EVENT
TABLE_MAP_EVENT = EventType.TABLE_MAP_EVENT
WRITE_ROWS_EVENT_V1 = EventType.WRITE_ROWS_EVENT_V1
UPDATE_ROWS_EVENT_V1 = EventType.UPDATE_ROWS_EVENT_V1
DELETE_ROWS_EVENT_V1 = EventType.DELETE_ROWS_EVENT_V1
ROWS_QUERY_LOG_EVENT = EventType.ROWS_QUERY_LOG_EVENT
WRITE_ROWS_EVENT = EventType.WRITE_ROWS_EVENT
UPDATE_ROWS_EVENT = EventType.UPDATE_ROWS_EVENT
DELETE_ROWS_EVENT = EventType.DELETE_ROWS_EVENT
GTID_LOG_EVENT = EventType.GTID_LOG_EVENT
ANONYMOUS_GTID_LOG_EVENT = EventType.ANONYMOUS_GTID_LOG_EVENT
PREVIOUS_GTIDS_LOG_EVENT = EventType.PREVIOUS_GTIDS_LOG_EVENT
XA_PREPARE_LOG_EVENT = EventType.XA_PREPARE_LOG_EVENT
PARTIAL_UPDATE_ROWS_EVENT = EventType.PARTIAL_UPDATE_ROWS_EVENT
TRANSACTION_PAYLOAD_EVENT = EventType.TRANSACTION_PAYLOAD_EVENT
GTID_TAGGED_LOG_EVENT = EventType.GTID_TAGGED_LOG_EVENT
ANNOTATE_ROWS_EVENT = EventType.ANNOTATE_ROWS_EVENT
BINLOG_CHECKPOINT_EVENT = EventType.BINLOG_CHECKPOINT_EVENT
MARIADB_GTID_EVENT = EventType.MARIADB_GTID_EVENT
MARIADB_GTID_LIST_EVENT = EventType.MARIADB_GTID_LIST_EVENT
QUERY_COMPRESSED_EVENT = EventType.QUERY_COMPRESSED_EVENT
WRITE_ROWS_COMPRESSED_EVENT_V1 = EventType.WRITE_ROWS_COMPRESSED_EVENT_V1
UPDATE_ROWS_COMPRESSED_EVENT_V1 = EventType.UPDATE_ROWS_COMPRESSED_EVENT_V1
DELETE_ROWS_COMPRESSED_EVENT_V1 = EventType.DELETE_ROWS_COMPRESSED_EVENT_V1
WRITE_ROWS_COMPRESSED_EVENT = EventType.WRITE_ROWS_COMPRESSED_EVENT
UPDATE_ROWS_COMPRESSED_EVENT = EventType.UPDATE_ROWS_COMPRESSED_EVENT
DELETE_ROWS_COMPRESSED_EVENT = EventType.DELETE_ROWS_COMPRESSED_EVENT

GTID_TYPES = frozenset((GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT, MARIADB_GTID_EVENT))
"""The events that begin a transaction with its GTID (MySQL's three, MariaDB's one)."""


def type_name(code: int) -> str:
    """The server's name of an event type code (``UNKNOWN_EVENT_<n>`` if not known)."""
    try:
        return EventType(code).name
    except ValueError:
        return f"UNKNOWN_EVENT_{code}"


# format.md §4: server_event_header_length[] of 8.0.26+ (41 entries) — type 40's entry is the
# frozen bug value 40; 8.4 (42 entries) zeroes the v1 rows entries and adds type 42.
_MYSQL80 = (0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0,
            10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0)
_MYSQL84 = (0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 99, 0, 4, 26, 8, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
            10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0, 0)


def _mariadb_table() -> tuple[int, ...]:
    # mariadb.md "FDE": non-zero entries of a real 10.11 FDE, all others 0.
    t = [0] * 171
    nonzero = {1: 56, 2: 13, 4: 8, 6: 18, 8: 4, 9: 4, 10: 4, 11: 4, 12: 18, 15: 228, 17: 4, 18: 26,
               19: 8, 23: 8, 24: 8, 25: 8, 26: 2, 30: 10, 31: 10, 32: 10, 39: 10, 40: 10, 41: 10,
               161: 4, 162: 19, 163: 4, 165: 13, 166: 8, 167: 8, 168: 8, 169: 10, 170: 10, 171: 10}
    for k, v in nonzero.items():
        t[k - 1] = v
    return tuple(t)


_MARIADB1011 = _mariadb_table()

_PRESETS = {
    "mysql80": ("8.0.36", _MYSQL80),
    "mysql84": ("8.4.3", _MYSQL84),
    "mariadb1011": ("10.11.19-MariaDB-log", _MARIADB1011),
}

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def version_tuple(server_version: str) -> tuple[int, int, int]:
    """``do_server_version_split``: the leading X.Y.Z of a server version (0s if absent)."""
    m = _VERSION_RE.match(server_version)
    if not m:
        return (0, 0, 0)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


@dataclass(frozen=True)
class BinlogFormat:
    """The format of one binlog file, as its FORMAT_DESCRIPTION_EVENT declares it.

    ``post_header_lengths[i]`` is the post-header length of event type ``i + 1``.
    """

    flavor: str
    server_version: str
    checksum: Checksum = Checksum.CRC32
    post_header_lengths: tuple[int, ...] = field(default=_MYSQL80, repr=False)
    binlog_version: int = 4
    common_header_length: int = HEADER_SIZE

    def __post_init__(self) -> None:
        if self.flavor not in FLAVORS:
            raise BinlogError(f"unknown flavor {self.flavor!r}; expected one of {', '.join(FLAVORS)}")
        object.__setattr__(self, "checksum", Checksum(self.checksum))
        object.__setattr__(self, "post_header_lengths", tuple(self.post_header_lengths))

    # presets -----------------------------------------------------------------------------
    @classmethod
    def preset(cls, flavor: str, *, checksum: Checksum | str | int = Checksum.CRC32,
               server_version: str | None = None) -> BinlogFormat:
        """``mysql80`` (8.0.36, 41 post-header lengths), ``mysql84`` (8.4.x, 42),
        ``mariadb1011`` (10.11.x, 171)."""
        if flavor not in _PRESETS:
            raise BinlogError(f"unknown flavor {flavor!r}; expected one of {', '.join(FLAVORS)}")
        version, table = _PRESETS[flavor]
        if isinstance(checksum, str):
            try:
                checksum = Checksum[checksum.upper()]
            except KeyError:
                raise BinlogError(f"unknown checksum {checksum!r}; expected CRC32 or NONE") from None
        return cls(flavor, server_version or version, Checksum(checksum), table)

    @classmethod
    def mysql80(cls, checksum: Checksum | str | int = Checksum.CRC32) -> BinlogFormat:
        return cls.preset("mysql80", checksum=checksum)

    @classmethod
    def mysql84(cls, checksum: Checksum | str | int = Checksum.CRC32) -> BinlogFormat:
        return cls.preset("mysql84", checksum=checksum)

    @classmethod
    def mariadb1011(cls, checksum: Checksum | str | int = Checksum.CRC32) -> BinlogFormat:
        return cls.preset("mariadb1011", checksum=checksum)

    @classmethod
    def from_fde(cls, fde: object) -> BinlogFormat:
        """The format a FORMAT_DESCRIPTION event (decoded ``FormatDescriptionEvent``) declares.

        The flavor is MariaDB when the server version says ``-MariaDB`` or the table has more
        than 100 entries (mariadb.md checklist 1); MySQL 8.3+ maps to ``mysql84``; every other
        MySQL (5.x included) to ``mysql80``.
        """
        version: str = fde.server_version  # type: ignore[attr-defined]
        table = tuple(fde.post_header_lengths)  # type: ignore[attr-defined]
        alg = fde.checksum_alg  # type: ignore[attr-defined]
        if "mariadb" in version.lower() or len(table) > 100:
            flavor = "mariadb1011"
        elif version_tuple(version) >= (8, 3, 0):
            flavor = "mysql84"
        else:
            flavor = "mysql80"
        checksum = Checksum.CRC32 if alg == 1 else Checksum.NONE
        return cls(flavor, version, checksum, table, fde.binlog_version,  # type: ignore[attr-defined]
                   fde.header_length)  # type: ignore[attr-defined]

    def with_checksum(self, checksum: Checksum | int) -> BinlogFormat:
        return replace(self, checksum=Checksum(checksum))

    # derived -----------------------------------------------------------------------------
    @property
    def is_mariadb(self) -> bool:
        return self.flavor == "mariadb1011"

    @property
    def has_checksum_alg(self) -> bool:
        """Whether the FDE carries the checksum-alg byte and checksum field (version ≥ 5.6.1)."""
        return version_tuple(self.server_version) >= (5, 6, 1)

    @property
    def footer_size(self) -> int:
        """CRC32 footer bytes on events other than the FDE."""
        return 4 if self.checksum == Checksum.CRC32 else 0

    def post_header_len(self, type_code: int) -> int:
        """Post-header length of ``type_code`` from the FDE table (0 beyond the table)."""
        if 1 <= type_code <= len(self.post_header_lengths):
            return self.post_header_lengths[type_code - 1]
        return 0

    @property
    def table_id_size(self) -> int:
        """6, or 4 for a pre-5.1.4 6-byte TABLE_MAP post-header (format.md §12)."""
        return 4 if self.post_header_len(TABLE_MAP_EVENT) == 6 else 6

    @property
    def rows_version(self) -> int:
        """Rows event version this writer emits: 2 for MySQL (30–32), 1 for MariaDB (23–25)."""
        return 1 if self.is_mariadb else 2

    @property
    def server_version_number(self) -> int:
        """``80036`` for 8.0.36: the GTID event's immediate_server_version."""
        x, y, z = version_tuple(self.server_version)
        return x * 10000 + y * 100 + z

    def __reduce__(self):
        # Layouts are cached by format; a format pickles as its parameters.
        return (BinlogFormat, (self.flavor, self.server_version, int(self.checksum),
                               self.post_header_lengths, self.binlog_version, self.common_header_length))
