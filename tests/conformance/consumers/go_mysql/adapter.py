"""go-mysql (github.com/go-mysql-org/go-mysql v1.13.0, ``replication.BinlogSyncer``) as a
consumer of ``binlogwriter serve`` (issue #31 §4, the consumer adapter contract).

``main.go`` next to this file is a small Go program that connects as a replica with go-mysql's
``BinlogSyncer`` (Flavor ``mysql`` or ``mariadb``), dumps from the first file at position 4
(or after a GTID set) and prints one JSON line per TABLE_MAP event and per row change (see
its header for the value encoding and the decoder options it sets: ``ParseTime=false``,
``UseDecimal=false``, ``TimestampStringLocation=UTC``). :func:`ensure_built` builds it with
``go build`` into ``bin/`` (gitignored) the first time, and again when ``go.mod``, ``go.sum``
or ``main.go`` change; :func:`decode` runs it against a served run and turns its lines into
the change model (seq, row, op, database, table, before/after images keyed by column name,
gtid, xid, file, position of the rows event, transaction_position, timestamp; ``before_row`` /
``after_row`` None: go-mysql gives the images only). ``row`` is the change's index in its
transaction, ``seq`` the index of the transaction among those with row changes, counted from
the start of the dump (:func:`to_changes`).

Column names: from the TABLE_MAP's COLUMN_NAME metadata when the run was written with
``binlog_row_metadata=FULL`` (``ColumnNameString()``); otherwise go-mysql has positions only
and the names come from the run's table definitions (``truth/schema_history.jsonl``, read with
``binlogwriter.testing.table_definitions``: the last definition of the table whose ``seq`` is
at most the change's, docs/output.md "Table definitions over time"). The column types
(charset, ENUM/SET members, signedness without SIGNEDNESS metadata) come from the same
definition's CREATE TABLE text, as a go-mysql user takes them from the schema.

Values are go-mysql's, turned into natural Python values without canonicalising them:
integers as go-mysql gives them, made unsigned with the TABLE_MAP's signedness (go-mysql
returns the raw signed value and leaves that to the user, as its canal package does; without
SIGNEDNESS metadata, MariaDB's NO_LOG, with the table definition's); BIT as
the unsigned integer; FLOAT/DOUBLE float; DECIMAL ``Decimal`` of go-mysql's text; DATE
``datetime.date``, DATETIME naive ``datetime.datetime``, TIMESTAMP aware UTC
``datetime.datetime``, TIME ``datetime.timedelta`` (a zero or otherwise invalid date stays
go-mysql's text); ENUM the member (index 0: ``""``), SET the set of members; CHAR/VARCHAR/TEXT
the text decoded from the bytes go-mysql gives in the column's charset; BINARY/VARBINARY/BLOB
and geometry ``bytes`` (BINARY as the binlog carries it: trailing 0x00 stripped, as the server
packs it); MySQL JSON the parsed document (go-mysql renders the binary JSON as text), MariaDB
JSON (a LONGTEXT) the text. A PARTIAL_UPDATE_ROWS_EVENT (JSON partial update) is an update;
a JSON column updated in place comes from go-mysql as one ``*JsonDiff`` and is given as
binlogwriter's ``JsonPartial`` of that diff (:func:`_json_partial`).
"""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:  # the consumer kit's name for "a toolchain is missing" (issue #31 §4)
    from tests.conformance.toolchain import ToolchainMissing as Missing  # type: ignore[attr-defined]
except ImportError:  # this copy's toolchain.py names it ToolchainError
    from tests.conformance.toolchain import ToolchainError as Missing

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint

__all__ = ["NAME", "FLAVORS", "ensure_built", "decode", "HERE", "BINARY"]

NAME = "go-mysql"
FLAVORS: tuple[str, ...] = ("mysql80", "mysql84", "mariadb1011")

HERE = Path(__file__).resolve().parent
BINARY = HERE / "bin" / "gomysql_changes"
_SOURCES = ("go.mod", "go.sum", "main.go")
_STAMP = HERE / "bin" / ".built-from"
_GO_HINT = ("go-mysql conformance needs Go 1.22+ (`go` on PATH or /usr/local/go/bin/go): "
            "install it from https://go.dev/dl/ (Debian: apt-get install golang-go)")


