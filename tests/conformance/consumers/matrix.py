"""The conformance matrix: every consumer adapter × binlog shape (docs/consumers.md).

Shapes: generated runs (ecommerce workload: many column types, DDL and initial rows in the
binlog, several files) of each flavor the consumer reads × row image × row metadata — by
default FULL/FULL plus one more combination per flavor drawn with a fixed seed (CI-sized;
``BINLOGWRITER_MATRIX=all`` takes every combination) — and every catalogue entry
(binlogwriter.fixtures, not the large ones) in each flavor the consumer reads.

One cell: serve the shape in-process (binlogwriter.serve.serving, one server re-pointed per
cell), ``adapter.decode(endpoint, expected_changes=N)``, compare with the truth:

- generated run: ``binlogwriter.testing.assert_matches_truth(decoded, run_dir,
  fields=("op", "table", "before", "after"), profile=...)`` (:func:`profile_of`: the
  comparison's consumer profile normalises the consumer's representation);
- catalogue case: the same comparison against the case's truth (``WrittenBinlogs.changes``),
  both sides in the canonical form of docs/output.md (each column's type family renderer);
- an adapter with ``MODE = "final_rows"`` (a replica) is compared on the rows left in each
  table (truth/final, or ``WrittenBinlogs.rows``), as multisets.

expectations.toml (and each consumer's own ``<consumer>/expectations.toml``) lists the cells known to fail (consumer, shape pattern, reason, public link);
every other cell must pass. ``python -m tests.conformance.consumers.matrix --write
docs/consumers.md`` runs every cell and writes the table.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter.testing import final_files

from .base import FLAVORS, HERE, Adapter, ServedEndpoint, discover

ROOT = HERE.parents[2]
EXPECTATIONS = HERE / "expectations.toml"
COMPARED = ("op", "table", "before", "after")
IMAGES = ("FULL", "MINIMAL", "NOBLOB")
METADATA = {"mysql80": ("FULL", "MINIMAL"), "mysql84": ("FULL", "MINIMAL"),
            "mariadb1011": ("FULL", "MINIMAL", "NO_LOG")}


@dataclass(frozen=True)
class Shape:
    """One binlog shape: ``id`` is ``run:FLAVOR:IMAGE:METADATA`` or ``catalogue:ENTRY:FLAVOR``."""

    kind: str
    flavor: str
    image: str = "FULL"
    metadata: str = "FULL"
    entry: str | None = None

    @property
    def id(self) -> str:
        if self.kind == "run":
            return f"run:{self.flavor}:{self.image}:{self.metadata}"
        return f"catalogue:{self.entry}:{self.flavor}"


def run_shapes(flavors: Iterable[str], every: bool | None = None) -> list[Shape]:
    every = os.environ.get("BINLOGWRITER_MATRIX") == "all" if every is None else every
    out = []
    for flavor in flavors:
        combos = [(i, m) for i in IMAGES for m in METADATA[flavor]]
        if not every:
            rest = combos[1:]
            combos = [combos[0], random.Random(f"matrix:{flavor}").choice(rest)]
        out += [Shape("run", flavor, i, m) for i, m in combos]
    return out


def catalogue_shapes(flavors: Iterable[str]) -> list[Shape]:
    from binlogwriter.fixtures import ENTRIES

    fl = set(flavors)
    return [Shape("catalogue", f, entry=e.name) for e in ENTRIES.values() if not e.large
            for f in e.flavors if f in fl]


def shapes_for(adapter: Adapter) -> list[Shape]:
    flavors = [f for f in FLAVORS if f in adapter.flavors]
    return run_shapes(flavors) + catalogue_shapes(flavors)


# ------------------------------------------------------------------------------ expectations

@dataclass(frozen=True)
class Expectation:
    status: str  # "pass" | "fails"
    reason: str = ""
    link: str = ""


def load_expectations(path: Path | None = None) -> list[dict[str, Any]]:
    """The rules of ``path``; by default those of every consumer's own
    ``<consumer>/expectations.toml`` (each harness owns its known failures) followed by the
    shared ``expectations.toml``."""
    if path is None:
        return [r for p in [*sorted(HERE.glob("*/expectations.toml")), EXPECTATIONS] for r in load_expectations(p)]
    data = tomllib.loads(path.read_text("utf-8")) if path.is_file() else {}
    rules = data.get("expect", [])
    for r in rules:
        if not {"consumer", "shape", "status"} <= set(r) or r["status"] not in ("pass", "fails"):
            raise ValueError(f"{path}: an [[expect]] needs consumer, shape and status pass|fails: {r}")
        if r["status"] == "fails" and not r.get("reason"):
            raise ValueError(f"{path}: a failing cell needs a reason: {r}")
    return rules


def expectation(consumer: str, shape: Shape, rules: list[dict[str, Any]] | None = None) -> Expectation:
    """The first rule whose consumer and shape patterns (fnmatch) match; else pass."""
    for r in rules if rules is not None else load_expectations():
        if fnmatch.fnmatchcase(consumer, r["consumer"]) and fnmatch.fnmatchcase(shape.id, r["shape"]):
            return Expectation(r["status"], r.get("reason", ""), r.get("link", ""))
    return Expectation("pass")


# ------------------------------------------------------------------------------ materialise

_MADE: dict[tuple[str, str], Any] = {}


def materialise(shape: Shape, workdir: Path) -> tuple[Path, Any]:
    """(directory to serve, WrittenBinlogs or None) for ``shape``, written once per process."""
    key = (str(workdir), shape.id)
    if key in _MADE:
        return _MADE[key]
    safe = shape.id.replace(":", "-")
    if shape.kind == "run":
        from generators.engine import generate
        from generators.spec import Spec

        out = workdir / safe
        generate(Spec.from_dict(dict(workload="ecommerce", flavor=shape.flavor, row_image=shape.image,
                                     row_metadata=shape.metadata, seed=7, transactions=30, initial_rows=4,
                                     ddl_in_binlog=True, max_binlog_size=20000, database="mx")), out)
        _MADE[key] = (out, None)
    else:
        from binlogwriter.fixtures import entry

        case = entry(shape.entry or "").write(workdir / safe, shape.flavor)
        write_schema_history(case)
        _MADE[key] = (Path(case.directory), case)
    return _MADE[key]


def write_schema_history(case: Any) -> Path:
    """``truth/schema_history.jsonl`` of a catalogue case, in the shared format (issue #31 §1:
    ``seq`` of the first transaction a definition applies from, ``database``, ``table``,
    ``create``, ``columns``), so adapters map column positions to names as for a run."""
    from binlogwriter.fixtures import Ddl, table_sql

    lines = [{"seq": 0, "database": t.database, "table": t.name, "create": table_sql(t),
              "columns": [c.name for c in t.columns]} for t in case.tables]
    seq = 0
    for tx in case.transactions:
        if isinstance(tx, Ddl):
            t = tx.table
            lines.append({"seq": seq, "database": t.database, "table": t.name, "create": table_sql(t),
                          "columns": [c.name for c in t.columns]})
        else:
            seq += 1
    path = Path(case.directory) / "truth" / "schema_history.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ truth

def _fns(table: Any, flavor: str) -> dict[str, Callable[[Any], Any]]:
    """column name -> canonical form (docs/output.md) for the columns of a schema Table."""
    from binlogwriter.values.families import family_of_type

    out = {}
    for col in table.columns:
        fam = family_of_type(col.type)
        fn = fam.truth_renderer(col, flavor) if fam is not None else (lambda v: v)
        if col.type == "SET":
            fn = (lambda f: lambda v: f(v.split(",") if v else []) if isinstance(v, str) else f(v))(fn)
        elif col.type == "JSON":
            fn = (lambda f: lambda v: v if isinstance(v, str) else f(v))(fn)
        out[col.name] = fn
    return out


def _canon(fns: Mapping[str, Callable[[Any], Any]], img: Mapping[str, Any] | None) -> dict | None:
    if img is None:
        return None
    out = {}
    for k, v in img.items():
        try:
            out[k] = None if v is None else fns[k](v) if k in fns else v
        except Exception:  # a value the renderer cannot take: compared as it came
            out[k] = v
    return out


def catalogue_truth(case: Any) -> list[dict[str, Any]]:
    """``case.changes`` in the change model, images keyed by name, values canonical."""
    from binlogwriter.values import ABSENT

    out = []
    for st in case.statements():
        names = [c.name for c in st.table.columns]
        fns = _fns(st.table, case.flavor)
        for c in st.changes:
            bi, ai = c.images(case.settings.row_image, case.flavor)
            rec: dict[str, Any] = {"op": c.op, "table": f"{st.table.database}.{st.table.name}", "_fns": fns}
            for side, img in (("before", bi), ("after", ai)):
                rec[side] = None if img is None else _canon(
                    fns, {n: v for n, v in zip(names, img, strict=True) if v is not ABSENT})
            out.append(rec)
    return out


def _table_of(change: Mapping[str, Any]) -> str:
    return f"{change['database']}.{change['table']}" if "database" in change else change["table"]


def assert_catalogue_matches(decoded: list[dict[str, Any]], case: Any) -> int:
    """The consumer's changes equal the case's truth, change by change (first 5 differences)."""
    want = catalogue_truth(case)
    problems = []
    if len(decoded) != len(want):
        problems.append(f"{len(decoded)} changes decoded, {len(want)} in the truth")
    for k, (g, w) in enumerate(zip(decoded, want, strict=False)):
        lines = []
        if (g.get("op"), _table_of(g)) != (w["op"], w["table"]):
            lines.append(f"  decoded {g.get('op')} on {_table_of(g)}, truth {w['op']} on {w['table']}")
        else:
            for side in ("before", "after"):
                gv, wv = _canon(w["_fns"], g.get(side)), w[side]
                if gv is None or wv is None:
                    if gv is not wv:
                        lines.append(f"  {side}: decoded {gv!r}, truth {wv!r}")
                    continue
                for col in list(wv) + [c for c in gv if c not in wv]:
                    if col not in gv:
                        lines.append(f"  {side}.{col}: not decoded (absent), truth {wv[col]!r}")
                    elif col not in wv:
                        lines.append(f"  {side}.{col}: decoded {gv[col]!r}, not in the truth's image")
                    elif gv[col] != wv[col] or type(gv[col]) is not type(wv[col]):
                        lines.append(f"  {side}.{col}: decoded {gv[col]!r}, truth {wv[col]!r}")
        if lines:
            problems.append(f"change {k} ({w['op']} {w['table']}):")
            problems += lines
        if sum(1 for p in problems if p.startswith("change ")) >= 5:
            break
    if problems:
        raise AssertionError("change stream differs from the catalogue case's truth\n" + "\n".join(problems))
    return len(want)


def _final_truth(run_dir: Path, case: Any) -> dict[str, list[dict[str, Any]]]:
    if case is None:
        out = {}
        for (db, table), p in final_files(run_dir).items():
            out[f"{db}.{table}"] = [json.loads(line) for line in p.read_text("utf-8").splitlines()]
        return out
    from binlogwriter.fixtures import Ddl

    last = {f"{t.database}.{t.name}": t for t in case.tables}
    for tx in case.transactions:
        if isinstance(tx, Ddl):
            last[f"{tx.table.database}.{tx.table.name}"] = tx.table
    out = {}
    for key, rows in case.rows.items():
        t = last[key]
        fns = _fns(t, case.flavor)
        out[key] = [_canon(fns, dict(zip([c.name for c in t.columns], r, strict=True))) for r in rows]
    return out


def assert_final_rows_match(decoded: list[dict[str, Any]], run_dir: Path, case: Any) -> int:
    """Rows the consumer ended with (``op == "row"``) equal the truth's final rows, per table."""
    want = _final_truth(run_dir, case)
    if case is None:
        from binlogwriter.testing import canonical_changes

        decoded = list(canonical_changes(decoded, run_dir))
    else:
        last_fns = {k: None for k in want}
        decoded = [{k: v for k, v in d.items() if k != "database"} | {"table": _table_of(d)} for d in decoded]
        for d in decoded:
            key = d["table"]
            if key in last_fns:
                t = next((t for t in case.tables if f"{t.database}.{t.name}" == key), None)
                d["after"] = _canon(_fns(t, case.flavor), d["after"]) if t is not None else d["after"]
    got: dict[str, list] = {k: [] for k in want}
    for d in decoded:
        got.setdefault(_table_of(d), []).append(d["after"])
    problems = []
    for key in sorted(set(want) | set(got)):
        w = sorted(map(repr, want.get(key, [])))
        g = sorted(map(repr, got.get(key, [])))
        if w != g:
            missing = [r for r in w if r not in g][:3]
            extra = [r for r in g if r not in w][:3]
            problems.append(f"{key}: {len(g)} rows, truth {len(w)}; missing {missing}; unexpected {extra}")
    if problems:
        raise AssertionError("final rows differ from the truth\n" + "\n".join(problems))
    return sum(len(v) for v in want.values())


