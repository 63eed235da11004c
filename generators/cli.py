"""``binlogwriter generate``: synthetic workloads with ground truth (docs/generate.md).

Settings come from ``--spec FILE`` (YAML/JSON, or a previous run's manifest.json) and are
overridden by the options given on the command line; whatever is left unset takes the
workload's default. Bad options, a bad spec or bad DDL print one line on stderr and exit
with status 2, and no output directory is created.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from binlogwriter.cli_support import Choice
from binlogwriter.errors import BinlogError, SchemaError, ValueEncodeError
from generators.engines import DEFAULT_LOG_LEVEL, LOG_LEVELS, EngineSetupError, load_engine
from generators.errors import SpecError

__all__ = ["generate"]

_EXIT_USAGE = 2
_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n))


class _Interrupted(BaseException):
    """A termination signal arrived while generating (raised by :func:`_on_signal` in the
    main thread, so the engines' clean-up — ``except BaseException`` — runs)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, frame: Any) -> None:
    for s in _SIGNALS:  # one clean-up: later signals wait until it is done
        signal.signal(s, signal.SIG_IGN)
    raise _Interrupted(signum)


class _OneLineError(click.ClickException):
    exit_code = _EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"binlogwriter generate: error: {self.format_message()}", err=True)


class _Command(click.Command):
    """Usage errors as one line (no usage block), exit status 2."""

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[override]
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as e:
            msg = e.format_message().replace("\n", " ")
            raise _OneLineError(msg) from None


def _opt(*names: str, **kw: Any):
    return click.option(*names, default=None, show_default=False, **kw)


