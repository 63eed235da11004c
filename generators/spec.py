"""The workload spec: frozen, validated, serialisable (docs/design.md).

A :class:`Spec` holds every setting of a run — the command-line options of
``binlogwriter generate`` and per-column value generators — fully resolved: workload
defaults are filled in by :func:`resolve`, so ``Spec.to_dict()`` (recorded as
``manifest.json["spec"]``) regenerates the run byte-identically on its own.

Loading (:func:`load_spec_file`) takes YAML or JSON; a ``manifest.json`` is accepted too
(its ``spec`` member is used). Every invalid value raises :class:`SpecError` with one line
naming the setting.

Size (about 480 lines): the one frozen dataclass of every setting and its validation, which
must stay together (``to_dict`` and ``validate`` walk the same fields).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from binlogwriter.errors import did_you_mean
from binlogwriter.format import FLAVORS
from binlogwriter.schema import KNOWN_TYPES
from generators.errors import SpecError
from generators.replica.settings import ReplicaSettings, parse_replica
from generators.spec_file import SpecFile, load_spec_file, norm_key, null_key, read_spec_file, spec_as_json
from generators.spec_values import (
    CHECKSUMS,
    DEFAULT_START_TIME,
    DEFAULT_TRANSACTIONS,
    DEFAULT_UUID,
    GEN_KINDS,
    GEN_PARAMS,
    IDENT_RE,
    ROW_IMAGE,
    ROW_METADATA,
    TEMPLATES,
    WORKLOADS,
    parse_fraction,
    parse_key_dist,
    parse_mix,
    parse_range,
    parse_size,
    parse_start_time,
)

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
    edge_values: float | None = None
    dependency_tracking: str | None = None
    charset_stress: float | None = None
    parallel_groups: int | None = None
    replica: ReplicaSettings | None = None
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
            elif f.name == "replica":
                d[f.name] = None if v is None else v.to_dict()
            elif f.name == "rows_per_txn":
                d[f.name] = None if v is None else list(v)
            else:
                d[f.name] = v
        return {k: v for k, v in d.items() if v is not None or k not in ("edge_values", "replica", "dependency_tracking",
                                                                      "parallel_groups", "charset_stress")}  # only when given

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Spec:
        """Build and validate a spec from a mapping (option names with ``-`` or ``_``)."""
        if not isinstance(data, Mapping):
            raise SpecError("spec: expected a mapping of settings")
        known = {f.name for f in fields(cls)}
        kw: dict[str, Any] = {}
        for k, v in data.items():
            name = norm_key(k)
            if name not in known:
                raise SpecError(f"spec: unknown setting {k!r}{did_you_mean(name, sorted(known))}", setting=name)
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
    elif k == "dependency_tracking":
        out[k] = str(v).strip().lower().replace("-", "_")
    elif k in ("seed", "transactions", "initial_rows", "server_id", "ddl_every", "tables", "parallel_groups"):
        if isinstance(v, bool) or not isinstance(v, int | str):
            raise SpecError(f"--{k.replace('_', '-')}: expected an integer, got {v!r}")
        try:
            out[k] = int(v)
        except ValueError:
            raise SpecError(f"--{k.replace('_', '-')}: expected an integer, got {v!r}") from None
    elif k == "edge_values":
        out[k] = parse_fraction(v, "--edge-values")
    elif k == "charset_stress":
        out[k] = parse_fraction(v, "--charset-stress")
    elif k == "replica":
        out[k] = parse_replica(v)
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
        conf = null_key(conf, target)
        if "." not in str(target):
            raise SpecError(f"spec columns: {target!r} must be table.column")
        gen = str(conf.get("gen", "default"))
        if gen not in GEN_KINDS:
            raise SpecError(f"spec columns.{target}: unknown gen {gen!r}{did_you_mean(gen, GEN_KINDS)} "
                            f"(one of {', '.join(GEN_KINDS)})")
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


CHARSET_STRESS_DEFAULT = 0.1
"""``--charset-stress`` when not given: the share of text values from the multilingual pool."""


def charset_stress_of(spec: Spec) -> float:
    """The run's share of multilingual text values (``charset_stress``, default
    :data:`CHARSET_STRESS_DEFAULT`; generators/columns/_stress.py ``stress_pool``)."""
    return CHARSET_STRESS_DEFAULT if spec.charset_stress is None else float(spec.charset_stress)


def validate(s: Spec) -> Spec:
    """Check every field; raise SpecError naming the option (the first bad one, in the order
    of the steps below). Returns ``s`` unchanged."""
    _check_source(s)
    _check_flavor(s)
    _check_files(s)
    _check_gtid(s)
    _check_workload_options(s)
    return s


def _bad(msg: str) -> SpecError:
    """A SpecError for ``msg``, with the setting its message names."""
    return SpecError(msg, setting=setting_of(msg))


def _check_source(s: Spec) -> None:
    """What is generated and how much: the workload or schema, database, tables, seed,
    transactions or size, initial rows."""
    if s.workload is not None and s.workload not in WORKLOADS:
        raise _bad(f"--workload: unknown workload {s.workload!r}{did_you_mean(str(s.workload), WORKLOADS)} "
                   f"(one of {', '.join(WORKLOADS)})")
    if s.workload is not None and s.schema_sql is not None:
        raise _bad("--workload and --schema are exclusive")
    if s.workload is None and s.schema_sql is None:
        raise _bad("either --workload or --schema is needed")
    if s.schema_sql is not None and not isinstance(s.schema_sql, str):
        raise _bad("spec schema_sql: expected the text of CREATE TABLE statements")
    if not isinstance(s.database, str) or not IDENT_RE.match(s.database):
        raise _bad(f"--database: not a valid database name: {s.database!r}")
    if not 1 <= s.tables <= 1000:
        raise _bad(f"--tables: expected 1..1000, got {s.tables}")
    if not 0 <= s.seed < 2**63:
        raise _bad(f"--seed: expected 0 <= N < 2^63, got {s.seed}")
    if s.transactions is not None and s.size is not None:
        raise _bad("--transactions and --size are exclusive")
    if s.transactions is not None and not 0 <= s.transactions <= 10**10:
        raise _bad(f"--transactions: expected 0..10^10, got {s.transactions}")
    if not 0 <= s.initial_rows <= 10**8:
        raise _bad(f"--initial-rows: expected 0..10^8, got {s.initial_rows}")


def _check_flavor(s: Spec) -> None:
    """The flavor, the charset stress, and the settings the flavor allows or shapes:
    dependency tracking, parallel groups, row metadata and image, checksum."""
    if s.flavor not in FLAVORS:
        raise _bad(f"--flavor: unknown flavor {s.flavor!r}{did_you_mean(str(s.flavor), FLAVORS)} "
                   f"(one of {', '.join(FLAVORS)})")
    if s.charset_stress is not None and (isinstance(s.charset_stress, bool)
                                         or not isinstance(s.charset_stress, int | float)
                                         or not 0.0 <= s.charset_stress <= 1.0):
        raise _bad(f"--charset-stress: expected a fraction 0..1, got {s.charset_stress!r}")
    if s.dependency_tracking is not None:
        if s.dependency_tracking not in ("writeset", "commit_order"):
            raise _bad(f"--dependency-tracking: expected writeset or commit_order, got {s.dependency_tracking!r}")
        if s.flavor.startswith("mariadb"):
            raise _bad("--dependency-tracking: MySQL's logical clock (mysql80, mysql84); MariaDB groups "
                       "transactions with --parallel-groups")
        if s.flavor == "mysql84" and s.dependency_tracking != "writeset":
            raise _bad("--dependency-tracking: MySQL 8.4 tracks WRITESET only (commit_order is 8.0's)")
    if s.parallel_groups is not None:
        if isinstance(s.parallel_groups, bool) or not isinstance(s.parallel_groups, int) or not 0 <= s.parallel_groups <= 1000:
            raise _bad(f"--parallel-groups: expected 0..1000, got {s.parallel_groups!r}")
        if s.parallel_groups and not s.flavor.startswith("mariadb"):
            raise _bad("--parallel-groups: MariaDB group commit ids (mariadb1011); MySQL's logical clock is "
                       "--dependency-tracking")
    if s.row_metadata not in ROW_METADATA:
        raise _bad(f"--row-metadata: expected NO_LOG, MINIMAL or FULL, got {s.row_metadata!r}")
    if s.row_metadata == "NO_LOG" and not s.flavor.startswith("mariadb"):
        raise _bad("--row-metadata NO_LOG exists only in MariaDB (MySQL has MINIMAL and FULL)")
    if s.row_image not in ROW_IMAGE:
        raise _bad(f"--row-image: expected FULL, MINIMAL or NOBLOB, got {s.row_image!r}")
    if s.checksum not in CHECKSUMS:
        raise _bad(f"--checksum: expected CRC32 or NONE, got {s.checksum!r}")


def _check_files(s: Spec) -> None:
    """The files' and events' limits, the server id, the DDL period and the file base name."""
    if not 4096 <= s.max_binlog_size <= 1 << 40:
        raise _bad(f"--max-binlog-size: expected 4K..1T, got {s.max_binlog_size}")
    if not 1024 <= s.row_event_max_size <= 1 << 30:
        raise _bad(f"--row-event-max-size: expected 1K..1G, got {s.row_event_max_size}")
    if not 1 <= s.server_id < 2**32:
        raise _bad(f"--server-id: expected 1..4294967295, got {s.server_id}")
    if not 0 <= s.ddl_every <= 10**9:
        raise _bad(f"--ddl-every: expected N >= 0, got {s.ddl_every}")
    if not isinstance(s.basename, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", s.basename) \
            or s.basename.startswith("."):
        raise _bad(f"--basename: not a valid file base name: {s.basename!r}")


def _check_gtid(s: Spec) -> None:
    """The GTID setting (a MariaDB domain, or MySQL's anonymous / UUID / UUID:tag) and
    transaction compression (MySQL's only)."""
    if s.gtid is not None:
        g = s.gtid
        if s.flavor.startswith("mariadb"):
            if not (isinstance(g, str) and g.isdigit() and int(g) < 2**32):
                raise _bad("--gtid: MariaDB always writes GTIDs; give a domain id (0..4294967295) or leave it out")
        elif g != "anonymous":
            sid, _, tag = str(g).partition(":")
            try:
                uuid.UUID(sid)
            except ValueError:
                raise _bad(f"--gtid: expected 'anonymous', a server UUID or UUID:tag, got {g!r}") from None
            if tag:
                if s.flavor != "mysql84":
                    raise _bad("--gtid UUID:tag: tagged GTIDs exist from MySQL 8.3 on (--flavor mysql84)")
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,31}", tag):
                    raise _bad(f"--gtid: tag {tag!r} must be 1-32 letters, digits or '_', not starting with a digit")
    if s.transaction_compression and s.flavor.startswith("mariadb"):
        raise _bad("--compress: binlog_transaction_compression is MySQL's (8.0.20+); MariaDB has none")


def _check_workload_options(s: Spec) -> None:
    """The options of one workload: the sysbench / ecommerce templates, ecommerce's
    initial rows, excluded types (built-in workloads only) and the key distribution."""
    if s.template is not None and s.template not in TEMPLATES:
        raise _bad(f"spec template: unknown template {s.template!r}{did_you_mean(str(s.template), TEMPLATES)} "
                   f"(one of {', '.join(TEMPLATES)})")
    if s.template == "oltp_write_only" and s.workload != "sysbench":
        raise _bad("spec template oltp_write_only needs --workload sysbench")
    if s.template == "ecommerce" and s.workload != "ecommerce":
        raise _bad("spec template ecommerce needs --workload ecommerce")
    if s.workload == "ecommerce" and s.initial_rows < 1:
        raise _bad("--initial-rows: the ecommerce workload needs at least 1 (orders refer to existing customers and products)")
    write_only = s.template == "oltp_write_only" or (s.template is None and s.mix is None)
    if s.workload == "sysbench" and write_only and s.initial_rows < 1:
        # an empty table gives oltp_write_only nothing to change: a --size or endless run
        # would never end (and --transactions N is refused when planned)
        raise _bad("--initial-rows: sysbench's oltp_write_only needs at least 1 (it updates, deletes and "
                   "re-inserts existing rows; give --mix for INSERTs into empty tables)")
    if s.exclude_types:
        unknown = [t for t in s.exclude_types if t not in KNOWN_TYPES]
        if unknown:
            raise _bad(f"--exclude-types: unknown type {unknown[0]!r}{did_you_mean(str(unknown[0]), KNOWN_TYPES)} "
                       "(column types such as JSON, GEOMETRY, "
                       "BLOB, TEXT, ENUM, SET, BIT, DECIMAL, TIMESTAMP)")
        if s.schema_sql is not None:
            raise _bad("--exclude-types applies to the built-in workloads only; with --schema, leave those "
                       "columns out of the schema file")
    parse_key_dist(s.key_dist)


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


__all__ += ["spec_as_json", "validate"]