def expected_changes(run_dir: Path, case: Any) -> int:
    if case is not None:
        return len(case.changes)
    from binlogwriter.testing import truth_changes

    return sum(1 for _ in truth_changes(run_dir))


def compare(adapter: Adapter, decoded: list[dict[str, Any]], run_dir: Path, case: Any) -> int:
    """Raise AssertionError naming the differences; else the number of changes compared."""
    if adapter.mode == "final_rows":
        return assert_final_rows_match(decoded, run_dir, case)
    if case is not None:
        return assert_catalogue_matches(decoded, case)
    from binlogwriter.testing import assert_matches_truth

    return assert_matches_truth(decoded, run_dir, fields=COMPARED, profile=profile_of(adapter))


def profile_of(adapter: Adapter) -> str:
    """The comparison profile (binlogwriter.compare, docs/testing.md "Consumer profiles") of
    an adapter: its ``PROFILE`` when it sets one, else its ``NAME`` when a profile has that
    name, else ``exact`` (a consumer whose adapter already gives natural Python values)."""
    from binlogwriter.compare import PROFILES

    named = getattr(adapter.module, "PROFILE", None)
    if named is not None:
        return str(named)
    return adapter.name if adapter.name in PROFILES else "exact"


# ------------------------------------------------------------------------------ one cell

