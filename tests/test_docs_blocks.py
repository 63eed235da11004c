"""Every fenced code block of README.md and docs/ is run or checked here (issue #27): a doc a
newcomer copies from must work as written.

- ``python`` blocks run in a subprocess, in a temporary folder holding the files they name
  (a small generated run as ``binlog.000001``, ``OUT``, a ``schema.sql``); a block that
  defines ``test_*`` functions (the tutorials) is run by pytest, with ``my_consumer`` /
  ``my_decoder`` (the reader's own code in the tutorial) standing in as the project's reader;
- shell blocks (``sh`` or unlabeled) run their commands with bash, one folder per document
  so a later block finds what an earlier one made (README's ``out/``, the tutorial's
  ``run1/``); sizes are shrunk (:data:`SMALLER`) and ``serve`` listens on a free port until
  it says so, then gets SIGINT;
- a ``yaml`` block is a spec: ``generate --spec`` runs it with few transactions;
- output samples (``json``, ``text``, a summary line, a file tree) are compared with what the
  command they show prints or writes.

What cannot run here is in :data:`NOT_RUN` (whole blocks) and :data:`COMMANDS_NOT_RUN` (lines
of a block whose other lines run), each with the reason; :func:`test_every_block_is_covered`
fails on a block nobody handles.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M
)


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository
    line: int  # of the opening fence
    lang: str
    body: str

    @property
    def first(self) -> str:
        return next((ln.strip() for ln in self.body.splitlines() if ln.strip()), "")

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def blocks() -> list[Block]:
    out = []
    for doc in DOCS:
        text = doc.read_text()
        for m in _FENCE.finditer(text):
            body = textwrap.dedent(m.group("body"))
            out.append(
                Block(str(doc.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1, m.group("lang"), body)
            )
    return out


NOT_RUN: dict[tuple[str, str], str] = {
    ("docs/testing.md", "python -m pytest -q -p no:cacheprovider"): (
        "the whole test suite, this test included; .ci/run runs it (README line 2)"
    ),
    ("docs/fuzzing.md", "python -m tests.fuzz --budget 600 --seed 1 --target all"): (
        "a ten-minute fuzzing budget; tests/test_fuzz_corpus.py runs the same targets over the stored corpus"
    ),
    (
        "docs/spark.md",
        "binlogwriter generate --engine spark [--partitions N] --out DIR [options of generate]",
    ): (
        "starts Spark; tests/spark_gen/test_spark_job.py runs `generate --engine spark` and `python -m spark_gen`"
    ),
    (
        "docs/spark.md",
        "# a wheel installed on every node (recommended; also installs Faker at the pinned version)",
    ): ("spark-submit to a YARN cluster"),
    ("docs/spark.md", "python -m venv bw-env && bw-env/bin/pip install 'binlogwriter[spark]' venv-pack"): (
        "installs from a package index and submits to a YARN cluster"
    ),
    ("docs/tutorials/spark-submit.md", 'pip install "binlogwriter[spark,parquet]"'): (
        "installs from a package index, then starts Spark (see the docs/spark.md entry)"
    ),
    (
        "docs/tutorials/spark-submit.md",
        "pip wheel . -w dist && pip install dist/binlogwriter-*.whl          # driver and executors",
    ): ("spark-submit to a YARN cluster"),
}
"""Blocks that cannot run here: (document, first line) -> why."""

COMMANDS_NOT_RUN: dict[str, str] = {
    "pip install": "installs from a package index; .ci/run runs README line 1 in a fresh venv",
    "python -m pytest": "the whole test suite, this test included; .ci/run runs it (README line 2)",
}
"""Commands (by their start) skipped inside blocks that otherwise run: start -> why."""

SMALLER = [
    (re.compile(r"--size \d+(\.\d+)?[GT]B?\b"), "--size 2MB"),
    (re.compile(r"--transactions (\d{5,})\b"), "--transactions 500"),
    (re.compile(r"--port \d+"), "--port 0"),
    (re.compile(r"max_examples=\d+"), "max_examples=10"),
]
"""Sizes made small enough for a test, and a free port instead of a fixed one."""


def _smaller(text: str) -> str:
    for pattern, small in SMALLER:
        text = pattern.sub(small, text)
    return text


def _env() -> dict[str, str]:
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": pythonpath, "NO_COLOR": "1"}


def _run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{args}: exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    )
    return proc


def _generate(cwd: Path, out: str, *args: str) -> Path:
    _run([sys.executable, "-m", "binlogwriter", "generate", "--out", out, "--no-progress", *args], cwd)
    return cwd / out


# ------------------------------------------------------------------------- set-ups


def _setup_readme(d: Path) -> None:
    # README's reading examples name binlog.000001 and binlog.000002 of the working folder,
    # and a schema.sql for the changes of MINIMAL metadata
    run = _generate(d, "sample", "--transactions", "60", "--max-binlog-size", "8K")
    for name in ("binlog.000001", "binlog.000002"):
        (d / name).write_bytes((run / name).read_bytes())
    snapshot = (run / "truth" / "snapshot.sql").read_text()
    (d / "schema.sql").write_text("".join(re.findall(r"CREATE TABLE .*?;\n", snapshot, re.S)))


def _setup_serve(d: Path) -> None:
    run = _generate(d, "out", "--transactions", "50", "--max-binlog-size", "8K")
    for name in ("binlog.000001", "binlog.000002"):
        (d / name).write_bytes((run / name).read_bytes())
    (d / "spec.yaml").write_text("workload: sysbench\nseed: 3\n")


def _setup_output(d: Path) -> None:
    _generate(d, "OUT", "--transactions", "40")


SETUP = {"README.md": _setup_readme, "docs/serve.md": _setup_serve, "docs/output.md": _setup_output}


# ------------------------------------------------------------------------- python

_PRELUDE = """\
from pathlib import Path
OUT = Path("OUT")
"""

_PRELUDES = {
    # the strategies listing applies them to a table and column of the reader's own
    "docs/tutorials/property-test.md": """\
