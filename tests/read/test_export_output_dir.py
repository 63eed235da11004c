"""The export's output directory (issue 27): written all at once or not at all.

Before: a second export into the same folder kept the first run's parts (the CLI said 200
rows, a reader of the folder found 520), a failed export left an empty folder, and
``--table nope`` exited 0 with "0 tables". Now a non-empty DIR is refused with one line
naming ``--overwrite``, which swaps the new export in when it is complete; a failure
(bad input, Ctrl-C, two tables needing one folder) leaves nothing behind, and an existing DIR
as it was; an unknown ``--table`` is a usage error (exit 2) with a did-you-mean.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from binlogwriter.errors import BinlogError, DecodeError, OptionError, OutputError, OutputExistsError
from binlogwriter.format import BinlogFormat
from binlogwriter.read import exportparquet
from binlogwriter.read.export import UnknownTableError, export_parquet
from binlogwriter.read.exportparquet import write_parquet
from tests.hostile_binlogs import events, rebuild, write


def _run(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "binlogwriter", "export", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _rows(out: Path, folder: str = "d.t") -> list[int]:
    return sorted(pq.read_table(out / folder).column("after.id").to_pylist())


def test_a_non_empty_directory_is_refused_and_kept(tmp_path: Path) -> None:
    first = write(tmp_path / "a", [("d", "t")])
    out = tmp_path / "out"
    assert export_parquet([first], out) == {"d.t": 2}
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(OutputExistsError, match="overwrite=True"):
        export_parquet([first], out)
    proc = _run(first, "--to", "parquet", out)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"python -m binlogwriter export: error: {out} is not empty; pass --overwrite to replace it (--help for usage)"
    ]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_overwrite_replaces_the_directory(tmp_path: Path) -> None:
    first = write(tmp_path / "a", [("d", "t"), ("d", "old")])
    second = write(tmp_path / "b", [("d", "t")], rows=[(7, "x")])
    out = tmp_path / "out"
    assert _run(first, "--to", "parquet", out).returncode == 0
    (out / "notes.txt").write_text("mine")
    proc = _run(second, "--to", "parquet", out, "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 tables, 1 rows"
    assert sorted(p.name for p in out.iterdir()) == ["d.t"]
    assert _rows(out) == [7]  # not the 2 + 1 rows of both runs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "out"]  # no temporary left


def test_an_empty_existing_directory_is_used(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert export_parquet([write(tmp_path / "a", [("d", "t")])], out) == {"d.t": 2}
    assert _rows(out) == [0, 100]


def _failing(tmp_path: Path) -> Path:
    """Two tables written fine, then a rows event whose table id has no Table_map."""
    path = write(tmp_path, [("d", "t"), ("d", "u"), ("d", "v")])
    evs = events(path)
    last_map = max(i for i, e in enumerate(evs) if e[4] == 19)
    return rebuild(path, evs[:last_map] + evs[last_map + 1 :])


def test_a_failed_export_leaves_nothing(tmp_path: Path) -> None:
    path = _failing(tmp_path / "in")
    out = tmp_path / "new" / "sub" / "out"
    with pytest.raises(DecodeError, match="without a preceding Table_map"):
        export_parquet([path], out, batch_rows=1)  # parts of d.t and d.u were being written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]  # not even the parents
    proc = _run(path, "--to", "parquet", out)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_a_failed_overwrite_keeps_the_old_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export_parquet([write(tmp_path / "a", [("d", "t")])], out) == {"d.t": 2}
    with pytest.raises(DecodeError):
        export_parquet([_failing(tmp_path / "in")], out, overwrite=True, batch_rows=1)
    assert sorted(p.name for p in out.iterdir()) == ["d.t"] and _rows(out) == [0, 100]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "in", "out"]


def test_ctrl_c_leaves_nothing(tmp_path: Path) -> None:
    batch = pa.RecordBatch.from_pydict({"x": [1, 2]})

    def batches():
        yield "d", "t", batch
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_parquet(batches(), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_tables_that_would_share_a_folder_are_an_error(tmp_path: Path, monkeypatch) -> None:
    """On a case-insensitive file system ``D.t`` and ``d.t`` are one folder (simulated here:
    the folder names are lower-cased, as such a file system compares them)."""
    monkeypatch.setattr(exportparquet, "table_dir", lambda db, table: f"{db}.{table}".lower())
    path = write(tmp_path / "in", [("d", "t"), ("D", "t")])
    with pytest.raises(OutputError) as info:
        export_parquet([path], tmp_path / "out")
    msg = str(info.value)
    assert "tables d.t, D.t would share the folder d.t" in msg and "\n" not in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_output_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "in", [("d", "t")])
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="not a directory"):
        export_parquet([path], tmp_path / "f")
    proc = _run(path, "--to", "parquet", tmp_path / "f")
    assert proc.returncode == 2 and "is a file" in proc.stderr
    assert (tmp_path / "f").read_text() == "x"


def test_an_unknown_table_is_a_usage_error_with_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path / "in", [("shop", "orders"), ("shop", "customers")])
    out = tmp_path / "out"
    with pytest.raises(UnknownTableError) as info:
        export_parquet([path], out, tables=["shop.order"])
    assert isinstance(info.value, OptionError) and isinstance(info.value, BinlogError)
    assert str(info.value) == "no table shop.order in the files; did you mean shop.orders?"
    proc = _run(path, "--to", "parquet", out, "--table", "shop.orders", "--table", "nope")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "python -m binlogwriter export: error: --table: no table nope in the files; the files have "
        "shop.customers, shop.orders (--help for usage)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
    ok = _run(path, "--to", "parquet", out, "--table", "shop.orders")
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "1 tables, 2 rows"


def test_a_directory_filled_during_the_export_is_kept(tmp_path: Path) -> None:
    """DIR was empty when the export began and another program wrote into it meanwhile: the
    rename that would replace it fails (POSIX rename onto a non-empty directory), nothing
    of it is lost and nothing of the export is left."""
    out = tmp_path / "out"
    out.mkdir()
    batch = pa.RecordBatch.from_pydict({"x": [1]})

    def batches():
        yield "d", "t", batch
        (out / "theirs.txt").write_text("kept")

    with pytest.raises(OutputExistsError, match="is not empty"):
        write_parquet(batches(), out)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert [p.name for p in out.iterdir()] == ["theirs.txt"]


def test_a_link_to_a_directory_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert export_parquet([write(tmp_path / "in", [("d", "t")])], tmp_path / "link") == {"d.t": 2}
    assert (tmp_path / "link").is_symlink() and _rows(tmp_path / "real") == [0, 100]
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError, match="not a directory"):
        export_parquet([tmp_path / "in" / "binlog.000001"], tmp_path / "dangling")


@pytest.mark.parametrize("limit", [300, 1000])  # the row group fails / the footer (at close) fails
def test_a_write_that_fails_leaves_nothing(tmp_path: Path, limit: int) -> None:
    """A real failing write, no mock: the export runs with a file-size limit (RLIMIT_FSIZE;
    SIGXFSZ ignored, so a write past it fails with EFBIG as on a full disk)."""
    import resource
    import signal

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    path = write(tmp_path / "in", [("d", f"t{i}") for i in range(3)])
    out = tmp_path / "new" / "out"
    proc = subprocess.run(
        # -B: a .pyc written under the limit would be cut short (and then loaded)
        [sys.executable, "-B", "-m", "binlogwriter", "export", str(path), "--to", "parquet", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited,
    )
    assert proc.returncode == 1, proc.stdout
    assert proc.stderr.startswith(f"binlogwriter: cannot write {out}/d.t0/part-00000.parquet: ")
    assert proc.stderr.rstrip().endswith("File too large")
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_a_table_only_inside_a_compressed_transaction_is_known(tmp_path: Path) -> None:
    """MySQL's TRANSACTION_PAYLOAD holds the Table_maps too (format.md §15): a --table naming
    such a table is exported, a near miss is suggested."""
    path = write(
        tmp_path / "in", [("shop", "orders")], fmt=BinlogFormat.mysql80(), transaction_compression=True
    )
    assert 40 in {e[4] for e in events(path)}
    assert export_parquet([path], tmp_path / "out", tables=["shop.orders"]) == {"shop.orders": 2}
    with pytest.raises(UnknownTableError, match="did you mean shop.orders"):
        export_parquet([path], tmp_path / "out2", tables=["shop.order"])


def test_an_output_name_of_250_characters(tmp_path: Path) -> None:
    """The temporary sibling's name is cut to fit a file name's 255 bytes."""
    out = tmp_path / ("o" * 250)
    assert export_parquet([write(tmp_path / "in", [("d", "t")])], out) == {"d.t": 2}
    assert _rows(out) == [0, 100] and sorted(p.name for p in tmp_path.iterdir()) == ["in", "o" * 250]