def _go() -> str:
    found = shutil.which("go") or ("/usr/local/go/bin/go" if os.access("/usr/local/go/bin/go", os.X_OK) else None)
    if found is None:
        raise Missing(_GO_HINT)
    return found


def _digest() -> str:
    h = hashlib.sha256()
    for name in _SOURCES:
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes() + b"\0")
    return h.hexdigest()


def _current() -> bool:
    try:
        return _STAMP.read_text().strip() == _digest() and BINARY.is_file()
    except OSError:
        return False


def version() -> str:
    """The go-mysql module version main.go is built with (go.mod's require line)."""
    m = re.search(r"github\.com/go-mysql-org/go-mysql (v\S+)", (HERE / "go.mod").read_text("utf-8"))
    return m.group(1) if m else "?"


def ensure_built() -> None:
    """Build ``bin/gomysql_changes`` with ``go build`` unless the stamp says it was built from
    the current go.mod, go.sum and main.go (toolchain.py's pattern: an exclusive flock makes
    concurrent workers wait for the first build). Modules come through the machine's
    configured proxy (``GOFLAGS=-mod=mod``, versions pinned by go.sum). Raises
    ``ToolchainMissing``/``ToolchainError`` with one line when Go is missing or the build fails."""
    go = _go()
    if _current():
        return
    key = hashlib.sha256(str(HERE).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"binlogwriter-gomysql-{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if _current():
                return
            BINARY.parent.mkdir(exist_ok=True)
            env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
            try:
                proc = subprocess.run([go, "build", "-o", str(BINARY), "."], cwd=HERE, env=env,
                                      capture_output=True, text=True, timeout=900, check=False)
            except subprocess.TimeoutExpired:
                raise Missing(f"go-mysql: `go build` in {HERE} did not finish in 900 s") from None
            if proc.returncode != 0:
                lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
                raise Missing(f"go-mysql: `go build` in {HERE} failed (exit {proc.returncode}): "
                              f"{(lines[-1] if lines else 'no output')[:300]}")
            _STAMP.write_text(_digest() + "\n")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ------------------------------------------------------------------------------------------
# running the program
# ------------------------------------------------------------------------------------------

def run_lines(server: ServedEndpoint | Any, *, expected_changes: int, timeout: float = 120.0,
              gtid: str | None = None, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Run the Go program against ``server`` and return its JSON lines (table, change and end
    lines). A non-zero exit is an AssertionError carrying its stderr."""
    ensure_built()
    flavor = "mariadb" if str(server.flavor).startswith("mariadb") else "mysql"
    argv = [str(BINARY), "-host", str(server.host), "-port", str(server.port), "-user", str(server.user),
            "-password", str(server.password), "-flavor", flavor, "-n", str(expected_changes),
            "-timeout", f"{timeout:.3f}s", "-server-id", str(getattr(server, "server_id", None) or 1001),
            *(["-gtid", gtid] if gtid else []), *extra]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 30, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"go-mysql exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    # "\n" only: str.splitlines() also splits at U+0085/U+2028/U+2029 inside a JSON string
    return [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]


def decode(server: ServedEndpoint | Any, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    """Read ``expected_changes`` row changes of the served run with go-mysql (or what came
    before ``timeout``) and return them in the change model (module docstring)."""
    lines = run_lines(server, expected_changes=expected_changes, timeout=timeout)
    return list(to_changes(lines, Path(server.run_dir), str(server.flavor)))


# ------------------------------------------------------------------------------------------
# JSON lines -> change model
# ------------------------------------------------------------------------------------------

class _Definitions:
    """The run's table definitions over time (``truth/schema_history.jsonl`` through
    ``binlogwriter.testing.table_definitions``; the matrix writes one for catalogue cases):
    per table, ``(seq, columns)`` with ``columns`` parsed from its CREATE TABLE text. What a
    go-mysql user takes from its schema (canal reads it from the server): the column names
    when the TABLE_MAP has none, each column's charset, ENUM/SET members and signedness."""

    def __init__(self, run_dir: Path) -> None:
        from binlogwriter.schema import Table
        from binlogwriter.testing import table_definitions

        self.defs: dict[tuple[str, str], list[tuple[int, list[Any]]]] = {}
        for d in table_definitions(run_dir):
            if d.get("create"):
                cols = list(Table.from_sql(d["create"], database=d["database"]).columns)
                self.defs.setdefault((d["database"], d["table"]), []).append((int(d["seq"]), cols))

    def columns(self, database: str, table: str, seq: int, count: int) -> list[Any] | None:
        """The columns of ``database.table`` for a change of transaction ``seq`` whose row has
        ``count`` columns: the last definition whose ``seq`` is at most the change's
        (docs/output.md "Table definitions over time"); when that one has another width
        (``seq`` counted from a later start, see :func:`to_changes`), the latest with that many
        columns."""
        defs = self.defs.get((database, table), [])
        at = [cols for s, cols in defs if s <= seq]
        if at and len(at[-1]) == count:
            return at[-1]
        for _s, cols in reversed(defs):
            if len(cols) == count:
                return cols
        return None


_INT_BITS = {1: 8, 2: 16, 9: 24, 3: 32, 8: 64}
_TEXT_TYPES = {"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"}
_DT = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")
_TIME = re.compile(r"(-?)(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")


def _raw(v: Any) -> Any:
    """Undo main.go's markers: ``$bytes64``/``$str64`` -> bytes, ``$decimal`` -> Decimal,
    ``$time`` -> datetime."""
    if isinstance(v, dict):
        if "$bytes64" in v:
            return base64.b64decode(v["$bytes64"])
        if "$str64" in v:
            return base64.b64decode(v["$str64"])
        if "$decimal" in v:
            return Decimal(v["$decimal"])
        if "$time" in v:
            return dt.datetime.fromisoformat(v["$time"])
    return v


def _as_bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _datetime(text: str, tz: dt.tzinfo | None) -> Any:
    m = _DT.fullmatch(text)
    if not m:
        return text
    y, mo, d, h, mi, s, frac = m.groups()
    try:
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), int((frac or "0").ljust(6, "0")),
                           tzinfo=tz)
    except ValueError:
        return text  # zero or invalid date: go-mysql's text