_IDS = iter(range(3001, 1 << 31))


def run_cell(adapter: Adapter, shape: Shape, workdir: Path, serve: Callable[[Path, Any], Any],
             timeout: float = 120.0) -> int:
    """Serve ``shape`` (``serve(path, case)`` -> host/port/user/password/flavor; ``case``: the
    catalogue case or None, whose ``server_variables`` the server reports), decode it with the
    adapter, compare. Raises on a difference (AssertionError) or a consumer error."""
    module = adapter.check()
    run_dir, case = materialise(shape, workdir)
    served = serve(run_dir, case)
    endpoint = ServedEndpoint(served.host, served.port, served.user, served.password, shape.flavor, run_dir,
                              next(_IDS))
    n = expected_changes(run_dir, case)
    decoded = module.decode(endpoint, expected_changes=n, timeout=timeout)
    return compare(adapter, list(decoded), run_dir, case)


# ------------------------------------------------------------------------------ the command

def _first_line(exc: BaseException) -> str:
    text = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    head = text[0] if text else type(exc).__name__
    detail = "; ".join(text[1:3])
    out = f"{type(exc).__name__}: {head}" + (f" — {detail}" if detail else "")
    return out[:260]


def run_matrix(adapters: list[Adapter], workdir: Path, log=print) -> list[tuple[Adapter, Shape, str, str]]:
    """Every cell -> (adapter, shape, outcome, detail); outcome pass | fails | ERROR."""
    from binlogwriter.serve import serving

    srv = None
    results = []

    def serve(path: Path, case: Any = None) -> Any:
        nonlocal srv
        if srv is None:
            srv = serving(path, password="matrix-pw")
        return srv.serve(path, **(case.server_variables if case is not None else {}))

    try:
        for a in adapters:
            try:
                a.check().ensure_built()
                built = None
            except Exception as exc:
                built = _first_line(exc)
            for shape in shapes_for(a):
                started = time.monotonic()
                if built is not None:
                    outcome, detail = "fails", f"not built: {built}"
                else:
                    try:
                        n = run_cell(a, shape, workdir, serve)
                        outcome, detail = "pass", f"{n} changes"
                    except Exception as exc:
                        outcome, detail = "fails", _first_line(exc)
                log(f"{a.name:28} {shape.id:50} {outcome:5} {time.monotonic() - started:6.1f}s {detail[:100]}")
                results.append((a, shape, outcome, detail))
    finally:
        if srv is not None:
            srv.close()
    return results


