"""The ``binlogwriter`` command: inspect, verify, fixture, serve, and the commands other
installed packages add (entry points ``binlogwriter.commands``, :mod:`binlogwriter.plugins`:
``generate`` comes from the generators package)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import click

from binlogwriter import __version__, plugins
from binlogwriter.cli_support import INTERRUPTED_STATUS, Interrupted, cli_message
from binlogwriter.errors import BinlogError

__all__ = ["main"]


PROCESS_ENV = {"NUMPY_MADVISE_HUGEPAGE": "0", "MIMALLOC_LARGE_OS_PAGES": "0", "OPENBLAS_NUM_THREADS": "1"}
"""Set for the ``binlogwriter`` process (unless already set) before numpy and pyarrow are
imported: the commands allocate and free large temporary arrays batch after batch. numpy's
documented ``NUMPY_MADVISE_HUGEPAGE`` (on by default on Linux) and mimalloc's
``MIMALLOC_LARGE_OS_PAGES`` (Arrow's default memory pool) ask for transparent huge pages,
and the kernel zeroes every fresh 2 MB page in full: most of a ``generate`` run's system
time (about 1.2 -> 0.5 s per sysbench GB). OpenBLAS's ``OPENBLAS_NUM_THREADS``: its threads
spin for work (nothing here multiplies matrices) on cores the run's own threads use.
Together about 0.7 CPU-s per sysbench GB (the #10 closing note). Library use is not
affected: the process that imports ``binlogwriter`` keeps its own settings."""


PR_SET_THP_DISABLE = 41
"""Linux ``prctl`` option (since 3.15; inherited by children): no transparent huge pages for
this process, whatever ``/sys/kernel/mm/transparent_hugepage/enabled`` says. Where it says
``always``, every large anonymous allocation (mimalloc's arenas, numpy's arrays, glibc's
mmapped blocks) is backed by 2 MB pages the kernel zeroes in full on first touch: 4-10 % of
``export``'s CPU on a 34.9 MB MariaDB sysbench binlog (``perf``: ``clear_page_erms`` under
``do_huge_pmd_anonymous_page``), about 0.05 CPU-s of 0.85."""


class _NoPandas:
    """The import finder that keeps pandas out of a command's own process
    (:func:`process_defaults`). No command uses pandas, but pyarrow asks whether a value is a
    pandas object before it converts one — ``pa.array`` of a list or a numpy array,
    ``pa.scalar``, ``Array.to_numpy``, a compute function given a Python scalar — and the
    first time that imports pandas when it is installed: about 0.2 CPU-s, a sixth of a small
    ``generate`` run. Here the import fails at once, pyarrow records that pandas is absent,
    and every conversion gives the same values (tests/test_cli_no_pandas.py: the same
    bytes either way)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (binlogwriter commands do not use it)", name=name)
        return None


def process_defaults(own_process: bool = True) -> None:
    """:data:`PROCESS_ENV` into ``os.environ`` where unset, if numpy is not imported yet (a
    command's own process, a Spark worker daemon before it forks: spark_gen/daemon.py), and,
    with ``own_process`` (not a command invoked in a caller's process, as click's test runner
    does), no transparent huge pages for the process (:data:`PR_SET_THP_DISABLE`, Linux;
    elsewhere, or refused, nothing changes) and no pandas (:class:`_NoPandas`, unless
    something imported it already)."""
    if "numpy" not in sys.modules:
        for k, v in PROCESS_ENV.items():
            os.environ.setdefault(k, v)
    if own_process and "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())
    if own_process and sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass


EXPORT_GC = (50_000, 20, 100)
"""The ``export`` process's garbage collector thresholds (CPython's default: 700, 10, 10).
The export keeps each table's buffered rows events (tuples) alive until their batch is made,
so the default's young collections, and every tenth of their tenth a full one, traverse
those live tuples again and again: about 15 % of the export's CPU on a sysbench binlog
(issue 30). Nothing the export makes is cyclic garbage that must go soon; library use is not
affected (the process that imports ``binlogwriter`` keeps its own settings)."""


_LAZY = {"fixture": ("binlogwriter.fixtures.cli", "fixture"), "serve": ("binlogwriter.serve.cli", "serve")}
"""Subcommands imported when named (or listed): ``inspect`` and ``verify`` do not pay for them;
so are the plugins' commands (:data:`binlogwriter.plugins.COMMANDS`)."""


def _interrupted() -> None:
    """Ctrl-C: one line and status 130 (:data:`~binlogwriter.cli_support.INTERRUPTED_STATUS`),
    whatever the command was doing. A command with clean-up of its own (``generate`` removes
    its partial run, ``serve`` closes its connections) does it first and may exit with its
    own line; a KeyboardInterrupt that reaches the top ends here."""
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say on stdout
        pass
    click.echo(("\n" if sys.stderr.isatty() else "") + "binlogwriter: interrupted", err=True)
    sys.exit(INTERRUPTED_STATUS)


class _Group(click.Group):
    """Usage errors of every subcommand as one line on stderr (``binlogwriter inspect:
    error: ...``), exit status 2, instead of click's usage block; a library error no
    command caught as one line in the command line's words (:func:`cli_message`), status 1;
    Ctrl-C as ``binlogwriter: interrupted``, status 130 (click's own handling prints
    ``Aborted!`` and exits 1). The commands of :data:`_LAZY` and the plugins' commands are
    imported when first asked for."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # past click.main's handler, which would print "Aborted!"
            raise Interrupted() from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY, *plugins.available(plugins.COMMANDS)})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is None and name in _LAZY:
            mod, attr = _LAZY[name]
            cmd = getattr(importlib.import_module(mod), attr)
            self.add_command(cmd, name)
        elif cmd is None:
            ep = plugins.available(plugins.COMMANDS).get(name)
            if ep is None:
                return None
            cmd = ep.load()
            self.add_command(cmd, name)
        return cmd

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # type: ignore[override]
        process_defaults(own_process=args is None)  # None: the command line of this process
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare `binlogwriter`: the help text
                e.show()
                sys.exit(e.exit_code)
            where = e.ctx.command_path if e.ctx is not None else "binlogwriter"
            click.echo(f"{where}: error: {' '.join(e.format_message().split())} (--help for usage)", err=True)
            sys.exit(2)
        except click.ClickException as e:
            e.show()
            sys.exit(e.exit_code)
        except click.Abort as e:
            if isinstance(e.__cause__, KeyboardInterrupt):  # Ctrl-C before a command ran
                _interrupted()
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except (Interrupted, KeyboardInterrupt):
            _interrupted()
        except BinlogError as e:
            click.echo(f"binlogwriter: error: {' '.join(cli_message(e).split())}", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="binlogwriter")
def main() -> None:
    """Write, read, verify and generate MySQL 8.0/8.4 and MariaDB 10.11 binary logs."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--start-position", type=click.IntRange(min=0), default=None,
              help="Show events at offsets >= N (of the first file, as mysqlbinlog).")