def _time(text: str) -> Any:
    m = _TIME.fullmatch(text)
    if not m:
        return text
    sign, h, mi, s, frac = m.groups()
    v = dt.timedelta(hours=int(h), minutes=int(mi), seconds=int(s), microseconds=int((frac or "0").ljust(6, "0")))
    return -v if sign else v


def _json_partial(diff: dict[str, str]) -> Any:
    """go-mysql's ``*JsonDiff`` of a PARTIAL_UPDATE_ROWS_EVENT column (op, path, the value as
    JSON text, none for a remove) as binlogwriter's ``JsonPartial``: go-mysql gives the column
    one ``JsonDiff``, so the list has one diff."""
    from binlogwriter.values.json_diff import JsonDiff, JsonPartial

    op = diff["op"].lower()
    value = None if op == "remove" or diff["value"] == "" else json.loads(diff["value"])
    return JsonPartial((JsonDiff(op, diff["path"], value),))


def natural(v: Any, type_code: int, unsigned: bool, info: dict[str, Any] | None, flavor: str,
            enum: list[str] | None, set_: list[str] | None) -> Any:
    """One go-mysql value (after :func:`_raw`) as a natural Python value (module docstring).
    ``type_code`` is the TABLE_MAP's real type, ``info`` the column of its table definition (type, charset, members, unsigned)."""
    from binlogwriter.charsets import decode_in_charset, default_collation

    v = _raw(v)
    if v is None:
        return None
    ctype = (info or {}).get("type", "")
    if type_code in _INT_BITS:
        return v + (1 << _INT_BITS[type_code]) if unsigned and v < 0 else v
    if type_code == 16:  # BIT: go-mysql's int64
        return v + (1 << 64) if v < 0 else v
    if type_code == 13:
        return int(v)
    if type_code in (4, 5):
        return float(v)
    if type_code == 246:
        return Decimal(v) if isinstance(v, str) else v
    if type_code == 10:
        try:
            return dt.date.fromisoformat(v)
        except ValueError:
            return v
    if type_code in (12, 18):
        return _datetime(v, None) if isinstance(v, str) else v
    if type_code in (7, 17):
        return _datetime(v, dt.UTC) if isinstance(v, str) else v
    if type_code in (11, 19):
        return _time(v) if isinstance(v, str) else v
    if type_code == 247:
        members = enum or (info or {}).get("members") or []
        return "" if v == 0 else members[v - 1] if 0 < v <= len(members) else v
    if type_code == 248:
        members = set_ or (info or {}).get("members") or []
        mask = v + (1 << 64) if v < 0 else v
        return {m for i, m in enumerate(members) if mask >> i & 1}
    if type_code == 245 and isinstance(v, dict) and "$jsondiff" in v:  # a partial JSON update
        return _json_partial(v["$jsondiff"])
    if type_code == 245:  # MySQL JSON: go-mysql's text of the binary document
        return json.loads(v) if isinstance(v, str) and v else v
    if ctype in _TEXT_TYPES or (ctype == "JSON" and flavor.startswith("mariadb")):
        charset = (info or {}).get("charset") or "utf8mb4"
        return decode_in_charset(_as_bytes(v), default_collation(charset, flavor))
    return _as_bytes(v)