from binlogwriter.schema import Table
table = t1 = t2 = Table.from_sql("CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(9), c INT, d DATE)", database="db")
""",
}

_CONFTEST = """\
import pytest
from hypothesis import settings

from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.testing import assert_changes_equal, read_changes

settings.register_profile("docs", max_examples=10, deadline=None)
settings.load_profile("docs")


def my_decoder(files):
    # the consumer under test in the tutorials: here the project's reader, with the tables of
    # the CREATE TABLE statements in the files (what MINIMAL metadata leaves out) unless an
    # ALTER TABLE changes them midway (then from the Table_map's metadata alone)
    reader = BinlogReader(list(files))
    ddl = [ev for ev in reader if ev.type_code == 2 and ev.query.lstrip()[:12].upper() in ("CREATE TABLE", "ALTER TABLE ")]
    if any(ev.query.lstrip().upper().startswith("ALTER") for ev in ddl):
        return read_changes(files)
    return read_changes(files, [Table.from_sql(ev.query, database=ev.db, flavor=reader.fmt.flavor) for ev in ddl])


class my_consumer:
    decode = staticmethod(my_decoder)



@pytest.fixture(autouse=True)
def _names(request):
    request.module.my_consumer = my_consumer
    request.module.my_decoder = my_decoder
    request.module.assert_changes_equal = assert_changes_equal
"""


def _python(block: Block, d: Path) -> None:
    if "def test_" in block.body:
        (d / "conftest.py").write_text(_CONFTEST)
        (d / "test_block.py").write_text(_smaller(block.body))
        _run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-x",
                "-p",
                "no:cacheprovider",
                "-n",
                "0",
                "test_block.py",
            ],
            d,
        )
        return
    (d / "block.py").write_text(_PRELUDE + _PRELUDES.get(block.path, "") + block.body)
    _run([sys.executable, "block.py"], d)


def _excerpt(block: Block, d: Path) -> None:
    """docs/adding-a-type.md quotes the FAMILIES registry: the quote must build the same one."""
    code = (
        "from types import ModuleType\n"
        "from binlogwriter.values import families as F\n"
        "g = dict(vars(F))\n"
        f"exec({block.body!r}, g)\n"
        "assert g['FAMILIES'] == F.FAMILIES, sorted(set(g['FAMILIES']) ^ set(F.FAMILIES))\n"
    )
    _run([sys.executable, "-c", code], d)


# ------------------------------------------------------------------------- shell


def _commands(body: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", body)
    out = []
    for line in joined.splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _serve(command: str, d: Path) -> None:
    """serve runs until stopped: it must say it listens, then SIGINT ends it."""
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=d,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 60
        assert proc.stderr is not None
        line = proc.stderr.readline()
        while "listening on" not in line:
            assert line and time.monotonic() < end, f"{command}: never listened ({proc.poll()})"
            line = proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


def _shell(block: Block, d: Path) -> None:
    for command in _commands(block.body):
        if any(command.startswith(p) for p in COMMANDS_NOT_RUN):
            if "&&" not in command:
                continue
            command = command.split("&&", 1)[1].strip()  # README line 1: the install, then generate
        command = _smaller(command)
        command = command.replace("DIR [options]", "DIR").replace("/tmp/", "tmp/")
        if command.startswith("binlogwriter serve"):
            _serve(command, d)
        else:
            _run(["bash", "-euo", "pipefail", "-c", command], d)


# ------------------------------------------------------------------------- samples


def _spec(block: Block, d: Path) -> None:
    (d / "spec.yaml").write_text(block.body)
    _generate(d, "spec-run", "--spec", "spec.yaml", "--transactions", "50")


def _summary_line(block: Block, d: Path) -> None:
    """generate's closing line has the sample's shape, with this run's figures."""
    out = _run(
        [
            sys.executable,
            "-m",
            "binlogwriter",
            "generate",
            "--out",
            "out",
            "--no-progress",
            "--transactions",
            "20",
        ],
        d,
    )
    shape = re.escape(block.first)
    shape = re.sub(r"\d[\d,]*(\\\.\d+)?", r"[\\d,]+(\\.\\d+)?", shape).replace("files", "files?")
    assert re.fullmatch(shape, out.stdout.strip().splitlines()[-1].replace(str(d / "out"), "out")), out.stdout


