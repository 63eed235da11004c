"""Debezium's MySQL connector as a consumer of ``binlogwriter serve`` (issue #31 §4).

The harness (pom.xml, ``DebeziumDump.java``) runs io.debezium:debezium-connector-mysql
3.6.1.Final in Debezium's embedded engine (Java 17, artifacts from Maven Central) against the
served endpoint and prints one JSON line per data change record, as Kafka Connect's
JsonConverter writes it with schemas enabled. This module builds the harness once
(:func:`ensure_built`), runs it (:func:`decode`) and turns each record into the change model of
issue #31 §1 with natural Python values.

Connector configuration (every mode set explicitly, so a Debezium default change cannot
silently change what we compare):

- ``snapshot.mode=configuration_based`` with ``snapshot.data=false``, ``snapshot.schema=false``,
  ``start.stream=true``: no snapshot query at all; with no stored offset the connector streams
  from the first served file (``MySqlOffsetContext.initial``: file "", position 0) and learns
  every table from the DDL in the binlog, so runs are generated with ``--ddl-in-binlog``
  (Debezium 3.6 has no ``snapshot.mode=never`` any more). Offsets and schema history live in
  memory (``MemoryOffsetBackingStore``, ``MemorySchemaHistory``).
- ``decimal.handling.mode=string``: DECIMAL as its exact text -> :class:`decimal.Decimal`
  (``column.propagate.source.type=.*`` puts each column's SQL type into its field schema, which
  tells a DECIMAL's text from a VARCHAR's).
- ``bigint.unsigned.handling.mode=precise``: BIGINT UNSIGNED as Connect ``Decimal`` (scale 0)
  -> :class:`decimal.Decimal` (exact over the whole range; ``long`` would wrap above 2^63-1).
- ``binary.handling.mode=base64``: BINARY/VARBINARY/BLOB as base64 text -> :class:`bytes`
  (told from text columns by the propagated source type, below).
- ``time.precision.mode=adaptive_time_microseconds``: DATE -> ``io.debezium.time.Date`` (days
  since the epoch) -> :class:`datetime.date`; DATETIME(0-3) -> ``io.debezium.time.Timestamp``
  (ms) and DATETIME(4-6) -> ``MicroTimestamp`` (µs) -> naive :class:`datetime.datetime`;
  TIMESTAMP -> ``ZonedTimestamp`` (ISO-8601 text in UTC) -> aware ``datetime``; TIME ->
  ``MicroTime`` (µs, may be negative or past 24 h) -> :class:`datetime.timedelta`; YEAR ->
  ``io.debezium.time.Year`` -> int.
- ``enable.time.adjuster=false``: years are taken as binlogged (the adjuster maps two-digit
  years 0-69 to 2000-2069 and 70-99 to 1970-1999, which would move e.g. year 0001 values).
- ``provide.transaction.metadata=true``: each change carries ``transaction.id`` (the GTID, or a
  file:position for anonymous transactions) and ``transaction.total_order`` (1-based place of
  the change in its transaction), from which ``seq`` and ``row`` of the change model come;
  the BEGIN/END records themselves are not printed.
- ``include.schema.changes=false``, ``tombstones.on.delete=false``: only data change records.

Other wire types: JSON -> ``io.debezium.data.Json`` text -> parsed (dict/list/…); ENUM ->
``io.debezium.data.Enum`` text; SET -> ``io.debezium.data.EnumSet`` text ("a,b"); BIT(1) ->
boolean -> bool; BIT(n>1) -> ``io.debezium.data.Bits`` bytes, least significant byte first
(Debezium's ``BitsConverter``) -> int; GEOMETRY & co -> ``io.debezium.data.geometry.*`` struct
{wkb, srid} -> ``{"wkb": bytes, "srid": int}``; DOUBLE -> float; FLOAT -> Connect float32, whose JSON text is the
shortest text of the float32, so it is rounded back to float32 (``59732.812`` -> 59732.8125);
integers -> int; BOOLEAN/BOOL columns (TINYINT(1) declared as BOOLEAN) -> Connect boolean ->
bool.

Change model fields Debezium does not give are None: ``xid``, ``transaction_position``.
``before_row``/``after_row`` are the images themselves: Debezium only runs on
``binlog_row_image=FULL`` (below), so every image it emits is the full row. ``gtid``,
``file``, ``position`` (the rows event's offset) and ``timestamp`` come from the record's
``source`` block; ``seq`` counts the distinct transaction ids in the order read (so it is the
run's transaction index when the read starts at the first file).

Debezium requires ``binlog_row_image=FULL`` (``BinlogSourceTask.validateBinlogConfiguration``
refuses to start otherwise), so a served MINIMAL/NOBLOB run is refused at startup: that is
Debezium's documented requirement, not a decoding difference.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import re
import struct
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.toolchain import Toolchain, ToolchainError, ensure

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint

__all__ = ["NAME", "FLAVORS", "CONNECTOR_PROPERTIES", "DebeziumFailed", "ensure_built", "decode", "run_records",
           "changes_from_records", "convert"]

NAME = "debezium"
FLAVORS: tuple[str, ...] = ("mysql80", "mysql84")
"""The MySQL connector reads both MySQL flavors. MariaDB needs Debezium's MariaDB connector,
io.debezium:debezium-connector-mariadb, whose 3.6.1.Final is not served by Maven Central here
(dependency resolution fails), so mariadb1011 is not read."""

HERE = Path(__file__).resolve().parent
MAIN_CLASS = "binlogwriter.debezium.DebeziumDump"

CONNECTOR_PROPERTIES: dict[str, str] = {
    "snapshot.mode": "configuration_based",
    "snapshot.mode.configuration.based.snapshot.data": "false",
    "snapshot.mode.configuration.based.snapshot.schema": "false",
    "snapshot.mode.configuration.based.start.stream": "true",
    "database.ssl.mode": "disabled",
    "include.schema.changes": "false",
    "tombstones.on.delete": "false",
    "provide.transaction.metadata": "true",
    "decimal.handling.mode": "string",
    "binary.handling.mode": "base64",
    "time.precision.mode": "adaptive_time_microseconds",
    "bigint.unsigned.handling.mode": "precise",
    "enable.time.adjuster": "false",
    "column.propagate.source.type": ".*",
    "event.processing.failure.handling.mode": "fail",
    "inconsistent.schema.handling.mode": "fail",
}
"""Passed to the connector by :func:`decode` (the module docstring says why each)."""


class _MavenToolchain(Toolchain):
    """The harness is current when pom.xml and the Java sources are as they were at the last
    successful build (the digest covers all of them, so editing the main rebuilds it)."""

    def digest(self) -> str:
        h = hashlib.sha256()
        sources = sorted((self.directory / "src").rglob("*.java"))
        for p in [self.directory / self.lockfile, self.directory / "build.sh", *sources]:
            h.update(p.relative_to(self.directory).as_posix().encode() + b"\0" + p.read_bytes())
        return h.hexdigest()


DEBEZIUM = _MavenToolchain(
    name="Debezium (tests/conformance/consumers/debezium)",
    programs=(
        ("java", "install a Java 17 JDK (Debian: apt-get install openjdk-17-jdk-headless)"),
        ("javac", "install a Java 17 JDK (Debian: apt-get install openjdk-17-jdk-headless)"),
        ("mvn", "install Maven 3.6+ (Debian: apt-get install maven)"),
    ),
    directory=HERE,
    lockfile="pom.xml",
    command=("bash", "build.sh"),
    installed="target",
    ready=(
        "target/classes/binlogwriter/debezium/DebeziumDump.class",
        "target/lib/debezium-connector-mysql-3.6.1.Final.jar",
        "target/lib/debezium-embedded-3.6.1.Final.jar",
    ),
    timeout=1200.0,
)
"""Built by build.sh (``mvn package``): compiles the main into target/classes and copies the
pinned runtime dependencies into target/lib (Maven downloads them into ~/.m2 on first use); a
failed build's message is Maven's first [ERROR] line."""


class DebeziumFailed(AssertionError):
    """The engine stopped with an error before the expected changes: its message (the first
    line Debezium gave and its causes) is the exception's text."""