def _image(row: list[Any] | None, skip: list[int] | None, names: list[str], tm: dict[str, Any],
           infos: dict[str, dict[str, Any]], flavor: str) -> dict[str, Any] | None:
    """One row image: {column name: natural value} for the columns the image carries."""
    if row is None:
        return None
    absent = set(skip or ())
    if tm["signedness"]:
        unsigned = set(tm["unsigned"] or ())
    else:  # no SIGNEDNESS metadata (MariaDB NO_LOG): the table's definition says
        unsigned = {i for i, n in enumerate(names) if (infos.get(n) or {}).get("unsigned")}
    enums, sets = tm["enum"] or {}, tm["set"] or {}
    return {names[i]: natural(v, tm["types"][i], i in unsigned, infos.get(names[i]), flavor,
                              enums.get(str(i)), sets.get(str(i)))
            for i, v in enumerate(row) if i not in absent}


def to_changes(lines: list[dict[str, Any]], run_dir: Path, flavor: str, *, first_seq: int = 0) -> Iterator[dict[str, Any]]:
    """go-mysql's JSON lines as changes in the change model (docs/output.md "The change
    model"). ``row`` is the change's index in its transaction and ``seq`` the index of its
    transaction among those with row changes, counted from ``first_seq`` (the ``seq`` of the
    first transaction the dump was asked for: 0 from the first file at position 4): go-mysql
    gives each row the transaction it belongs to (the offset of its GTID event) and reads
    every transaction in commit order, so consecutive changes of another transaction start
    the next ``seq``."""
    definitions = _Definitions(run_dir)
    tables: dict[int, dict[str, Any]] = {}
    txn: tuple[str, int] | None = None
    row = 0
    seq = first_seq - 1
    for line in lines:
        kind = line.get("kind")
        if kind == "table":
            tables[line["table_id"]] = line
            continue
        if kind != "change":
            continue
        tm = tables[line["table_id"]]
        here = (line["file"], line["transaction_position"])
        if here == txn:
            row += 1  # the row's index in its transaction
        else:
            seq, row = seq + 1, 0
        txn = here
        cols = definitions.columns(line["schema"], line["table"], seq, len(tm["types"]))
        names = tm["names"] or ([c.name for c in cols] if cols is not None else None)
        if names is None or len(names) != len(tm["types"]):
            raise AssertionError(f"go-mysql: no column names for {line['schema']}.{line['table']} with "
                                 f"{len(tm['types'])} columns at {line['file']}:{line['transaction_position']}")
        infos = {c.name: {"type": c.type, "charset": c.charset, "members": list(c.members), "unsigned": c.unsigned}
                 for c in cols or ()}
        yield {
            "seq": seq, "op": line["op"], "database": line["schema"], "table": line["table"],
            "before": _image(line["before"], line["before_skip"], names, tm, infos, flavor),
            "after": _image(line["after"], line["after_skip"], names, tm, infos, flavor),
            "before_row": None, "after_row": None,
            "gtid": line["gtid"], "xid": line["xid"], "file": line["file"], "position": line["position"],
            "transaction_position": line["transaction_position"], "row": row,
            "timestamp": line["timestamp"],
        }