def _tree(block: Block, d: Path) -> None:
    """Every file and folder of output.md's tree (``<db>``: any name) is one a run writes."""
    run = _generate(d, "tree-run", "--transactions", "20")
    names = {p.relative_to(run).as_posix() for p in run.rglob("*")}
    parents: list[str] = []
    for line in block.body.splitlines()[1:]:
        depth = (len(line) - len(line.lstrip())) // 2 - 1
        entry = line.split()[0]
        del parents[depth:]
        path = "/".join([*parents, entry.rstrip("/")])
        if entry.endswith("/"):
            parents.append(entry.rstrip("/"))
        pattern = re.sub(r"<[^>]+>", "[^/]+", re.escape(path))
        assert any(re.fullmatch(pattern, n) for n in names), (path, sorted(names))


_VALUE_MAPS = (".totals.rows", ".spec", ".before", ".after", ".before_image", ".after_image")
"""Sample members keyed by data (tables, columns) or standing for a whole document."""


def _json_keys(sample: object, real: object, where: str = "") -> None:
    """Every key of the sample exists in the real document at the same place ('...' keys and
    '…' elements are the sample's ellipses)."""
    if isinstance(sample, dict):
        assert isinstance(real, dict), where
        for k, v in sample.items():
            if k == "...":
                continue
            if where in _VALUE_MAPS:
                continue
            assert k in real, f"{where}.{k} is not in the real document ({sorted(real)})"
            _json_keys(v, real[k], f"{where}.{k}")
    elif isinstance(sample, list) and isinstance(real, list) and real:
        merged = {k: v for r in reversed(real) if isinstance(r, dict) for k, v in r.items()} or real[0]
        for v in sample:
            if v != "…":
                _json_keys(v, merged, f"{where}[]")


def _json(block: Block, d: Path) -> None:
    sample = json.loads(block.body)
    if "generator" in sample:  # the manifest
        real = json.loads((_generate(d, "m", "--transactions", "20") / "manifest.json").read_text())
        assert set(sample) == set(real)
    else:  # a line of truth/changes/changes.jsonl, of a MINIMAL run (it shows the images)
        run = _generate(d, "c", "--transactions", "20", "--row-image", "MINIMAL")
        lines = (run / "truth" / "changes" / "changes.jsonl").read_text().splitlines()
        real = next(json.loads(x) for x in lines if json.loads(x)["op"] == sample["op"])
        assert set(sample) == set(real)
    _json_keys(sample, real)


def _listing(block: Block, d: Path) -> None:
    """README's listing of a MariaDB file: the same table and rows written by us list the
    same ``###`` row lines and ``# Columns`` / ``# Primary Key`` metadata lines."""
    code = """\
import datetime as dt
from decimal import Decimal
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
sql = ("CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, customer VARCHAR(40) CHARACTER SET latin1, "
       "total DECIMAL(10,2), placed DATETIME(3))")
t = Table.from_sql(sql, database="shop", flavor="mariadb1011")
s = SessionSettings(row_metadata="FULL", rows_query=True)
with BinlogWriter("l", BinlogFormat.mariadb1011(), settings=s) as w:
    with w.transaction() as tx:
        tx.insert(t, [(1, "Ada", Decimal("12.50"), dt.datetime(2026, 1, 2, 3, 4, 5, 678000)),
                      (2, "Grace", Decimal("99.99"), None)])
"""
    _run([sys.executable, "-c", code], d)
    out = _run(
        [sys.executable, "-m", "binlogwriter", "inspect", "-vv", "--print-table-metadata", "l/binlog.000001"],
        d,
    ).stdout

    def kept(text: str) -> list[str]:
        keep = ("###", "# Columns", "#         `", "# Primary Key", "# Number of rows")
        return [ln for ln in text.splitlines() if ln.startswith(keep)]

    assert kept(block.body) and kept(out) == kept(block.body)