@click.option("--stop-position", type=click.IntRange(min=0), default=None,
              help="Stop at the first event at an offset >= N (of the last file, as mysqlbinlog).")
@click.option("-v", "--verbose", count=True, help="-v: rows as pseudo-SQL; -vv: with column types.")
@click.option("--print-table-metadata", is_flag=True, help="Print Table_map column metadata.")
@click.option("--start-datetime", default=None, help="Show events at or after this time (UTC, 'YYYY-MM-DD HH:MM:SS').")
@click.option("--stop-datetime", default=None, help="Stop at the first event at or after this time (UTC).")
@click.option("-d", "--database", default=None, help="Only row events and statements of this database.")
@click.option("-T", "--table", default=None, help="Only row events of this [db.]table.")
@click.option("--include-gtids", default=None, help="Only transactions whose GTID is in this set.")
@click.option("--exclude-gtids", default=None, help="Leave out transactions whose GTID is in this set.")
def inspect(files: tuple[str, ...], start_position: int | None, stop_position: int | None,
            verbose: int, print_table_metadata: bool, start_datetime: str | None, stop_datetime: str | None,
            database: str | None, table: str | None, include_gtids: str | None,
            exclude_gtids: str | None) -> None:
    """List the events of FILES in mysqlbinlog's style."""
    from binlogwriter.read.filters import EventFilter, parse_datetime
    from binlogwriter.text import RenderOptions

    opts = RenderOptions(verbose=verbose, print_table_metadata=print_table_metadata)
    try:
        # --start-datetime is applied by the listing (mysqlbinlog's latch: text/listing.py)
        start = parse_datetime(start_datetime) if start_datetime else None
        filt = EventFilter(stop_datetime=stop_datetime, database=database, table=table,
                           include_gtids=include_gtids, exclude_gtids=exclude_gtids)
    except BinlogError as exc:
        raise click.UsageError(str(exc)) from None
    from binlogwriter.text.listing import write_listing

    out = sys.stdout
    try:  # undecodable bytes of values are kept as surrogate escapes: write them back raw
        out.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        pass
    try:
        write_listing(files, out, opts, start_position=start_position, stop_position=stop_position, filt=filt,
                      start_datetime=start)
    except BinlogError as exc:
        out.flush()
        click.echo(f"binlogwriter: {cli_message(exc)}", err=True)
        sys.exit(1)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--roundtrip", is_flag=True, help="Also decode and re-encode every event; bytes must be identical.")