HEADER = """\
# Consumer conformance matrix

Which real consumers read which binlog shapes correctly, when `binlogwriter serve` serves them.
This page is generated: `python -m tests.conformance.consumers.matrix --write docs/consumers.md`
runs every cell (a few minutes; `--consumer NAME` for one consumer, `--all` for every row image ×
metadata combination of the generated runs). The same cells are the tests of
`tests/conformance/consumers/test_matrix.py` (marked `conformance`).

## How a cell runs

1. **Shape.** A generated run (`run:FLAVOR:IMAGE:METADATA`: the ecommerce workload, 30
   transactions, DDL and initial rows in the binlog, several files; by default FULL/FULL plus one
   combination per flavor drawn with a fixed seed) or a catalogue entry
   (`catalogue:ENTRY:FLAVOR`, docs/fixtures.md) in each flavor the consumer reads.
2. **Serve.** One in-process server (`binlogwriter.serve.serving`, docs/serve.md "From
   Python") re-pointed at the shape; the adapter gets a `ServedEndpoint` (host, port, user,
   password, flavor, run_dir, server_id).
3. **Decode.** `adapter.decode(endpoint, expected_changes=N)` returns the consumer's changes in
   the change model (`op`, `database`, `table`, `before`/`after` images keyed by column name,
   values as the consumer gives them, turned into natural Python values).
4. **Compare** with the truth, both sides in the canonical form of docs/output.md: a run with
   `binlogwriter.testing.assert_matches_truth` (op, table, before, after; with the consumer's
   comparison profile: the adapter's `PROFILE`, else the profile named like the consumer, else
   `exact`), a catalogue case with its
   `WrittenBinlogs` truth. A replica gives no change stream: it is compared on the rows left in
   every table (truth/final or `WrittenBinlogs.rows`).

A cell is **pass** when equal, **fails** with the first difference otherwise; a known failure
carries its reason and public issue from `tests/conformance/consumers/expectations.toml`
(xfail(strict=True) in the tests, so a fixed consumer shows up as an unexpected pass). A missing
toolchain fails every cell of its consumer with one line saying what to install — never a skip.

## Adding a consumer

`tests/conformance/consumers/<name>/adapter.py` with `NAME`, `FLAVORS`, `ensure_built()` and
`decode(server, *, expected_changes, timeout=120.0)` (the contract is in
`tests/conformance/consumers/base.py`); `MODE = "final_rows"` for a consumer that only has
final table state; `PROFILE = "<profile>"` to compare under a consumer profile of
`binlogwriter.compare` other than the one named like the consumer (default: that one, else
`exact`). Column positions map to names with
`binlogwriter.testing.table_definitions(run_dir)` (truth/schema_history.jsonl; the matrix writes
one for catalogue cases). Run the matrix, add the failing cells to the consumer's own
`<name>/expectations.toml` with what the consumer does and the public issue, regenerate this page.

## Results
"""