def _diff_sample(block: Block, d: Path) -> None:
    """The tutorial's failure output is what assert_changes_equal (the fixture
    assert_binlog_changes) says for that mistake, before its unified diff."""
    code = f"""\
from binlogwriter.testing import assert_changes_equal
try:
    assert_changes_equal([("insert", "shop.orders", None, (1, "new")), ("update", "shop.orders", (1, "new"), (1, None))],
                         [("insert", "shop.orders", None, (1, "new")), ("update", "shop.orders", (1, "new"), (1, "paid"))],
                         columns={{"shop.orders": ["id", "status"]}})
except AssertionError as e:
    got = str(e)
else:
    raise SystemExit("no failure")
want = {block.body.strip()!r}
assert (got + "\\n").startswith(want + "\\n"), got
"""
    _run([sys.executable, "-c", code], d)


CHECKS = {
    ("docs/adding-a-type.md", "FAMILIES: dict[str, ModuleType] = {m.FAMILY: m for m in ("): _excerpt,
    ("docs/generate.md", "generate (local): 2 binlog files"): _summary_line,
    ("docs/output.md", "OUT/"): _tree,
    ("docs/tutorials/consumer-fixture.md", "change stream differs from the ground truth"): _diff_sample,
    (
        "docs/generate.md",
        "INSERT INTO `db`.`t` (`id`, `k`, `c`) VALUES (1, 5, 'it\\'s'), (2, 7, X'00ff')",
    ): None,
}
"""Blocks that are not commands, keyed by (document, first line) -> their check (None: see
:func:`_statements`)."""


def _shape(text: str) -> tuple:
    return text.split()[0], "CASE WHEN" in text, " IN (" in text, "), (" in text


def _statements(block: Block, d: Path) -> None:
    """generate.md's statement shapes (one row or several, by key or IN) are ones that runs
    with statement text write (ecommerce; sysbench through ``--mix`` with several rows a
    statement — its own template sends one statement a row, as oltp_write_only.lua does)."""
    from binlogwriter.reader import BinlogReader

    shapes = set()
    for name, workload, n, more in (("sysbench", "sysbench", "50", ("--mix", "update=2,delete=1,insert=1",
                                                                  "--rows-per-txn", "3")),
                                    ("ecommerce", "ecommerce", "300", ())):
        run = _generate(d, f"q-{name}", "--transactions", n, "--rows-query", "--workload", workload, *more)
        shapes |= {
            _shape(ev.query) for ev in BinlogReader(sorted(run.glob("binlog.0*"))) if ev.type_code == 29
        }
    for line in block.body.splitlines():
        assert _shape(line) in shapes, (line, sorted(shapes))


def _entry(table: dict, block: Block):
    """The key of ``table`` naming ``block``: its document and the start of its first line."""
    return next((k for k in table if k[0] == block.path and block.first.startswith(k[1])), None)


def _kind(block: Block):
    if _entry(NOT_RUN, block) is not None:
        return None
    key = _entry(CHECKS, block)
    if key is not None:
        return CHECKS[key] or _statements
    if block.lang == "python":
        return _python
    if block.lang == "yaml":
        return _spec
    if block.lang == "json":
        return _json
    if block.lang == "text":
        return _listing
    if block.lang in ("sh", ""):
        return _shell
    raise AssertionError(f"{block}: no test handles a ```{block.lang} block")


def _by_document() -> dict[str, list[Block]]:
    out: dict[str, list[Block]] = {}
    for b in blocks():
        out.setdefault(b.path, []).append(b)
    return out


def test_every_block_is_covered() -> None:
    found = blocks()
    assert len(found) > 30
    for b in found:
        _kind(b)
    stale = [
        k for k in [*NOT_RUN, *CHECKS] if not any(b.path == k[0] and b.first.startswith(k[1]) for b in found)
    ]
    assert stale == [], "entries for blocks that no longer exist"


@pytest.mark.parametrize("doc", sorted(_by_document()))
def test_document_blocks_run(doc: str, tmp_path: Path) -> None:
    """The blocks of one document, in order, in one folder."""
    SETUP.get(doc, lambda d: None)(tmp_path)
    for b in _by_document()[doc]:
        check = _kind(b)
        if check is None:
            continue
        try:
            check(b, tmp_path)
        except AssertionError as e:
            raise AssertionError(f"{b}: {e}") from None
