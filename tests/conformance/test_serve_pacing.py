"""``--rate``: a paced dump takes at least as long as the rate says (only the lower bound is
checked: a loaded machine may be slower, never faster), and delivers everything."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent

from generators.engine import generate
from generators.spec import Spec

from .serve_process import ServeProcess

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pace") / "run"
    generate(Spec.from_dict(dict(workload="sysbench", flavor="mysql80", seed=3, transactions=120,
                                 initial_rows=10, max_binlog_size=40000)), out)
    return out


def _timed_read(srv: ServeProcess) -> tuple[int, float]:
    s = BinLogStreamReader(connection_settings=srv.settings, server_id=81, log_file="binlog.000001", log_pos=4,
                           resume_stream=True, blocking=False, only_events=[GtidEvent])
    t0 = time.monotonic()
    n = sum(1 for _ in s)
    dt = time.monotonic() - t0
    s.close()
    return n, dt


@pytest.mark.parametrize(("rate", "seconds"), [("60tps", lambda n, size: n / 60),
                                               ("100KB/s", lambda n, size: size / 102400)])
def test_rate_is_a_lower_bound_and_nothing_is_lost(run: Path, rate: str, seconds) -> None:
    files = json.loads((run / "manifest.json").read_text())["files"]
    total = sum(f["transactions"] for f in files)
    size = sum(f["bytes"] for f in files)
    with ServeProcess([run], "--rate", rate) as srv:
        n, dt = _timed_read(srv)
    assert n == total
    assert dt >= 0.9 * seconds(total, size) - 0.1, (dt, seconds(total, size))