@click.option("--strict", is_flag=True,
              help="With --roundtrip: an event kept raw (not decoded) fails the check too.")
def verify(files: tuple[str, ...], roundtrip: bool, strict: bool = False) -> None:
    """Check magic, FDE, event lengths, the log_pos chain and every CRC32 of FILES.

    Exit 0 only if everything holds. The last line is one summary line:
    ``N files, M events: OK`` or what failed and where (file:offset). With --roundtrip, events
    the decoder keeps raw (not decoded, so not re-encoded either) are named:
    ``N files, M events: OK (K kept raw, not decoded: TYPE at file:offset: why)``; with
    --strict they are failures.
    """
    from binlogwriter.read.framing import scan_file

    if strict and not roundtrip:
        raise click.UsageError("--strict needs --roundtrip (only the roundtrip decodes events)")
    n_events = 0
    failures: list[str] = []
    kept: list[str] = []
    for f in files:
        if not Path(f).is_file():
            failures.append(f"{f}: no such file")
            continue
        if not roundtrip:  # framing, log_pos chain and CRC32 only: no body is decoded
            scan = scan_file(f)
            n_events += scan.events
            failures.extend(scan.failures or [])
            continue
        from binlogwriter.read.fastverify import verify_roundtrip

        file_events, file_failures = verify_roundtrip(f, kept)
        n_events += file_events
        failures.extend(file_failures)
    if strict:
        failures.extend(f"kept raw, not decoded: {k}" for k in kept)
        kept = []
    if failures:
        for line in kept:
            click.echo(f"KEPT RAW {line}")
        if len(failures) > 1:  # every failure on its own line; the summary names the first
            for line in failures:
                click.echo(f"FAIL {line}")
        more = f" (+{len(failures) - 1} more above)" if len(failures) > 1 else ""
        click.echo(f"{len(files)} files, {n_events} events: FAILED {failures[0]}{more}")
        sys.exit(1)
    if kept:
        if len(kept) > 1:  # every kept-raw event on its own line; the summary names the first
            for line in kept:
                click.echo(f"KEPT RAW {line}")
        more = f"; +{len(kept) - 1} more above" if len(kept) > 1 else ""
        click.echo(f"{len(files)} files, {n_events} events: OK ({len(kept)} kept raw, not decoded: {kept[0]}{more})")
        return
    click.echo(f"{len(files)} files, {n_events} events: OK")


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--to", "fmt", type=click.Choice(["parquet"]), default="parquet", show_default=True,
              help="Output format.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory (also accepted as the last FILES argument after --to FORMAT).")