def version() -> str:
    """The Debezium version of pom.xml (its MySQL connector, embedded engine)."""
    m = re.search(r"<debezium\.version>([^<]+)</debezium\.version>|debezium-connector-mysql</artifactId>\s*"
                  r"<version>([^<]+)</version>", (HERE / "pom.xml").read_text("utf-8"))
    return (m.group(1) or m.group(2)) if m else "?"


def ensure_built() -> None:
    """Build the harness unless current; a missing java/javac/mvn or a failed build raises
    :class:`tests.conformance.toolchain.ToolchainError` with one line saying what to do."""
    ensure(DEBEZIUM)


def _java() -> list[str]:
    java = os.environ.get("JAVA_HOME")
    exe = str(Path(java) / "bin" / "java") if java else "java"
    return [exe, "-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]


def run_records(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0,
                properties: dict[str, str] | None = None) -> tuple[list[dict], str]:
    """Run the harness; (the printed records as parsed JSON, its stderr). Raises
    :class:`DebeziumFailed` when the engine stopped with an error before ``expected_changes``."""
    ensure_built()
    props = dict(CONNECTOR_PROPERTIES, **(properties or {}))
    argv = [
        *_java(),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-Dorg.slf4j.simpleLogger.logFile=System.err",
        "-cp", f"{HERE / 'target' / 'classes'}{os.pathsep}{HERE / 'target' / 'lib' / '*'}",
        MAIN_CLASS,
        f"host={server.host}", f"port={server.port}", f"user={server.user}",
        f"password={server.password}", f"server.id={getattr(server, 'server_id', None) or 5400}",
        f"expected={expected_changes}", f"timeout={timeout}",
        *(f"{k}={v}" for k, v in props.items()),
    ]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout + 60, check=False, cwd=HERE)
    except FileNotFoundError:
        raise ToolchainError("Debezium needs java, which is not installed: install a Java 17 JDK") from None
    err = proc.stderr.decode("utf-8", "replace")
    # one record per "\n"-ended line: str.splitlines() would also split inside a JSON string at
    # U+2028/U+2029/U+0085/\x1c-\x1e, which JSON leaves unescaped and text values may hold
    records = [json.loads(line) for line in proc.stdout.decode("utf-8").split("\n") if line.strip()]
    if proc.returncode == 1:
        failed = [ln[len("ENGINE-ERROR "):] for ln in err.splitlines() if ln.startswith("ENGINE-ERROR ")]
        raise DebeziumFailed(failed[0] if failed else f"Debezium exited 1: {err[-2000:]}")
    if proc.returncode not in (0, 2):
        raise DebeziumFailed(f"Debezium exited {proc.returncode}: {err[-2000:]}")
    return records, err


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    """Debezium's reading of the served run, in the change model (module docstring): read
    until ``expected_changes`` row changes were seen or ``timeout`` seconds passed."""
    records, _err = run_records(server, expected_changes=expected_changes, timeout=timeout)
    return changes_from_records(records)


