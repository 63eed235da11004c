"""Small helpers to write the built-in workloads' CREATE TABLE text."""

from __future__ import annotations

from functools import lru_cache

from binlogwriter.schema import GEOMETRY_TYPES, Table, parse_tables
from generators.spec import Spec


def _type_word(typedef: str) -> str:
    return typedef.replace("(", " ").split()[0].upper()


def create_table(name: str, columns: list[tuple[str, str]], keys: list[str], spec: Spec,
                 options: str = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4") -> str:
    """``CREATE TABLE name (...)`` without the columns whose type is in ``spec.exclude_types``."""
    excl = set(spec.exclude_types)
    if "GEOMETRY" in excl:
        excl |= set(GEOMETRY_TYPES)
    cols = [(c, d) for c, d in columns if _type_word(d) not in excl]
    names = {c for c, _ in cols}
    kept_keys = []
    for k in keys:
        inside = k[k.index("(") + 1:k.rindex(")")]
        parts = [p.strip().split("(")[0].strip("` ") for p in inside.split(",")]
        if all(p in names for p in parts):
            kept_keys.append(k)
    body = ",\n  ".join([f"`{c}` {d}" for c, d in cols] + kept_keys)
    return f"CREATE TABLE `{name}` (\n  {body}\n) {options}"


@lru_cache(maxsize=256)
def parsed_tables(sql: str, database: str, flavor: str, source: str | None = None) -> tuple[Table, ...]:
    """:func:`binlogwriter.schema.parse_tables`, memoised per process: a Run parses its
    tables' CREATE TABLE text each time it is built (the Spark job builds one per task), and
    the same text always gives the same (frozen) Tables. Errors are not memoised."""
    return tuple(parse_tables(sql, database, flavor, source=source))


def parse_one(sql: str, spec: Spec) -> Table:
    tables = parsed_tables(sql, spec.database, spec.flavor)
    assert len(tables) == 1, sql
    return tables[0]
