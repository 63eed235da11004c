"""The workload spec: frozen, validated, serialisable (docs/design.md).

A :class:`Spec` holds every setting of a run — the command-line options of
``binlogwriter generate`` and per-column value generators — fully resolved: workload
defaults are filled in by :func:`resolve`, so ``Spec.to_dict()`` (recorded as
``manifest.json["spec"]``) regenerates the run byte-identically on its own.

Loading (:func:`load_spec_file`) takes YAML or JSON; a ``manifest.json`` is accepted too
(its ``spec`` member is used). Every invalid value raises :class:`SpecError` with one line
naming the setting.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from binlogwriter.format import FLAVORS
from binlogwriter.schema import KNOWN_TYPES
from generators.errors import SpecError

__all__ = [
    "Spec",
    "ColumnGen",
    "SpecError",
    "WORKLOADS",
    "FLAVORS",
    "DEFAULT_UUID",
    "DEFAULT_START_TIME",
    "parse_size",
    "parse_mix",
    "parse_key_dist",
    "parse_range",
    "parse_start_time",
    "load_spec_file",
    "read_spec_file",
    "SpecFile",
    "setting_of",
    "resolve",
]

WORKLOADS = ("sysbench", "ecommerce", "alltypes")
ROW_METADATA = ("NO_LOG", "MINIMAL", "FULL")
ROW_IMAGE = ("FULL", "MINIMAL", "NOBLOB")
CHECKSUMS = ("CRC32", "NONE")
OP_KINDS = ("insert", "update", "delete")
DEFAULT_UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
DEFAULT_START_TIME = 1767225600  # 2026-01-01T00:00:00Z
DEFAULT_TRANSACTIONS = 2000
TEMPLATES = ("mix", "oltp_write_only", "ecommerce")
GEN_KINDS = ("default", "int", "float", "decimal", "choice", "faker", "text", "const",
             "datetime", "sequence", "json", "digits")
_NUM_PARAMS = ("min", "max", "dist")
GEN_PARAMS: dict[str, tuple[str, ...]] = {
    "default": (), "int": _NUM_PARAMS, "float": _NUM_PARAMS, "decimal": _NUM_PARAMS,
    "choice": ("values", "weights"), "faker": ("provider",), "text": ("min_len", "max_len"),
    "const": ("value",), "datetime": ("start", "end"), "sequence": ("start", "step"),
    "json": (), "digits": ("groups",),
}
"""The settings each ``gen`` reads besides ``null`` (docs/generate.md)."""

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_IDENT_RE = re.compile(r"^[A-Za-z0-9_$]{1,64}$")


def parse_size(text: str | int, what: str = "size") -> int:
    """``500MB``, ``1G``, ``64k``, ``4096`` -> bytes (K/M/G/T are powers of 1024, as MySQL's)."""
    if isinstance(text, bool):
        raise SpecError(f"{what}: expected a size like 500MB, got {text!r}")
    if isinstance(text, int):
        n = text
    else:
        m = _SIZE_RE.match(str(text))
        if not m:
            raise SpecError(f"{what}: expected a size like 500MB or 1G, got {text!r}")
        mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
        n = int(float(m.group(1)) * mult)
    if n <= 0:
        raise SpecError(f"{what}: must be positive, got {text!r}")
    return n


def parse_mix(text: str | Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """``insert=0.5,update=0.3,delete=0.2`` -> normalised ((kind, weight), ...) in kind order."""
    if isinstance(text, Mapping):
        items = [(str(k), v) for k, v in text.items()]
    elif isinstance(text, list | tuple):
        items = [tuple(x) for x in text]
    else:
        items = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise SpecError(f"--mix: expected kind=weight, got {part.strip()!r}")
            k, v = part.split("=", 1)
            items.append((k.strip(), v.strip()))
    out: dict[str, float] = {}
    for k, v in items:
        k = k.lower()
        if k not in OP_KINDS:
            raise SpecError(f"--mix: unknown operation {k!r} (insert, update, delete)")
        try:
            w = float(v)
        except (TypeError, ValueError):
            raise SpecError(f"--mix: weight of {k} is not a number: {v!r}") from None
        if not (w >= 0) or w == float("inf"):
            raise SpecError(f"--mix: weight of {k} must be >= 0, got {v!r}")
        out[k] = w
    total = sum(out.values())
    if total <= 0:
        raise SpecError("--mix: weights must add up to more than 0")
    return tuple((k, round(out.get(k, 0.0) / total, 12)) for k in OP_KINDS)


def parse_key_dist(text: str) -> str:
    """Validate ``uniform | zipf:S | hotspot:FRACTION:PROBABILITY | latest``; returns it normalised."""
    t = str(text).strip().lower()
    parts = t.split(":")
    name = parts[0]
    try:
        if name in ("uniform", "latest") and len(parts) == 1:
            return name
        if name == "zipf" and len(parts) == 2:
            s = float(parts[1])
            if not 0 < s <= 10:
                raise SpecError(f"--key-dist zipf exponent must be in (0, 10], got {parts[1]}")
            return f"zipf:{parts[1]}"
        if name == "hotspot" and len(parts) == 3:
            f, p = float(parts[1]), float(parts[2])
            if not (0 < f < 1 and 0 <= p <= 1):
                raise SpecError("--key-dist hotspot:FRACTION:PROBABILITY needs 0<FRACTION<1, 0<=PROBABILITY<=1")
            return f"hotspot:{parts[1]}:{parts[2]}"
    except ValueError:
        pass
    raise SpecError(f"--key-dist: expected uniform, zipf:S, hotspot:F:P or latest, got {text!r}")


def parse_range(text: str | int | list | tuple, what: str = "--rows-per-txn") -> tuple[int, int]:
    """``N`` or ``A-B`` -> (A, B), 1 <= A <= B."""
    if isinstance(text, list | tuple):
        if len(text) != 2:
            raise SpecError(f"{what}: expected N or A-B, got {text!r}")
        a, b = text
    elif isinstance(text, int) and not isinstance(text, bool):
        a = b = text
    else:
        m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$", str(text))
        if not m:
            raise SpecError(f"{what}: expected N or A-B, got {text!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
    if not (isinstance(a, int) and isinstance(b, int)) or not 1 <= a <= b or b > 100_000:
        raise SpecError(f"{what}: expected 1 <= A <= B <= 100000, got {text!r}")
    return (a, b)


def parse_start_time(text: str | int) -> int:
    """ISO 8601 (``2026-01-01T00:00:00Z``; no zone = UTC) or epoch seconds -> epoch seconds."""
    if isinstance(text, int) and not isinstance(text, bool):
        n = text
    else:
        s = str(text).strip()
        if re.fullmatch(r"\d+", s):
            n = int(s)
        else:
            try:
                d = _dt.datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise SpecError(f"--start-time: not an ISO 8601 time: {text!r}") from None
            if d.tzinfo is None:
                d = d.replace(tzinfo=_dt.UTC)
            n = int(d.timestamp())
    if not 0 < n < 2**31 - 1:
        raise SpecError(f"--start-time: must be between 1970 and 2038, got {text!r}")
    return n


@dataclass(frozen=True)
class ColumnGen:
    """A per-column value generator from a spec file: ``table.column: {gen: ..., ...}``.

    ``gen`` is one of GEN_KINDS; ``params`` the other settings, as sorted (key, value) pairs
    (JSON-compatible values). ``null`` (a probability) applies to every kind.
    """

    target: str
    gen: str
    params: tuple[tuple[str, Any], ...] = ()

    def param(self, name: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return default

    def to_dict(self) -> dict[str, Any]:
        return {"gen": self.gen, **{k: _thaw(v) for k, v in self.params}}


def _freeze(v: Any) -> Any:
    if isinstance(v, Mapping):
        return tuple(sorted((str(k), _freeze(x)) for k, x in v.items()))
    if isinstance(v, list | tuple):
        return tuple(_freeze(x) for x in v)
    return v


def _thaw(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_thaw(x) for x in v]
    return v


@dataclass(frozen=True)
class Spec:
    """Every setting of one generation run (see docs/generate.md for each one)."""

    workload: str | None = "sysbench"
    schema_sql: str | None = None
    schema_file: str | None = None
    database: str = "test"
    tables: int = 1
    seed: int = 1
    transactions: int | None = None
    size: int | None = None
    initial_rows: int = 1000
    ddl_in_binlog: bool = False
    mix: tuple[tuple[str, float], ...] | None = None
    key_dist: str = "uniform"
    rows_per_txn: tuple[int, int] | None = None
    flavor: str = "mysql80"
    row_metadata: str = "FULL"
    row_image: str = "FULL"
    rows_query: bool = False
    checksum: str = "CRC32"
    max_binlog_size: int = 1 << 30
    gtid: str | None = None
    server_id: int = 1
    start_time: int = DEFAULT_START_TIME
    ddl_every: int = 0
    basename: str = "binlog"
    row_event_max_size: int = 8192
    transaction_compression: bool = False
    template: str | None = None
    exclude_types: tuple[str, ...] = ()
    columns: tuple[ColumnGen, ...] = field(default_factory=tuple)

    # -- serialisation ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "columns":
                d[f.name] = {c.target: c.to_dict() for c in v}
            elif f.name == "mix":
                d[f.name] = None if v is None else {k: w for k, w in v}
            elif f.name == "exclude_types":
                d[f.name] = list(v)
            elif f.name == "rows_per_txn":
                d[f.name] = None if v is None else list(v)
            else:
                d[f.name] = v
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Spec:
        """Build and validate a spec from a mapping (option names with ``-`` or ``_``)."""
        if not isinstance(data, Mapping):
            raise SpecError("spec: expected a mapping of settings")
        known = {f.name for f in fields(cls)}
        kw: dict[str, Any] = {}
        for k, v in data.items():
            name = _norm_key(k)
            if name not in known:
                import difflib

                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise SpecError(f"spec: unknown setting {k!r}{hint}", setting=name)
            kw[name] = v
        return validate(_coerce(kw))

    def replace(self, **changes: Any) -> Spec:
        return validate(replace(self, **changes))


def _coerce(kw: dict[str, Any]) -> Spec:
    """Turn loose values (strings from a file or the command line) into typed fields."""
    out: dict[str, Any] = {}
    for k, v in kw.items():
        try:
            _coerce_one(out, k, v)
        except SpecError as e:
            raise e if e.setting is not None else SpecError(e.reason, setting=setting_of(e.reason) or k) from None
    try:
        return Spec(**out)
    except TypeError as e:  # pragma: no cover - guarded by from_dict
        raise SpecError(f"spec: {e}") from None


def _coerce_one(out: dict[str, Any], k: str, v: Any) -> None:
    if v is None:
        out[k] = None
        return
    if k in ("size", "max_binlog_size", "row_event_max_size"):
        out[k] = parse_size(v, "--" + k.replace("_", "-"))
    elif k == "mix":
        out[k] = parse_mix(v)
    elif k == "rows_per_txn":
        out[k] = parse_range(v)
    elif k == "start_time":
        out[k] = parse_start_time(v)
    elif k == "key_dist":
        out[k] = parse_key_dist(v)
    elif k == "columns":
        out[k] = _parse_columns(v)
    elif k == "exclude_types":
        if not isinstance(v, str | list | tuple):
            raise SpecError(f"--exclude-types: expected a list of column types, got {v!r}")
        items = v.split(",") if isinstance(v, str) else list(v)
        out[k] = tuple(sorted({str(x).strip().upper() for x in items if str(x).strip()}))
    elif k in ("seed", "transactions", "initial_rows", "server_id", "ddl_every", "tables"):
        if isinstance(v, bool) or not isinstance(v, int | str):
            raise SpecError(f"--{k.replace('_', '-')}: expected an integer, got {v!r}")
        try:
            out[k] = int(v)
        except ValueError:
            raise SpecError(f"--{k.replace('_', '-')}: expected an integer, got {v!r}") from None
    elif k in ("ddl_in_binlog", "rows_query", "transaction_compression"):
        if not isinstance(v, bool):
            raise SpecError(f"--{k.replace('_', '-')}: expected true or false, got {v!r}")
        out[k] = v
    elif k in ("row_metadata", "row_image", "checksum"):
        out[k] = str(v).upper()
    else:
        out[k] = v if not isinstance(v, str) else v.strip()


def _parse_columns(v: Any) -> tuple[ColumnGen, ...]:
    if isinstance(v, list | tuple) and all(isinstance(c, ColumnGen) for c in v):
        return tuple(v)
    if not isinstance(v, Mapping):
        raise SpecError("spec columns: expected a mapping table.column -> {gen: ...}")
    out = []
    for target, conf in v.items():
        if isinstance(conf, str):
            conf = {"gen": conf}
        if not isinstance(conf, Mapping):
            raise SpecError(f"spec columns.{target}: expected a mapping with 'gen'")
        if "." not in str(target):
            raise SpecError(f"spec columns: {target!r} must be table.column")
        gen = str(conf.get("gen", "default"))
        if gen not in GEN_KINDS:
            raise SpecError(f"spec columns.{target}: unknown gen {gen!r} (one of {', '.join(GEN_KINDS)})")
        extra = sorted(str(k) for k in conf if k not in ("gen", "null") and k not in GEN_PARAMS[gen])
        if extra:
            allowed = ", ".join(GEN_PARAMS[gen] + ("null",))
            raise SpecError(f"spec columns.{target}: gen {gen} has no setting {extra[0]!r} (it takes {allowed})")
        for k in ("groups", "start", "step") if gen in ("digits", "sequence") else ():
            v = conf.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or (k == "groups" and not 1 <= v <= 1000)):
                raise SpecError(f"spec columns.{target}: {k} must be an integer"
                                + (" in 1..1000" if k == "groups" else "") + f", got {v!r}")
        params = tuple(sorted((str(k), _freeze(x)) for k, x in conf.items() if k != "gen"))
        nullp = conf.get("null", 0)
        if not isinstance(nullp, int | float) or not 0 <= nullp <= 1:
            raise SpecError(f"spec columns.{target}: null must be a probability, got {nullp!r}")
        out.append(ColumnGen(str(target), gen, params))
    return tuple(sorted(out, key=lambda c: c.target))


def validate(s: Spec) -> Spec:
    """Check every field; raise SpecError naming the option. Returns ``s`` unchanged."""
    def bad(msg: str) -> SpecError:
        return SpecError(msg, setting=setting_of(msg))

    if s.workload is not None and s.workload not in WORKLOADS:
        raise bad(f"--workload: unknown workload {s.workload!r} (one of {', '.join(WORKLOADS)})")
    if s.workload is not None and s.schema_sql is not None:
        raise bad("--workload and --schema are exclusive")
    if s.workload is None and s.schema_sql is None:
        raise bad("either --workload or --schema is needed")
    if s.schema_sql is not None and not isinstance(s.schema_sql, str):
        raise bad("spec schema_sql: expected the text of CREATE TABLE statements")
    if not isinstance(s.database, str) or not _IDENT_RE.match(s.database):
        raise bad(f"--database: not a valid database name: {s.database!r}")
    if not 1 <= s.tables <= 1000:
        raise bad(f"--tables: expected 1..1000, got {s.tables}")
    if not 0 <= s.seed < 2**63:
        raise bad(f"--seed: expected 0 <= N < 2^63, got {s.seed}")
    if s.transactions is not None and s.size is not None:
        raise bad("--transactions and --size are exclusive")
    if s.transactions is not None and not 0 <= s.transactions <= 10**10:
        raise bad(f"--transactions: expected 0..10^10, got {s.transactions}")
    if not 0 <= s.initial_rows <= 10**8:
        raise bad(f"--initial-rows: expected 0..10^8, got {s.initial_rows}")
    if s.flavor not in FLAVORS:
        raise bad(f"--flavor: unknown flavor {s.flavor!r} (one of {', '.join(FLAVORS)})")
    if s.row_metadata not in ROW_METADATA:
        raise bad(f"--row-metadata: expected NO_LOG, MINIMAL or FULL, got {s.row_metadata!r}")
    if s.row_metadata == "NO_LOG" and not s.flavor.startswith("mariadb"):
        raise bad("--row-metadata NO_LOG exists only in MariaDB (MySQL has MINIMAL and FULL)")
    if s.row_image not in ROW_IMAGE:
        raise bad(f"--row-image: expected FULL, MINIMAL or NOBLOB, got {s.row_image!r}")
    if s.checksum not in CHECKSUMS:
        raise bad(f"--checksum: expected CRC32 or NONE, got {s.checksum!r}")
    if not 4096 <= s.max_binlog_size <= 1 << 40:
        raise bad(f"--max-binlog-size: expected 4K..1T, got {s.max_binlog_size}")
    if not 1024 <= s.row_event_max_size <= 1 << 30:
        raise bad(f"--row-event-max-size: expected 1K..1G, got {s.row_event_max_size}")
    if not 1 <= s.server_id < 2**32:
        raise bad(f"--server-id: expected 1..4294967295, got {s.server_id}")
    if not 0 <= s.ddl_every <= 10**9:
        raise bad(f"--ddl-every: expected N >= 0, got {s.ddl_every}")
    if not isinstance(s.basename, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", s.basename) \
            or s.basename.startswith("."):
        raise bad(f"--basename: not a valid file base name: {s.basename!r}")
    if s.gtid is not None:
        g = s.gtid
        if s.flavor.startswith("mariadb"):
            if not (isinstance(g, str) and g.isdigit() and int(g) < 2**32):
                raise bad("--gtid: MariaDB always writes GTIDs; give a domain id (0..4294967295) or leave it out")
        elif g != "anonymous":
            sid, _, tag = str(g).partition(":")
            try:
                uuid.UUID(sid)
            except ValueError:
                raise bad(f"--gtid: expected 'anonymous', a server UUID or UUID:tag, got {g!r}") from None
            if tag:
                if s.flavor != "mysql84":
                    raise bad("--gtid UUID:tag: tagged GTIDs exist from MySQL 8.3 on (--flavor mysql84)")
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,31}", tag):
                    raise bad(f"--gtid: tag {tag!r} must be 1-32 letters, digits or '_', not starting with a digit")
    if s.transaction_compression and s.flavor.startswith("mariadb"):
        raise bad("--compress: binlog_transaction_compression is MySQL's (8.0.20+); MariaDB has none")
    if s.template is not None and s.template not in TEMPLATES:
        raise bad(f"spec template: unknown template {s.template!r} (one of {', '.join(TEMPLATES)})")
    if s.template == "oltp_write_only" and s.workload != "sysbench":
        raise bad("spec template oltp_write_only needs --workload sysbench")
    if s.template == "ecommerce" and s.workload != "ecommerce":
        raise bad("spec template ecommerce needs --workload ecommerce")
    if s.workload == "ecommerce" and s.initial_rows < 1:
        raise bad("--initial-rows: the ecommerce workload needs at least 1 (orders refer to existing customers and products)")
    if s.exclude_types:
        unknown = [t for t in s.exclude_types if t not in KNOWN_TYPES]
        if unknown:
            raise bad(f"--exclude-types: unknown type {unknown[0]!r} (column types such as JSON, GEOMETRY, "
                      "BLOB, TEXT, ENUM, SET, BIT, DECIMAL, TIMESTAMP)")
        if s.schema_sql is not None:
            raise bad("--exclude-types applies to the built-in workloads only; with --schema, leave those "
                      "columns out of the schema file")
    parse_key_dist(s.key_dist)
    return s


_SETTING_RE = re.compile(r"^(?:--([a-z][a-z-]*)|spec ([a-z_]+)(?:\.([^\s:]+))?)")


def setting_of(message: str) -> str | None:
    """The spec setting an error message is about (``--seed: ...`` -> ``seed``,
    ``spec columns.t.c: ...`` -> ``columns.t.c``), or None."""
    m = _SETTING_RE.match(message)
    if not m:
        return None
    if m.group(1):
        name = m.group(1).replace("-", "_")
        return {"schema": "schema_file", "compress": "transaction_compression"}.get(name, name)
    return m.group(2) + (f".{m.group(3)}" if m.group(3) else "")


_DEFAULTS = {
    "sysbench": {"mix": "insert=0.25,update=0.5,delete=0.25", "rows_per_txn": 4, "template": "oltp_write_only"},
    "ecommerce": {"mix": "insert=0.5,update=0.4,delete=0.1", "rows_per_txn": "1-5", "template": "ecommerce"},
    "alltypes": {"mix": "insert=0.4,update=0.4,delete=0.2", "rows_per_txn": "1-4", "template": "mix"},
    None: {"mix": "insert=0.4,update=0.4,delete=0.2", "rows_per_txn": "1-4", "template": "mix"},
}


def workload_defaults(name: str | None) -> dict[str, Any]:
    """Default mix / rows per transaction / template of a workload (None = custom DDL)."""
    return dict(_DEFAULTS[name])


def resolve(s: Spec) -> Spec:
    """Fill in what defaults to "the workload's choice" so the spec is fully explicit."""
    if isinstance(s, Mapping):
        s = Spec.from_dict(s)
    elif not isinstance(s, Spec):
        raise SpecError(f"spec: expected a Spec or a mapping of settings, got {type(s).__name__}")
    changes: dict[str, Any] = {}
    d = workload_defaults(s.workload)
    if s.template is None:
        changes["template"] = d["template"] if s.mix is None or s.workload == "ecommerce" else "mix"
    if s.mix is None:
        changes["mix"] = parse_mix(d["mix"])
    if s.rows_per_txn is None:
        changes["rows_per_txn"] = parse_range(d["rows_per_txn"])
    if s.transactions is None and s.size is None:
        changes["transactions"] = DEFAULT_TRANSACTIONS
    if s.gtid is None:
        changes["gtid"] = "0" if s.flavor.startswith("mariadb") else DEFAULT_UUID
    elif s.gtid != "anonymous" and not s.flavor.startswith("mariadb"):
        sid, _, tag = s.gtid.partition(":")
        changes["gtid"] = str(uuid.UUID(sid)) + (f":{tag.lower()}" if tag else "")
    return validate(replace(s, **changes)) if changes else s


@dataclass
class SpecFile:
    """A spec file's settings (keys normalised: ``_`` for ``-``, ``schema`` -> ``schema_file``)
    and the line of every top-level key (and of every ``columns`` entry as ``columns.T.C``)."""

    path: Path
    data: dict[str, Any]
    lines: dict[str, int]

    def where(self, setting: str | None) -> str:
        """``FILE:LINE`` of a setting (the file alone when its line is unknown)."""
        line = None
        while setting:
            line = self.lines.get(setting)
            if line is not None or "." not in setting:
                break
            setting = setting.rsplit(".", 1)[0]
        return f"{self.path}:{line}" if line is not None else str(self.path)


def _norm_key(k: Any) -> str:
    name = str(k).replace("-", "_")
    return _KEY_ALIASES.get(name, name)


_KEY_ALIASES = {"schema": "schema_file", "compress": "transaction_compression"}


def _yaml_lines(text: str, manifest: bool) -> dict[str, int]:
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except Exception:  # noqa: BLE001 - lines are a nicety; the parse error is reported elsewhere
        return {}
    if manifest and isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if getattr(k, "value", None) == "spec"), node)
    out: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return out
    for k, v in node.value:
        name = _norm_key(getattr(k, "value", ""))
        out.setdefault(name, k.start_mark.line + 1)
        if name == "columns" and isinstance(v, yaml.MappingNode):
            for ck, _ in v.value:
                out.setdefault(f"columns.{getattr(ck, 'value', '')}", ck.start_mark.line + 1)
    return out


def read_spec_file(path: str | Path) -> SpecFile:
    """Settings from a YAML or JSON file (a manifest.json: its ``spec`` member), with the
    line of each setting. A relative ``schema`` path is taken relative to the spec file's
    directory, and that file is read unless the spec holds the DDL text (``schema_sql``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(f"--spec: cannot read {path}: {e.strerror or e}", setting="spec") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"--spec: {path} is not UTF-8 text ({e.reason} at byte {e.start})", setting="spec") from None
    is_json = p.suffix.lower() == ".json"
    try:
        if is_json:
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}", setting="spec") from None
    except Exception as e:  # noqa: BLE001 - any parser error is a bad spec file
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or (str(e).strip().splitlines() or [type(e).__name__])[0]
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise SpecError(f"{where}: not valid {'JSON' if is_json else 'YAML'}: {problem}", setting="spec") from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise SpecError(f"{path}: a spec file must hold a mapping of settings (setting: value), "
                        f"not a {type(data).__name__}", setting="spec")
    manifest = "spec" in data and "generator" in data
    if manifest:
        data = data["spec"]
        if not isinstance(data, Mapping):
            raise SpecError(f"{path}: manifest has no spec mapping", setting="spec")
    if is_json:
        lines = {}
        for k in data:
            m = re.search(r'"' + re.escape(str(k)) + r'"\s*:', text)
            if m:
                lines[_norm_key(k)] = text.count("\n", 0, m.start()) + 1
    else:
        lines = _yaml_lines(text, manifest)
    out: dict[str, Any] = {}
    for k, v in data.items():
        name = _norm_key(k)
        if name in out:
            raise SpecError(f"{p}:{lines.get(name, '?')}: setting {k!r} given twice", setting=name)
        out[name] = v
    sf = SpecFile(p, out, lines)
    schema = out.get("schema_file")
    if schema is not None and out.get("schema_sql") is None:
        if not isinstance(schema, str) or not schema.strip():
            raise SpecError(f"{sf.where('schema_file')}: schema: expected the path of a .sql file, got {schema!r}",
                            setting="schema_file")
        sp = Path(schema).expanduser()
        if not sp.is_absolute():
            sp = p.parent / sp
        try:
            out["schema_sql"] = sp.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            why = getattr(e, "strerror", None) or str(e)
            raise SpecError(f"{sf.where('schema_file')}: schema: cannot read {sp}: {why}",
                            setting="schema_file") from None
        out["schema_file"] = str(sp)
        if "schema_file" in lines:
            lines["schema_sql"] = lines["schema_file"]
    return sf


def load_spec_file(path: str | Path) -> dict[str, Any]:
    """Settings from a YAML or JSON file (see :func:`read_spec_file`)."""
    return read_spec_file(path).data


def spec_as_json(s: Spec) -> str:
    return json.dumps(s.to_dict(), sort_keys=True, ensure_ascii=False)


__all__ += ["spec_as_json", "validate"]
