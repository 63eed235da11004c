"""Throwaway MariaDB 10.11 servers for conformance tests.

Follows docs/testing.md: a datadir template is made once per session with
`mariadb-install-db` and copied (`cp -a`) for every server; each server is a
`mariadbd --no-defaults` bound to 127.0.0.1 on a free port with its own socket,
pid file, error log and binlogs under a private temporary directory. A server only
ever ends its own process (by the pid it started), and always stops on exit.

The canonical table dump (`MariaDBServer.dump_table`) renders values as
docs/output.md "Canonical row form" says.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

MISSING_HINT = (
    "MariaDB 10.11 is not installed ({what} not found). Run .ci/run, which installs "
    "mariadb-server and mariadb-client with apt (see docs/testing.md)."
)

ROW_METADATA = ("NO_LOG", "MINIMAL", "FULL")
ROW_IMAGE = ("FULL", "MINIMAL", "NOBLOB")
CHECKSUM = ("CRC32", "NONE")
BINLOG_FORMAT = ("ROW", "STATEMENT", "MIXED")

# DATA_TYPE values (information_schema.COLUMNS) whose canonical form is "0x" + hex of the bytes.
BINARY_TYPES = frozenset(
    "binary varbinary tinyblob blob mediumblob longblob geometry point linestring polygon "
    "multipoint multilinestring multipolygon geometrycollection".split()
)
INT_TYPES = frozenset("tinyint smallint mediumint int bigint year".split())


class MariaDBError(RuntimeError):
    """A MariaDB server or client program failed; the message holds its stderr / err.log."""


class MariaDBMissing(MariaDBError):
    """The MariaDB binaries are not installed."""


def find_binary(name: str) -> str:
    """Path of a MariaDB program (`mariadbd` lives in /usr/sbin, often not on a user's PATH)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin:/sbin")
    if found is None:
        raise MariaDBMissing(MISSING_HINT.format(what=name))
    return found


def _run(argv: Sequence[str], *, input: str | bytes | None = None, timeout: float = 300,
         what: str | None = None) -> subprocess.CompletedProcess:
    """Run a program, raising MariaDBError with its stderr when it exits non-zero."""
    text = not isinstance(input, bytes)
    proc = subprocess.run(list(argv), input=input, capture_output=True, timeout=timeout,
                          text=text, encoding="utf-8" if text else None,
                          errors="surrogateescape" if text else None)
    if proc.returncode != 0:
        err = proc.stderr if text else proc.stderr.decode("utf-8", "replace")
        raise MariaDBError(f"{what or argv[0]} exited {proc.returncode}: {err.strip()}")
    return proc


def make_template(datadir: Path) -> Path:
    """Create an initialised datadir to copy servers from (`mariadb-install-db`, a few seconds)."""
    datadir = Path(datadir)
    datadir.parent.mkdir(parents=True, exist_ok=True)
    find_binary("mariadbd")
    # mariadb-install-db occasionally fails on a loaded machine (its bootstrap server reports a
    # temporary-table error); a fresh datadir on the next attempt succeeds.
    for attempt in range(3):
        try:
            _run([find_binary("mariadb-install-db"), "--no-defaults", "--user=root", f"--datadir={datadir}",
                  "--skip-test-db", "--auth-root-authentication-method=normal"], what="mariadb-install-db")
            return datadir
        except MariaDBError:
            shutil.rmtree(datadir, ignore_errors=True)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def mariadb_binlog(files: Iterable[os.PathLike | str], *args: str,
                   timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `mariadb-binlog ARGS FILES` with stdout/stderr captured as text (not checked).

    Output bytes that are not UTF-8 (statement-format binary literals) survive as surrogate
    escapes, so `.stdout.encode("utf-8", "surrogateescape")` gives the exact bytes back.
    """
    return subprocess.run([find_binary("mariadb-binlog"), *args, *map(str, files)],
                          capture_output=True, text=True, encoding="utf-8",
                          errors="surrogateescape", timeout=timeout)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _canonical_key(row: tuple) -> tuple:
    """docs/output.md ordering: null < number < string; numbers numerically, strings by code point."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, (int, float)) else (2, v)
                 for v in row)


class MariaDBServer:
    """A throwaway `mariadbd` (context manager: starts on enter, always stops on exit).

    Options map to server flags (docs/testing.md): row_metadata
    (--binlog-row-metadata), row_image (--binlog-row-image), annotate
    (--binlog-annotate-row-events), checksum (--binlog-checksum), row_event_max_size
    (--binlog-row-event-max-size, None = server default 8192), compress (--log-bin-compress),
    binlog_format; extra_args are appended last. `files_dir` is the server's
    --secure-file-priv directory (for LOAD DATA INFILE / SELECT ... INTO OUTFILE).
    """

    def __init__(self, template: Path, *, row_metadata: str = "FULL", row_image: str = "FULL",
                 annotate: bool = True, checksum: str = "CRC32", row_event_max_size: int | None = None,
                 compress: bool = False, binlog_format: str = "ROW", extra_args: Sequence[str] = (),
                 start_timeout: float = 60.0, keep: bool = False) -> None:
        for name, value, allowed in (("row_metadata", row_metadata, ROW_METADATA),
                                     ("row_image", row_image, ROW_IMAGE),
                                     ("checksum", checksum, CHECKSUM),
                                     ("binlog_format", binlog_format, BINLOG_FORMAT)):
            if value not in allowed:
                raise ValueError(f"{name}={value!r}: expected one of {', '.join(allowed)}")
        self.template = Path(template)
        self.options = dict(row_metadata=row_metadata, row_image=row_image, annotate=annotate,
                            checksum=checksum, row_event_max_size=row_event_max_size,
                            compress=compress, binlog_format=binlog_format)
        self.extra_args = tuple(extra_args)
        self.start_timeout = start_timeout
        self.keep = keep
        self.base: Path | None = None
        self.port: int | None = None
        self._proc: subprocess.Popen | None = None

    # --- paths -------------------------------------------------------------------------
    @property
    def datadir(self) -> Path:
        return self._base() / "data"

    @property
    def socket(self) -> Path:
        return self._base() / "s.sock"

    @property
    def error_log(self) -> Path:
        return self._base() / "err.log"

    @property
    def files_dir(self) -> Path:
        return self._base() / "files"

    def _base(self) -> Path:
        if self.base is None:
            raise MariaDBError("server not started")
        return self.base

    # --- lifecycle -----------------------------------------------------------------------
    def server_args(self) -> list[str]:
        o = self.options
        args = [
            find_binary("mariadbd"), "--no-defaults", "--user=root",
            f"--datadir={self.datadir}", f"--socket={self.socket}",
            f"--pid-file={self._base() / 'mariadbd.pid'}", f"--log-error={self.error_log}",
            f"--port={self.port}", "--bind-address=127.0.0.1", "--skip-name-resolve",
            f"--secure-file-priv={self.files_dir}",
            "--log-bin=binlog", f"--binlog-format={o['binlog_format']}", "--server-id=1",
            f"--binlog-checksum={o['checksum']}", "--default-time-zone=+00:00",
            "--character-set-server=utf8mb4",
            f"--binlog-row-metadata={o['row_metadata']}", f"--binlog-row-image={o['row_image']}",
            f"--binlog-annotate-row-events={'ON' if o['annotate'] else 'OFF'}",
            f"--log-bin-compress={'ON' if o['compress'] else 'OFF'}",
        ]
        if o["row_event_max_size"] is not None:
            args.append(f"--binlog-row-event-max-size={o['row_event_max_size']}")
        return args + list(self.extra_args)

    def start(self) -> MariaDBServer:
        """Copy the template, start mariadbd and wait until `mariadb-admin ping` answers."""
        if self._proc is not None:
            return self
        if not self.template.is_dir():
            raise MariaDBError(f"datadir template {self.template} does not exist")
        # A short path: unix socket paths are limited to 107 bytes.
        self.base = Path(tempfile.mkdtemp(prefix="bw-mariadb-"))
        try:
            for attempt in range(3):
                self._start_once()
                if self._wait_ready():
                    return self
                log = self._error_log_tail()
                if "Address already in use" in log and attempt < 2:
                    continue  # lost a race for the port: fresh datadir, new port
                raise MariaDBError(f"mariadbd did not become ready (port {self.port}); "
                                   f"{self.error_log}:\n{log}")
        except BaseException:
            self.stop()
            raise
        raise AssertionError("unreachable")

    def _start_once(self) -> None:
        self._kill()
        shutil.rmtree(self.datadir, ignore_errors=True)
        subprocess.run(["cp", "-a", str(self.template), str(self.datadir)], check=True)
        self.files_dir.mkdir(exist_ok=True)
        self.error_log.unlink(missing_ok=True)
        self.port = free_port()
        self._proc = subprocess.Popen(self.server_args(), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + self.start_timeout
        ping = [find_binary("mariadb-admin"), "--no-defaults", f"--socket={self.socket}", "-uroot",
                "ping"]
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            if self.socket.exists() and subprocess.run(ping, capture_output=True).returncode == 0:
                return True
            time.sleep(0.05)
        return False

    def _error_log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError as e:
            return f"(no error log: {e})"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def shutdown(self, timeout: float = 60.0) -> None:
        """Clean `mariadb-admin shutdown` (the last binlog ends with STOP), then wait for the pid."""
        if not self.running:
            return
        proc = _run_unchecked([find_binary("mariadb-admin"), "--no-defaults",
                               f"--socket={self.socket}", "-uroot", "shutdown"], timeout=timeout)
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            raise MariaDBError(f"mariadbd (pid {self._proc.pid}) did not stop within {timeout} s "
                               f"after shutdown (killed); mariadb-admin: {proc.stderr.strip()}; "
                               f"{self.error_log}:\n{self._error_log_tail()}") from None
        if self._proc.returncode != 0:
            raise MariaDBError(f"mariadbd exited {self._proc.returncode} on shutdown; "
                               f"{self.error_log}:\n{self._error_log_tail()}")

    def _kill(self) -> None:
        """Kill our own mariadbd process (only it, by the Popen handle we started)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=30)

    def stop(self) -> None:
        """Shut down (kill our pid if that fails) and remove the temporary directory."""
        try:
            try:
                self.shutdown()
            finally:
                self._kill()
        finally:
            if self.base is not None and not self.keep:
                shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> MariaDBServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- clients -------------------------------------------------------------------------
    def client_args(self, database: str | None = None) -> list[str]:
        args = [find_binary("mariadb"), "--no-defaults", f"--socket={self.socket}", "-uroot",
                "--default-character-set=utf8mb4"]
        return args + ([f"--database={database}"] if database else [])

    def execute(self, sql_text: str, *, database: str | None = None, timeout: float = 300) -> str:
        """Run a multi-statement script through the `mariadb` client; returns its stdout."""
        return _run(self.client_args(database), input=sql_text, timeout=timeout,
                    what=f"mariadb client (script starting {sql_text[:80]!r})").stdout

    def query(self, sql: str, *, database: str | None = None) -> list[tuple[str | None, ...]]:
        """Rows of one statement as the server prints them; SQL NULL is None.

        The session runs with time_zone '+00:00' (TIMESTAMP values print in UTC).
        Values of binary-charset columns are decoded as UTF-8 with surrogate escapes
        (use HEX() in the query when the exact bytes matter).
        """
        import pymysql  # test dependency; imported here so the module loads without it

        try:
            conn = pymysql.connect(unix_socket=str(self.socket), user="root", database=database,
                                   charset="utf8mb4", conv={}, autocommit=True,
                                   init_command="SET time_zone = '+00:00'")
            try:
                with conn.cursor() as cur:
                    cur.execute(sql)
                    rows = cur.fetchall()
            finally:
                conn.close()
        except pymysql.MySQLError as e:
            raise MariaDBError(f"query {sql[:200]!r} failed: {e}") from e
        return [tuple(v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v
                      for v in row) for row in rows]

    # --- binlogs -------------------------------------------------------------------------
    def flush_logs(self) -> None:
        self.execute("FLUSH BINARY LOGS;")

    def binlog_files(self) -> list[Path]:
        """The server's binlog files in binlog.index order."""
        index = self.datadir / "binlog.index"
        return [(self.datadir / line.strip()).resolve()
                for line in index.read_text().splitlines() if line.strip()]

    def copy_binlogs(self, dest_dir: os.PathLike | str) -> list[Path]:
        """Copy the binlog files (and a binlog.index naming them) into dest_dir.

        Call after shutdown() for complete files ending with STOP; a copy taken while the
        server runs ends at the last event written and has the in-use flag set in its FDE.
        """
        dest = Path(dest_dir)
        dest.mkdir(parents=True, exist_ok=True)
        copied = []
        for path in self.binlog_files():
            shutil.copyfile(path, dest / path.name)
            copied.append(dest / path.name)
        (dest / "binlog.index").write_text("".join(f"./{p.name}\n" for p in copied))
        return copied

    def replay(self, binlog_paths: Iterable[os.PathLike | str],
               extra_binlog_args: Sequence[str] = (), *, verify_checksum: bool = True,
               timeout: float = 600) -> None:
        """`mariadb-binlog [--verify-binlog-checksum] ARGS FILES | mariadb` into this server."""
        binlog_argv = [find_binary("mariadb-binlog"),
                       *(["--verify-binlog-checksum"] if verify_checksum else []),
                       *extra_binlog_args, *map(str, binlog_paths)]
        with tempfile.TemporaryFile() as binlog_err, tempfile.TemporaryFile() as client_err:
            producer = subprocess.Popen(binlog_argv, stdout=subprocess.PIPE, stderr=binlog_err)
            try:
                consumer = subprocess.run([*self.client_args(), "--binary-mode"],
                                          stdin=producer.stdout, stdout=subprocess.DEVNULL,
                                          stderr=client_err, timeout=timeout)
            finally:
                producer.stdout.close()
                producer.wait(timeout=timeout)
            binlog_err.seek(0)
            client_err.seek(0)
            errors = []
            if producer.returncode != 0:
                errors.append(f"mariadb-binlog exited {producer.returncode}: "
                              f"{binlog_err.read().decode('utf-8', 'replace').strip()}")
            if consumer.returncode != 0:
                errors.append(f"mariadb client exited {consumer.returncode}: "
                              f"{client_err.read().decode('utf-8', 'replace').strip()}")
            if errors:
                raise MariaDBError("replay of " + " ".join(map(str, binlog_paths)) + " failed: "
                                   + "; ".join(errors))

    # --- canonical dumps -----------------------------------------------------------------
    def columns(self, db: str, table: str) -> list[tuple[str, str, str | None]]:
        """(name, DATA_TYPE, CHARACTER_SET_NAME) of every column, invisible ones included."""
        return self.query(
            "SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_SET_NAME FROM information_schema.COLUMNS "
            f"WHERE TABLE_SCHEMA = {quote_str(db)} AND TABLE_NAME = {quote_str(table)} "
            "ORDER BY ORDINAL_POSITION")

    def dump_table(self, db: str, table: str) -> list[tuple]:
        """Every row in the canonical form of docs/output.md, in its canonical order.

        Integers, YEAR and BIT (`c+0`) -> int; FLOAT and DOUBLE (`CAST(c AS DOUBLE)`: every digit of
        a DOUBLE(M,D) value) -> float;
        DECIMAL and temporals -> str as the server prints them (TIMESTAMP in UTC); binary
        strings, BLOBs, charset-binary columns and geometry -> "0x" + lowercase hex; other
        strings (JSON included: MariaDB keeps its text) -> str; NULL -> None.
        MariaDB-only INET4/INET6/UUID -> "0x" + the hex of their binary form.
        """
        cols = self.columns(db, table)
        if not cols:
            raise MariaDBError(f"table {db}.{table} has no columns (does it exist?)")
        exprs, kinds = [], []
        for name, data_type, charset in cols:
            ident = quote_ident(name)
            if data_type in BINARY_TYPES or charset == "binary":
                exprs.append(f"HEX({ident})")
                kinds.append("hex")
            elif data_type in ("uuid", "inet4", "inet6"):  # their bytes, in the order the row events carry them
                exprs.append(f"HEX(CAST({ident} AS BINARY({4 if data_type == 'inet4' else 16})))")
                kinds.append("hex")
            elif data_type in ("float", "double"):  # DOUBLE(M,D) prints D decimals: the cast prints every digit
                exprs.append(f"CAST({ident} AS DOUBLE)")
                kinds.append("float")
            elif data_type == "bit":
                exprs.append(f"{ident}+0")
                kinds.append("int")
            elif data_type in INT_TYPES:
                exprs.append(ident)
                kinds.append("int")
            else:
                exprs.append(ident)
                kinds.append("str")
        order = ", ".join(str(i) for i in range(1, len(exprs) + 1))
        sql = (f"SELECT {', '.join(exprs)} FROM {quote_ident(db)}.{quote_ident(table)} "
               f"ORDER BY {order}")
        rows = []
        for raw in self.query(f"/* canonical dump */ {sql}"):
            rows.append(tuple(_convert(v, kind) for v, kind in zip(raw, kinds, strict=True)))
        rows.sort(key=_canonical_key)
        return rows


def _convert(value: str | None, kind: str) -> Any:
    if value is None:
        return None
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "hex":
        return "0x" + value.lower()
    return value


def quote_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def quote_str(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def _run_unchecked(argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=True, text=True, errors="replace",
                          timeout=timeout)
