"""``binlogwriter serve`` as a command: a port in use and Ctrl-C (issue #27).

Both end with one line on stderr and no traceback: a port taken is a usage error (exit 2, the
line names the address and the flags); Ctrl-C stops the server with exit status 130 (128 +
SIGINT), not click's "Aborted!" and 1.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.serve.cli import serve

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "samples" / "mysql80-full-full-ecommerce"


def test_a_port_in_use_is_named() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        res = CliRunner().invoke(serve, [str(RUN), "--port", str(port)])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert f"127.0.0.1:{port}" in lines[0] and "--port" in lines[0] and "Traceback" not in res.output


def _start(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "binlogwriter", "serve", str(RUN), "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_ctrl_c_stops_with_one_line_and_130() -> None:
    proc = _start("-q")
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the "listening on" line: the server is up
        assert re.search(r"listening on 127\.0\.0\.1:\d+", line), line
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["binlogwriter serve: interrupted (Ctrl-C), stopped"]
    assert out == ""


def test_a_run_directory_reports_its_own_row_image_and_metadata(tmp_path: Path) -> None:
    """``binlogwriter serve RUN`` reports ``@@binlog_row_image`` / ``@@binlog_row_metadata``
    from the run's manifest.json (a CDC client such as Debezium refuses a partial image at
    startup from them); given options win; files without a manifest report FULL."""
    import pymysql

    from binlogwriter.pytest_plugin import ServeSubprocess
    from generators.engine import generate
    from generators.spec import Spec

    run = generate(Spec.from_dict({"workload": "sysbench", "transactions": 5, "initial_rows": 2, "seed": 1,
                                   "row_image": "NOBLOB", "row_metadata": "MINIMAL"}), tmp_path / "run").out

    def reported(sources: list[Path], told: dict[str, str] | None = None) -> tuple:
        proc = ServeSubprocess(sources, "repl", "pw", told)
        try:
            con = pymysql.connect(host="127.0.0.1", port=proc.port, user="repl", password="pw")
            with con.cursor() as cur:
                cur.execute("SELECT @@binlog_row_image, @@binlog_row_metadata")
                got = cur.fetchone()
            con.close()
            return got
        finally:
            proc.close()

    assert reported([run]) == ("NOBLOB", "MINIMAL")
    assert reported([run], {"row_image": "FULL"}) == ("FULL", "MINIMAL")
    assert reported([run / "binlog.000001"]) == ("FULL", "FULL")


@pytest.mark.parametrize("bad", ["initial_rows: 0", "rows_per_txn: -2", "flavor: mysql99"])
def test_a_bad_spec_setting_is_located_as_generate_locates_it(tmp_path: Path, bad: str) -> None:
    """``serve --generate SPEC`` names the spec file and line of a bad setting, with the words
    ``generate --spec SPEC`` gives for it (one rule: generators/cli.py ``setting_place``)."""
    from generators.cli import generate as generate_command

    spec = tmp_path / "spec.yaml"
    spec.write_text(f"workload: sysbench\nseed: 3\n{bad}\n", encoding="utf-8")
    gen = CliRunner().invoke(generate_command, ["--spec", str(spec), "--out", str(tmp_path / "out")])
    assert gen.exit_code != 0
    gen_line = gen.output.strip().splitlines()[-1]
    assert f"{spec}:3" in gen_line, gen.output
    res = CliRunner().invoke(serve, ["--generate", str(spec), "--port", "0"])
    assert res.exit_code == 2, res.output
    line = res.output.strip().splitlines()[-1]
    assert line.startswith("binlogwriter serve: error: ") and f"{spec}:3" in line, res.output
    assert line.split(f"{spec}:3", 1)[1] == gen_line.split(f"{spec}:3", 1)[1]
