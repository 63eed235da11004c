"""The replica's settings of a run (``generate --replica-schema FILE --replica-conversions ...
--replica-flavor ...``, spec key ``replica``): its DDL, its ``slave_type_conversions`` and its
flavor (docs/replica.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generators.errors import SpecError

CONVERSIONS = ("ALL_LOSSY", "ALL_NON_LOSSY")
FLAVORS = ("mariadb1011",)
SUPPORTED_LATER = ("mysql80", "mysql84")


@dataclass(frozen=True)
class ReplicaSettings:
    """``schema_sql``: the replica's CREATE TABLE statements (same database and table names as
    the primary's); ``conversions``: the members of ``slave_type_conversions`` (sorted);
    ``flavor``: the replica's server (MariaDB 10.11 only for now)."""

    schema_sql: str
    conversions: tuple[str, ...] = ()
    flavor: str = "mariadb1011"

    def to_dict(self) -> dict[str, Any]:
        return {"schema_sql": self.schema_sql, "conversions": list(self.conversions), "flavor": self.flavor}


def parse_conversions(v: Any) -> tuple[str, ...]:
    """``ALL_NON_LOSSY,ALL_LOSSY`` (or a list) -> sorted members; empty -> none."""
    if v is None:
        return ()
    if not isinstance(v, str | list | tuple):
        raise SpecError(f"--replica-conversions: expected a list of {', '.join(CONVERSIONS)}, got {v!r}",
                        setting="replica")
    items = v.split(",") if isinstance(v, str) else [str(x) for x in v]
    out = set()
    for x in items:
        x = x.strip().upper()
        if not x:
            continue
        if x not in CONVERSIONS:
            raise SpecError(f"--replica-conversions: unknown value {x!r} (expected {', '.join(CONVERSIONS)})",
                            setting="replica")
        out.add(x)
    return tuple(sorted(out))


def parse_flavor(v: Any) -> str:
    v = str(v or "mariadb1011").strip().lower()
    if v in SUPPORTED_LATER:
        raise SpecError(f"--replica-flavor: {v} replicas are not modelled yet: every rule of the model is read from a "
                        "real server and no MySQL server was available to read them from (only mariadb1011)",
                        setting="replica")
    if v not in FLAVORS:
        raise SpecError(f"--replica-flavor: expected mariadb1011, got {v!r}", setting="replica")
    return v


def parse_replica(v: Any, base: Path | None = None) -> ReplicaSettings | None:
    """The spec's ``replica`` mapping: ``schema`` (a file, relative to ``base``) or
    ``schema_sql`` (the DDL text), ``conversions``, ``flavor``."""
    if v is None or isinstance(v, ReplicaSettings):
        return v
    if not isinstance(v, Mapping):
        raise SpecError("replica: expected a mapping with schema (or schema_sql), conversions, flavor",
                        setting="replica")
    unknown = set(v) - {"schema", "schema_sql", "conversions", "flavor"}
    if unknown:
        raise SpecError(f"replica: unknown setting {sorted(unknown)[0]!r} (expected schema, schema_sql, "
                        "conversions, flavor)", setting="replica")
    sql = v.get("schema_sql")
    if sql is None and v.get("schema") is not None:
        path = Path(str(v["schema"]))
        if base is not None and not path.is_absolute():
            path = base / path
        try:
            sql = path.read_text("utf-8")
        except OSError as e:
            raise SpecError(f"--replica-schema: cannot read {path}: {e.strerror or e}", setting="replica") from None
    if not isinstance(sql, str) or not sql.strip():
        raise SpecError("replica: schema (a file) or schema_sql (DDL text) is required", setting="replica")
    return ReplicaSettings(sql, parse_conversions(v.get("conversions")), parse_flavor(v.get("flavor")))