@click.option("--schema", "schema", type=click.Path(exists=True, dir_okay=False), default=None,
              help="CREATE TABLE file for binlogs without FULL row metadata.")
@click.option("--table", "tables", multiple=True, help="Only this db.table (repeatable).")
@click.option("--overwrite", is_flag=True, help="Replace DIR if it is not empty (the new export is swapped in "
              "when complete).")
@click.option("--images", type=click.Choice(["flat", "struct"]), default="flat", show_default=True,
              help="Image columns: flat before.<column> / after.<column>, or struct columns before / after.")
def export(files: tuple[str, ...], fmt: str, out_dir: str | None, schema: str | None,
           tables: tuple[str, ...], overwrite: bool, images: str) -> None:
    """Export the row changes of FILES as one Parquet dataset per table.

    ``binlogwriter export binlog.000001 binlog.000002 --to parquet DIR`` writes
    ``DIR/<db>.<table>/part-00000.parquet``: one row per row change in the change model's
    names (docs/output.md): seq, row, op, database, table, gtid, xid, file, position,
    transaction_position, timestamp, before_columns / after_columns (the columns each image
    carries) and the images — before.<column> / after.<column> (``--images flat``, the
    default) or struct columns before / after (``--images struct``). Names are percent-encoded (``/`` is
    ``%2F``, docs/read.md): a table's folder is always directly under DIR. DIR must be empty
    or new (``--overwrite`` replaces it); it appears only when the export is complete.
    """
    import gc

    gc.set_threshold(*EXPORT_GC)  # before the imports below too: ~60k long-lived objects, ~90 default collections
    from binlogwriter.errors import OutputExistsError
    from binlogwriter.read.export import UnknownTableError, export_parquet
    from binlogwriter.read.exportparquet import shown_name

    paths = list(files)
    if out_dir is None:
        if len(paths) < 2:
            raise click.UsageError("give the output directory: export FILES --to parquet DIR")
        out_dir = paths.pop()
    for f in paths:
        if not Path(f).is_file():
            raise click.UsageError(f"{f}: no such binlog file")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise click.UsageError(f"{out_dir} is a file; the output must be a directory")
    not_empty = f"{out_dir} is not empty; pass --overwrite to replace it"
    if out.is_dir() and not overwrite and any(out.iterdir()):
        raise click.UsageError(not_empty)
    try:
        counts = export_parquet(paths, out, schemas=schema, tables=tables or None, overwrite=overwrite,
                                images=images)
    except UnknownTableError as exc:
        raise click.UsageError(f"--table: {exc}") from None
    except OutputExistsError:
        raise click.UsageError(not_empty) from None
    except BinlogError as exc:  # one line: names from the file may hold NUL, newlines, ...
        click.echo(f"binlogwriter: {shown_name(cli_message(exc))}", err=True)
        sys.exit(1)
    for folder, n in sorted(counts.items()):
        click.echo(f"{_table_shown(folder)}: {n} rows -> {out / folder}")
    click.echo(f"{len(counts)} tables, {sum(counts.values())} rows")


def _table_shown(folder: str) -> str:
    """``db.table`` of an export folder, printable (the folder name itself when shortened)."""
    from binlogwriter.read.exportparquet import shown_name
    from binlogwriter.read.exportpaths import table_of_dir

    try:
        db, table = table_of_dir(folder)
    except ValueError:
        return folder
    return shown_name(f"{db.decode('utf-8', 'surrogateescape')}.{table.decode('utf-8', 'surrogateescape')}")


if __name__ == "__main__":  # pragma: no cover
    main()
