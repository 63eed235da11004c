"""Spark from any environment (spark_gen/environment.py).

The end-to-end cases run the virtualenv's own scripts with an empty environment
(``env -i PATH=/usr/bin:/bin``), as a Makefile, cron or CI step would: no activation, no
PYSPARK_PYTHON. ``PYTHONPATH`` is passed only so a development checkout that is not the
one installed in the venv is the code under test (in CI the package is pip-installed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from spark_gen import environment

from .conftest import tree_digest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SMALL = ["--transactions", "40", "--initial-rows", "10", "--max-binlog-size", "16K", "--seed", "7"]


def _bare_env(**extra: str) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", **extra}
    if _needs_pythonpath():
        env["PYTHONPATH"] = str(REPO)
    return env


def _needs_pythonpath() -> bool:
    """True when the venv's Python would import another checkout than this one."""
    p = subprocess.run([sys.executable, "-c", "import generators, os; print(os.path.dirname(generators.__file__))"],
                       env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, cwd="/")
    return p.returncode != 0 or Path(p.stdout.strip()).resolve() != (REPO / "generators").resolve()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "o"
    p = subprocess.run([str(BIN / "binlogwriter"), "generate", "--no-progress", "--out", str(out), *SMALL],
                       env=_bare_env(), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return out


def test_unactivated_venv_script_runs_spark_with_the_same_bytes(local_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "spark"
    p = subprocess.run([str(BIN / "binlogwriter"), "generate", "--engine", "spark", "--partitions", "2",
                        "--out", str(out), *SMALL], env=_bare_env(), capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    assert tree_digest(out) == tree_digest(local_run)
    assert " INFO " not in p.stderr, p.stderr[-3000:]  # Spark's INFO logging is off by default
    assert "Traceback" not in p.stderr
    assert "generate (spark):" in p.stdout and str(out) in p.stdout


def test_spark_submit_from_the_venv_bin(local_run: Path, tmp_path: Path) -> None:
    """``VENV/bin/spark-submit spark_gen/job.py`` with the system Python first on PATH: the
    driver re-executes with the venv's Python, the workers use it too."""
    out = tmp_path / "submit"
    import pyspark

    env = _bare_env(SPARK_HOME=os.path.dirname(pyspark.__file__))
    p = subprocess.run([str(BIN / "spark-submit"), str(REPO / "spark_gen" / "job.py"), "--partitions", "2",
                        "--out", str(out), *SMALL], env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    assert tree_digest(out) == tree_digest(local_run)
    # spark-submit's JVM is up before our code: its level applies once SparkContext reads its conf
    assert "Setting Spark log level to \"ERROR\"" in p.stderr, p.stderr[-3000:]
    after = p.stderr.split("Setting Spark log level", 1)[1]
    assert " INFO " not in after, after[-3000:]
    assert "Traceback" not in p.stderr


def test_executors_without_the_project_fail_fast_with_one_line(tmp_path: Path) -> None:
    """Workers on a Python that cannot import the project (an empty venv of the same
    version): the probe job turns it into one line naming the missing module, exit 2."""
    empty = tmp_path / "empty-venv"
    venv.EnvBuilder(with_pip=False).create(empty)
    out = tmp_path / "o"
    env = _bare_env(PYSPARK_PYTHON=str(empty / "bin" / "python"))
    p = subprocess.run([str(BIN / "binlogwriter"), "generate", "--engine", "spark", "--partitions", "2",
                        "--out", str(out), *SMALL], env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("binlogwriter generate:")]
    assert len(lines) == 1 and "cannot import" in lines[0] and str(empty) in lines[0], p.stderr[-3000:]
    assert "--archives" in lines[0]
    assert "Traceback" not in p.stderr and not out.exists()


# -- units ------------------------------------------------------------------------------------

def test_prepare_local_uses_this_interpreter_unless_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.delenv("PYSPARK_DRIVER_PYTHON", raising=False)
    environment.prepare_local()
    assert os.environ["PYSPARK_PYTHON"] == sys.executable == os.environ["PYSPARK_DRIVER_PYTHON"]
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/python/bin/python3")
    environment.prepare_local()
    assert os.environ["PYSPARK_PYTHON"] == "/opt/python/bin/python3"
    monkeypatch.delenv("PYSPARK_PYTHON")
    monkeypatch.delenv("PYSPARK_DRIVER_PYTHON")
    environment.prepare_local(conf_python="/opt/conf/python")  # spark.pyspark.python set: leave it
    assert "PYSPARK_PYTHON" not in os.environ


def test_builder_options_keep_user_settings(tmp_path: Path) -> None:
    class Conf:
        def __init__(self, keys):
            self.keys = keys

        def contains(self, k):
            return k in self.keys

    opts = environment.builder_options("ERROR", Conf(set()))
    cfg = opts["spark.driver.extraJavaOptions"].split("file:", 1)[1]
    text = Path(cfg).read_text()
    assert "rootLogger.level = error" in text and "SYSTEM_ERR" in text
    assert opts["spark.ui.showConsoleProgress"] == "false"
    assert opts["spark.log.level"] == "ERROR"
    assert environment.builder_options("WARN", Conf({"spark.driver.extraJavaOptions", "spark.log.level"})) == \
        {"spark.ui.showConsoleProgress": "false"}
    assert "UseSerialGC" not in opts["spark.driver.extraJavaOptions"]
    local = environment.builder_options("ERROR", Conf(set()), local=True)["spark.driver.extraJavaOptions"]
    assert local.startswith(environment.LOCAL_JVM_OPTIONS + " -Dlog4j2")


@pytest.mark.parametrize(("text", "needle"), [
    ("py4j.protocol.Py4JJavaError: ...\n  File \"x\", line 1\nModuleNotFoundError: No module named 'numpy'\n\tat org",
     "cannot import the project: ModuleNotFoundError: No module named 'numpy'"),
    ('java.io.IOException: Cannot run program "/nope/python": error=2, No such file or directory',
     "no program '/nope/python'"),
    ("[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port number.",
     "is Java 17+ installed"),
    ("something else\nand more", "something else"),
])
def test_explain_failure_is_one_line(text: str, needle: str) -> None:
    msg = environment.explain_failure(RuntimeError(text))
    assert "\n" not in msg and needle in msg and msg.startswith("--engine spark: ")


def test_local_masters() -> None:
    assert all(environment.is_local_master(m) for m in (None, "local", "local[2]", "local[*]", "local[2,4]"))
    assert not any(environment.is_local_master(m) for m in ("yarn", "spark://h:7077", "k8s://h", "localhost"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="thread count from /proc (Linux)")
def test_worker_daemon_preloads_without_starting_a_thread(tmp_path: Path) -> None:
    """The local worker daemon (spark_gen/daemon.py) imports the project before it forks its
    workers: every module loads, and none starts a thread (a fork copies only the calling one)."""

    code = ("import os, spark_gen.daemon as d; bad = d.preload(); "
            "print(bad, len(os.listdir('/proc/self/task')), d.preload(('no_such_module_here',)))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    env.pop("OPENBLAS_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["[]", "1", "['no_such_module_here']"]
    assert environment.builder_options("ERROR", local=True).get("spark.python.daemon.module") in (None, "spark_gen.daemon")