# ------------------------------------------------------------------------- wire -> Python

_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1)


def _decimal_bytes(raw: str, scale: int) -> Decimal:
    """Connect's ``Decimal`` logical type: the unscaled value as big-endian two's complement."""
    unscaled = int.from_bytes(base64.b64decode(raw), "big", signed=True)
    return Decimal(unscaled).scaleb(-scale)


def _zoned(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def convert(schema: dict, value: Any) -> Any:
    """One field's JSON value -> a natural Python value, by the field's Connect schema."""
    if value is None:
        return None
    name = schema.get("name")
    typ = schema.get("type")
    if name == "org.apache.kafka.connect.data.Decimal":
        return _decimal_bytes(value, int(schema["parameters"]["scale"]))
    if name == "io.debezium.time.Date":
        return _EPOCH_DATE + dt.timedelta(days=value)
    if name == "io.debezium.time.Timestamp":
        return _EPOCH + dt.timedelta(milliseconds=value)
    if name == "io.debezium.time.MicroTimestamp":
        return _EPOCH + dt.timedelta(microseconds=value)
    if name == "io.debezium.time.NanoTimestamp":
        return _EPOCH + dt.timedelta(microseconds=value // 1000)
    if name == "io.debezium.time.ZonedTimestamp":
        return _zoned(value)
    if name == "io.debezium.time.Time":
        return dt.timedelta(milliseconds=value)
    if name == "io.debezium.time.MicroTime":
        return dt.timedelta(microseconds=value)
    if name == "io.debezium.time.NanoTime":
        return dt.timedelta(microseconds=value // 1000)
    if name == "io.debezium.data.Json":
        return json.loads(value)
    if name == "io.debezium.data.Bits":
        return int.from_bytes(base64.b64decode(value), "little")
    if name and name.startswith("io.debezium.data.geometry."):
        return {"wkb": base64.b64decode(value["wkb"]), "srid": value.get("srid")}
    source = _source_type(schema)
    if typ == "bytes" or (typ == "string" and source.endswith(_BINARY_TYPES)):
        return base64.b64decode(value)
    if typ == "float":  # FLOAT is a Connect float32: JSON prints its shortest float32 text
        return struct.unpack("<f", struct.pack("<f", float(value)))[0]
    if typ == "double":
        return float(value)
    if typ == "string" and source.split(" ")[0] in ("DECIMAL", "NUMERIC", "DEC", "FIXED"):
        return Decimal(value)
    return value


_BINARY_TYPES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")


def _source_type(schema: dict) -> str:
    """The column's SQL type as Debezium propagates it (``column.propagate.source.type``)."""
    return str((schema.get("parameters") or {}).get("__debezium.source.column.type", "")).upper()


def _image(struct_schema: dict | None, payload: dict | None) -> dict | None:
    if payload is None or struct_schema is None:
        return None
    fields = {f["field"]: f for f in struct_schema["fields"]}
    return {k: convert(fields[k], v) for k, v in payload.items()}


_OPS = {"c": "insert", "u": "update", "d": "delete", "r": "insert"}


def changes_from_records(records: list[dict]) -> list[dict]:
    """JsonConverter records (one dict per printed line) -> changes in the change model."""
    out: list[dict] = []
    txn_ids: dict[str, int] = {}
    for rec in records:
        value = rec["value"]
        schema = {f["field"]: f for f in value["schema"]["fields"]}
        p = value["payload"]
        src = p["source"]
        txn = p.get("transaction") or {}
        tid = txn.get("id")
        seq = txn_ids.setdefault(tid, len(txn_ids)) if tid is not None else None
        ts = src.get("ts_ms")
        before, after = _image(schema.get("before"), p.get("before")), _image(schema.get("after"), p.get("after"))
        out.append({
            "seq": seq,
            "row": txn["total_order"] - 1 if txn.get("total_order") else None,
            "op": _OPS[p["op"]],
            "database": src["db"],
            "table": src["table"],
            "before": before,
            "after": after,
            "before_row": None if before is None else dict(before),
            "after_row": None if after is None else dict(after),
            "gtid": src.get("gtid"),
            "xid": None,
            "file": src.get("file"),
            "position": src.get("pos"),
            "transaction_position": None,
            "timestamp": None if ts is None else ts // 1000,
        })
    return out