def _cell_text(text: str) -> str:
    """A table cell's text: ``|`` as ``/``, control characters (a consumer's error may quote
    binlog bytes) as ``\\xNN``."""
    text = text.replace("|", "/")
    return "".join(ch if ch >= " " or ch == "\t" else f"\\x{ord(ch):02x}" for ch in text)


def render(results: list[tuple[Adapter, Shape, str, str]], rules: list[dict[str, Any]]) -> str:
    lines = [HEADER]
    by_consumer: dict[str, list] = {}
    for a, shape, outcome, detail in results:
        by_consumer.setdefault(a.name, []).append((shape, outcome, detail))
    versions = {}
    for a, *_ in results:
        try:
            versions[a.name] = a.module.version() if a.module is not None and hasattr(a.module, "version") else "?"
        except Exception:
            versions[a.name] = "?"
    lines += ["| consumer | version | pass | fails | known failures | unexpected |", "|---|---|---|---|---|---|"]
    for name, cells in by_consumer.items():
        exp = [expectation(name, s, rules) for s, _, _ in cells]
        p = sum(1 for _, o, _ in cells if o == "pass")
        known = sum(1 for (_, o, _), e in zip(cells, exp, strict=True) if o == "fails" and e.status == "fails")
        unexpected = sum(1 for (_, o, _), e in zip(cells, exp, strict=True) if o != e.status)
        lines.append(f"| {name} | {versions.get(name, '?')} | {p} | {len(cells) - p} | {known} | {unexpected} |")
    for name, cells in by_consumer.items():
        lines += ["", f"## {name}", "", "| shape | result | why |", "|---|---|---|"]
        for shape, outcome, detail in cells:
            e = expectation(name, shape, rules)
            why = detail if outcome == "fails" else ""
            if e.status == "fails":
                why = f"{e.reason}" + (f" ([issue]({e.link}))" if e.link else "") + (f" — {detail}" if outcome == "fails" else "")
            mark = outcome if outcome == e.status else f"**unexpected {outcome}**"
            lines.append(f"| `{shape.id}` | {mark} | {_cell_text(why)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.conformance.consumers.matrix", description=__doc__.split("\n")[0])
    ap.add_argument("--write", type=Path, default=None, help="write the table to this Markdown file")
    ap.add_argument("--consumer", action="append", default=None, help="only these consumers (NAME or dir)")
    ap.add_argument("--all", action="store_true", help="every image × metadata combination (BINLOGWRITER_MATRIX=all)")
    args = ap.parse_args(argv)
    if args.all:
        os.environ["BINLOGWRITER_MATRIX"] = "all"
    adapters = [a for a in discover() if not args.consumer or a.name in args.consumer or a.dirname in args.consumer]
    rules = load_expectations()
    with tempfile.TemporaryDirectory(prefix="matrix-") as d:
        results = run_matrix(adapters, Path(d), log=lambda s: print(s, file=sys.stderr, flush=True))
    text = render(results, rules)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    bad = sum(1 for a, s, o, _ in results if o != expectation(a.name, s, rules).status)
    print(f"{len(results)} cells, {bad} not as expectations.toml says", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