@click.command(cls=_Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output directory (must not exist, or be empty).")
@_opt("--spec", "spec_file", type=click.Path(dir_okay=False, path_type=Path),
      help="YAML/JSON spec (or a manifest.json) with the same settings plus per-column generators.")
@_opt("--workload", type=Choice(["sysbench", "ecommerce", "alltypes"]), help="Built-in workload [sysbench].")
@_opt("--schema", "schema", type=click.Path(dir_okay=False, path_type=Path),
      help="A .sql file of CREATE TABLE statements instead of a built-in workload.")
@_opt("--database", help="Database name [test].")
@_opt("--tables", type=int, help="sysbench: number of sbtest tables [1].")
@_opt("--seed", type=int, help="Seed of every random choice [1].")
@_opt("--transactions", type=int, help="Number of transactions written [2000 unless --size].")
@_opt("--size", help="Stop once the binlogs reach this size (500MB, 1G).")
@_opt("--initial-rows", type=int, help="Rows per table before the first event [1000].")
@click.option("--ddl-in-binlog", is_flag=True, default=None,
              help="Put CREATE DATABASE/TABLE and the initial rows into the binlog.")
@_opt("--mix", help="Operation weights, e.g. insert=0.5,update=0.3,delete=0.2.")
@_opt("--key-dist", help="uniform | zipf:S | hotspot:FRACTION:PROBABILITY | latest [uniform].")
@_opt("--rows-per-txn", help="Row operations per transaction: N or A-B (mix template).")
@_opt("--flavor", type=Choice(["mysql80", "mysql84", "mariadb1011"]), help="[mysql80]")
@_opt("--row-metadata", type=Choice(["NO_LOG", "MINIMAL", "FULL"], case_sensitive=False), help="[FULL]")
@_opt("--row-image", type=Choice(["FULL", "MINIMAL", "NOBLOB"], case_sensitive=False), help="[FULL]")
@click.option("--rows-query/--no-rows-query", default=None,
              help="ROWS_QUERY (MySQL) / ANNOTATE_ROWS (MariaDB) events [off].")
@_opt("--checksum", type=Choice(["CRC32", "NONE"], case_sensitive=False), help="[CRC32]")
@_opt("--max-binlog-size", help="Rotate after a transaction once a file reaches this size [1G].")
@_opt("--gtid", help="MySQL: anonymous, a server UUID [3e11fa47-…] or (mysql84) UUID:tag; MariaDB: a domain id [0].")
@click.option("--compress/--no-compress", "transaction_compression", default=None,
              help="MySQL binlog_transaction_compression: each DML transaction in one zstd "
                   "TRANSACTION_PAYLOAD event [off].")
@_opt("--server-id", type=int, help="[1]")
@_opt("--start-time", help="Clock of the first event, ISO 8601 or epoch seconds [2026-01-01T00:00:00Z].")
@_opt("--ddl-every", type=int, help="ALTER TABLE ADD/DROP COLUMN after every N transactions [0 = never].")
@_opt("--basename", help="Binlog file base name [binlog].")
@_opt("--row-event-max-size", help="Split rows events above this size [8192].")
@_opt("--edge-values", help="Share 0..1 of edge values (type limits, zero dates, empty and longest strings, "
      "NULL) in every column drawn by its type [0; alltypes: 0.25 of its own].")
@_opt("--charset-stress", help="Share 0..1 of CHAR/VARCHAR/TEXT values drawn from multilingual text (accents, "
      "Greek/Cyrillic, CJK, RTL, combining marks, 4-byte emoji), kept to what each column's charset holds "
      "[0.1; 0 = ASCII text as before].")
@_opt("--dependency-tracking", type=Choice(["writeset", "commit_order"]),
      help="MySQL last_committed / sequence_number: WRITESET dependency tracking (parallel-apply "
           "groups from the rows' keys) or COMMIT_ORDER (serial) [writeset].")
@_opt("--parallel-groups", type=int,
      help="MariaDB: group commits of up to N independent transactions (GTID commit_id) [0 = none].")
@click.option("--replica-schema", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write truth/replica/: what a replica with this DDL holds, or where it stops (docs/replica.md).")
@click.option("--replica-conversions", default=None,
              help="The replica's slave_type_conversions: ALL_NON_LOSSY,ALL_LOSSY [none].")
@click.option("--replica-flavor", default=None, help="The replica's server: mariadb1011 [mariadb1011].")
@_opt("--exclude-types", help="Built-in workloads: leave out columns of these types (JSON,GEOMETRY).")
@click.option("--progress/--no-progress", default=None, help="Progress bar [on when stderr is a terminal].")
@click.option("--engine", type=Choice(["local", "spark"]), default="local", show_default=True,
              help="local: one process; spark: the same bytes generated on Spark (docs/spark.md).")
@click.option("--partitions", type=int, default=None,
              help="--engine spark: transaction ranges (tasks) [the session's default parallelism].")
@click.option("--spark-log-level", type=Choice(LOG_LEVELS, case_sensitive=False), default=None,
              help=f"--engine spark: Spark's console log level [{DEFAULT_LOG_LEVEL}].")
def generate(out: Path, spec_file: Path | None, schema: Path | None, progress: bool | None,
             engine: str, partitions: int | None, spark_log_level: str | None, **options: Any) -> None:
    """Generate binlogs of a synthetic workload with its ground truth (docs/output.md layout).

    Ends with a summary (files, bytes, transactions, rows, MB/s, wall time, output path).
    A mistake in an option, the spec file or the schema prints one line on stderr naming
    the place and exits with status 2; nothing is written at --out.
    """
    started = time.perf_counter()
    try:
        previous = {s: signal.signal(s, _on_signal) for s in _SIGNALS}
    except ValueError:  # not the main thread (an embedding host): its signals stay its own
        previous = {}
    try:
        result = _generate(out, spec_file, schema, progress, engine, partitions, spark_log_level, options)
    except (_Interrupted, KeyboardInterrupt) as e:
        signum = e.signum if isinstance(e, _Interrupted) else signal.SIGINT
        for s in _SIGNALS:
            signal.signal(s, signal.SIG_IGN)
        _interrupted(out, engine, signum)
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
    click.echo(summary(result.manifest, result.out, time.perf_counter() - started, engine))


def _interrupted(out: Path, engine: str, signum: int) -> None:
    """SIGTERM / SIGINT / SIGHUP while generating: the engine has removed its temporary
    directory (its ``except BaseException``); stop Spark's jobs, remove what a Spark task
    may still have written, print one line and exit ``128 + signum`` as a shell reports a
    killed command (docs/generate.md, crash safety)."""
    if engine == "spark":
        try:
            from pyspark.sql import SparkSession

            s = SparkSession.getActiveSession()
            if s is not None:
                s.sparkContext.cancelAllJobs()
                s.stop()
        except Exception:  # noqa: BLE001 - the JVM may be going down with us
            pass
    try:
        from generators.engine import sweep_stale_tmp

        sweep_stale_tmp(out)  # our own run's directory is unlocked now: removed with any other
    except Exception:  # noqa: BLE001 - best effort; the next run sweeps too
        pass
    name = signal.Signals(signum).name
    left = "nothing was left" if not out.exists() or not any(out.iterdir()) else "the run had completed"
    click.echo(f"binlogwriter generate: interrupted by {name} ({left} at {out})", err=True)
    sys.exit(128 + signum)


def _generate(out: Path, spec_file: Path | None, schema: Path | None, progress: bool | None,
              engine: str, partitions: int | None, spark_log_level: str | None, options: dict[str, Any]):
    """The command's work; its errors become one line and an exit status."""
    sf = None
    try:
        if spec_file is not None:
            from generators.spec import read_spec_file

            sf = read_spec_file(spec_file)
        spec = build_spec(sf, schema, options)
        if partitions is not None and engine != "spark":
            raise SpecError("--partitions needs --engine spark")
        if spark_log_level is not None and engine != "spark":
            raise SpecError("--spark-log-level needs --engine spark")
        _check_out(out)
        show = sys.stderr.isatty() if progress is None else progress
        if engine == "spark":
            result = load_engine(engine)(spec, out, partitions=partitions,
                                         log_level=(spark_log_level or DEFAULT_LOG_LEVEL).upper())
        elif show:
            result = _run_with_progress(run_generate, spec, out)
        else:
            result = run_generate(spec, out)
    except SpecError as e:
        where = setting_place(sf, e, options, schema)
        raise _OneLineError(_one_line(f"{where}: {e}" if where else str(e))) from None
    except (SchemaError, ValueEncodeError, EngineSetupError) as e:
        raise _OneLineError(_one_line(str(e))) from None
    except BinlogError as e:
        click.echo(f"binlogwriter generate: failed: {_one_line(str(e))}", err=True)
        sys.exit(1)
    except OSError as e:
        what = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else str(e)
        click.echo(f"binlogwriter generate: failed: {_one_line(what)} (nothing was left at {out})", err=True)
        sys.exit(1)
    except Exception as e:
        if engine != "spark" or not type(e).__module__.startswith(("pyspark", "py4j")):
            raise
        # a task failed on an executor (a full disk there, ...): its error's last line, not
        # the worker's and the JVM's stacks
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        why = lines[-1] if lines else type(e).__name__
        click.echo(f"binlogwriter generate: failed: a Spark job failed: {_one_line(why)[:500]} "
                   f"(nothing was left at {out})", err=True)
        sys.exit(1)
    return result


def run_generate(spec, out: Path, progress=None):
    from generators.engine import generate as engine_generate

    return engine_generate(spec, out, progress=progress)


def _one_line(msg: str) -> str:
    return " ".join(msg.split())


def _replica_options(data: dict[str, Any], options: dict[str, Any]) -> None:
    """``--replica-schema/-conversions/-flavor`` -> the spec's ``replica`` mapping (docs/replica.md)."""
    path = options.pop("replica_schema", None)
    conv, flavor = options.pop("replica_conversions", None), options.pop("replica_flavor", None)
    if path is None and conv is None and flavor is None:
        return
    rep = dict(data.get("replica") or {})
    if path is not None:
        rep.pop("schema_sql", None)
        rep["schema"] = str(path)
    if conv is not None:
        rep["conversions"] = conv
    if flavor is not None:
        rep["flavor"] = flavor
    if "schema" not in rep and "schema_sql" not in rep:
        raise SpecError("--replica-conversions / --replica-flavor need --replica-schema FILE", setting="replica")
    data["replica"] = rep


def build_spec(sf, schema: Path | None, options: dict[str, Any]):
    """Spec file settings overridden by the command line (SpecError/SchemaError if bad)."""
    from generators.spec import Spec, resolve

    data: dict[str, Any] = dict(sf.data) if sf is not None else {}
    _replica_options(data, options)
    given = {k: v for k, v in options.items() if v is not None}
    if schema is not None:
        if options.get("workload") is not None:
            raise SpecError("--workload and --schema are exclusive")
        try:
            from generators.spec_file import schema_text

            text = schema_text(schema.read_bytes(), str(schema))
        except OSError as e:
            raise SpecError(f"--schema: cannot read {schema}: {e.strerror or e}") from None
        given["schema_sql"] = text
        given["schema_file"] = str(schema)
        data.pop("workload", None)
    elif "workload" in given:
        data.pop("schema_sql", None)
        data.pop("schema_file", None)
    if "transactions" in given:
        data.pop("size", None)
    if "size" in given:
        data.pop("transactions", None)
    if "mix" in given and "template" not in given:
        data.pop("template", None)
    data.update(given)
    if data.get("schema_sql") is not None and "workload" not in data:
        data["workload"] = None
    if data.get("schema_file") is not None and data.get("schema_sql") is None:
        raise SpecError("spec schema_file: set, but no schema text was read", setting="schema_file")
    return resolve(Spec.from_dict(data))


def setting_place(sf, e: SpecError, options: dict[str, Any], schema: Path | None) -> str | None:
    """Where a bad setting came from: ``SPEC:LINE`` when the spec file gave it (and the
    command line did not override it); None when the message already says where."""
    from generators.spec import setting_of

    if sf is None or str(e).startswith(str(sf.path)):
        return None
    setting = e.setting or setting_of(e.reason)
    if setting is None:
        return None
    top = setting.split(".", 1)[0]
    if options.get(top) is not None or (top in ("schema_file", "schema_sql") and schema is not None):
        return None
    return sf.where(setting) if top in sf.data else None


def _check_out(out: Path) -> None:
    """--out must be creatable: a missing or read-only parent fails before any work."""
    if out.exists():
        if not out.is_dir():
            raise SpecError(f"--out: {out} exists and is not a directory")
        if any(out.iterdir()):
            raise SpecError(f"--out: {out} already exists and is not an empty directory")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise SpecError(f"--out: the parent directory {parent} does not exist")
    try:
        tempfile.TemporaryDirectory(prefix=f".{out.name}.check-", dir=parent).cleanup()
    except OSError as e:
        raise SpecError(f"--out: cannot create {out}: {e.strerror or e}") from None


def summary(manifest: dict[str, Any], out: Path, seconds: float, engine: str = "local") -> str:
    """The closing statistics of a run, one paragraph (as sysbench ends with its statistics)."""
    totals = manifest.get("totals", {})
    files = manifest.get("files", [])
    nbytes = int(totals.get("bytes", sum(f.get("bytes", 0) for f in files)))
    rows = {"insert": 0, "update": 0, "delete": 0}
    for per in totals.get("rows", {}).values():
        for k in rows:
            rows[k] += int(per.get(k, 0))
    secs = max(seconds, 1e-9)
    return (f"generate ({engine}): {len(files)} binlog file{'s' if len(files) != 1 else ''}, "
            f"{nbytes:,} bytes ({nbytes / 1e6:.1f} MB), {int(totals.get('transactions', 0)):,} transactions, "
            f"{int(totals.get('events', 0)):,} events, rows: {rows['insert']:,} inserted, "
            f"{rows['update']:,} updated, {rows['delete']:,} deleted; "
            f"{secs:.2f} s wall time, {nbytes / 1e6 / secs:.2f} MB/s; output: {out}")


def _run_with_progress(run_generate, spec, out: Path) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    if spec.size is not None:
        total, unit = spec.size, "bytes"
    else:
        total, unit = spec.transactions or 1, "txns"
    with Progress(TextColumn("[bold]generate"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), transient=True,
                  console=Console(stderr=True)) as bar:
        task = bar.add_task("generate", total=total, info="")

        def report(txns: int, nbytes: int) -> None:
            done = nbytes if unit == "bytes" else txns
            bar.update(task, completed=min(done, total), info=f"{txns} txns, {nbytes / 1e6:.1f} MB")
        return run_generate(spec, out, progress=report)
