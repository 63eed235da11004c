"""Reading a generated run's truth in the change model (docs/output.md "The change model"):
``truth/changes`` as dicts (:func:`truth_changes`), the table definitions over time
(:func:`table_definitions`), and a consumer's changes put in the same canonical form
(:func:`canonical_changes`). Re-exported by :mod:`binlogwriter.testing`, where the
assertions that use them live."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from binlogwriter.truth_names import truth_table

__all__ = ["TRUTH_FIELDS", "MODEL_FIELDS", "truth_changes", "table_definitions", "canonical_changes", "final_files"]


# ------------------------------------------------------------------------------------
# truth/changes of a generated run (docs/output.md "Change-stream truth")
# ------------------------------------------------------------------------------------

TRUTH_FIELDS = ("op", "database", "table", "gtid", "file", "position", "row", "timestamp", "before", "after")
"""What :func:`assert_matches_truth` compares by default (change model names, docs/output.md
"The change model"): ``before`` / ``after`` are the images as the binlog carries them
(column -> canonical value, columns outside a MINIMAL/NOBLOB image left out), ``row`` the
change's index inside its transaction, ``timestamp`` Unix seconds."""

MODEL_FIELDS = ("seq", "row", "op", "database", "table", "before", "after", "before_row", "after_row", "gtid", "xid",
                "file", "position", "transaction_position", "timestamp")
"""The keys of one change of the change model (issue #31 §1), in order: what
:func:`truth_changes` yields, ``truth/changes/changes.jsonl`` holds and
:meth:`binlogwriter.read.changes.Change.as_dict` gives."""


def canonical_fns(columns: Mapping[str, Any], flavor: str) -> dict[str, Any]:
    """column name -> fn(Python value) -> canonical value (docs/output.md), for values as
    the reader decodes them or as Parquet truth loads them."""
    from binlogwriter.schema.tables import column_from_info
    from binlogwriter.values.families import family_of_type

    out = {}
    for name, info in columns.items():
        col = column_from_info(info)
        fam = family_of_type(col.type)
        if fam is None:
            raise ValueError(f"column {name}: no canonical form for {col.type}")
        fn = fam.truth_renderer(col, flavor)  # the type family's canonical form (docs/output.md)
        if col.type == "SET":
            fn = (lambda f: lambda v: f(v.split(",") if v else []) if isinstance(v, str) else f(v))(fn)
        elif col.type == "JSON":
            fn = (lambda f: lambda v: v if isinstance(v, str) else f(v))(fn)
        out[name] = fn
    return out


def run_flavor(run_dir: Path) -> str:
    import json

    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["format"]["flavor"]


def truth_changes(run_dir: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Every change of ``run_dir/truth/changes/*.parquet`` in commit order (by ``seq``, then
    ``row``), in the change model (keys :data:`MODEL_FIELDS`, docs/output.md "The change
    model"): ``database`` and ``table`` apart, ``before`` / ``after`` the images (only the
    columns the image carries), ``before_row`` / ``after_row`` the full rows, ``timestamp``
    Unix seconds, values in canonical form. Reads one batch per table at a time."""
    import heapq
    import json

    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    flavor = run_flavor(run_dir)

    def one(path: Path) -> Iterator[tuple[tuple[int, int], dict[str, Any]]]:
        f = pq.ParquetFile(path)
        meta = json.loads((f.schema_arrow.metadata or {}).get(b"binlogwriter.columns", b"{}"))
        fns = canonical_fns(meta, flavor)
        for batch in f.iter_batches(batch_size=4096):
            for rec in batch.to_pylist():
                out = {"seq": rec["seq"], "row": rec["row"], "op": rec["op"], "database": rec["database"],
                       "table": rec["table"]}
                for side in ("before", "after"):
                    full = rec[side]
                    if full is None:
                        out[side] = out[side + "_row"] = None
                        continue
                    text = dict(rec[side + "_text"] or ())
                    keep = rec[side + "_columns"]
                    row = {c: (text[c] if c in text else None if full[c] is None else fns[c](full[c]))
                           for c in rec["columns"]}
                    out[side + "_row"] = row
                    out[side] = {c: row.get(c) for c in keep}
                out = {k: out[k] for k in MODEL_FIELDS[:9]}
                out.update(gtid=rec["gtid"], xid=rec.get("xid"), file=rec["file"], position=rec["position"],
                           transaction_position=rec["transaction_position"],
                           timestamp=int(rec["timestamp"].timestamp()))
                yield (rec["seq"], rec["row"]), out

    files = sorted((run_dir / "truth" / "changes").glob("*.parquet"))
    for _, change in heapq.merge(*(one(p) for p in files), key=lambda x: x[0]):
        yield change


def table_definitions(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """``run_dir/truth/schema_history.jsonl``: every table definition the run used, one dict
    per definition — ``seq`` (the change model's ``seq`` of the first transaction it applies
    to; 0 for the initial schema), ``database``, ``table``, ``create`` (CREATE TABLE text; None
    once the table is dropped) and ``columns`` (names in order) — in the order written
    (ascending ``seq``). Map a consumer's column positions to names with the last definition
    of the table whose ``seq`` is at most the change's."""
    import json

    path = Path(run_dir) / "truth" / "schema_history.jsonl"
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def final_files(run_dir: str | os.PathLike, sub: str = "final") -> dict[tuple[str, str], Path]:
    """``(database, table)`` -> the table's ``truth/<sub>/<db>.<table>.jsonl`` file (its
    final rows), for every such file of the run (``sub="replica/final"``: the replica's),
    in file name order; the names are read back by binlogwriter/truth_names.py."""
    d = Path(run_dir) / "truth" / sub
    return {truth_table(p.name, ".jsonl"): p for p in sorted(d.glob("*.jsonl"))}


def canonical_changes(changes: Iterable[Any], run_dir: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """A consumer's changes in the change model with values in canonical form, using the
    column types the run's truth records, ready to compare with :func:`truth_changes`.

    ``changes``: :class:`binlogwriter.read.changes.Change` objects (through their
    ``as_dict()``), or mappings with the model's names — ``op``, ``database`` + ``table``
    (or, legacy, ``table`` as ``db.name`` alone), ``before`` / ``after`` image dicts and
    whatever else the consumer knows (``gtid``, ``file``, ``position``, ``row``, ...). The
    result has ``database`` and ``table`` apart, ``file`` as a basename, other keys as
    given."""
    import json

    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    flavor = run_flavor(run_dir)
    fns: dict[str, dict[str, Any]] = {}
    for p in (run_dir / "truth" / "changes").glob("*.parquet"):
        meta = json.loads((pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
        fns[".".join(truth_table(p.name, ".parquet"))] = canonical_fns(meta, flavor)
    for c in changes:
        if isinstance(c, Mapping):
            d = dict(c)
        elif hasattr(c, "as_dict"):
            d = c.as_dict()
        else:
            d = {k: getattr(c, k) for k in (
                "op", "database", "table", "before", "after", "gtid", "file", "position", "row", "timestamp")}
        if d.get("database") is None and "." in (d.get("table") or ""):
            d["database"], d["table"] = d["table"].split(".", 1)
        f = fns.get(f"{d.get('database')}.{d.get('table')}", {})
        for side in ("before", "after", "before_row", "after_row"):
            img = d.get(side)
            if img is not None:
                d[side] = {k: None if v is None else f[k](v) if k in f else v for k, v in img.items()}
        if d.get("file") is not None:
            d["file"] = os.path.basename(os.fspath(d["file"]))
        yield d


def truth_columns(run_dir: Path) -> dict[str, dict[str, Any]]:
    """``db.table`` -> {column name: column description} from the truth Parquet schema
    metadata ``binlogwriter.columns`` (docs/output.md)."""
    import json

    import pyarrow.parquet as pq

    out: dict[str, dict[str, Any]] = {}
    for p in (run_dir / "truth" / "changes").glob("*.parquet"):
        meta = json.loads((pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
        out[".".join(truth_table(p.name, ".parquet"))] = meta
    return out
