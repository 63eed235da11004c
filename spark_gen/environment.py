"""Spark from any environment: which Python the workers run, quiet logs, an early probe.

Spark starts its Python workers with ``PYSPARK_PYTHON`` (default: ``python3`` from PATH).
Run from a virtualenv without activating it (a Makefile, cron, CI, pipx), that is the
system Python, which cannot import this project: every task fails with a
``ModuleNotFoundError`` buried in Java stack traces. So:

* :func:`prepare_local` — in local mode, when the user has not chosen an interpreter
  (``PYSPARK_PYTHON`` / ``PYSPARK_DRIVER_PYTHON`` / ``spark.pyspark.python``), the workers
  run the interpreter that runs binlogwriter (``sys.executable``), and the directories the
  project is imported from are on their ``PYTHONPATH``; Spark's console logging starts at
  ``--spark-log-level`` (a log4j2 configuration given to the driver JVM) with no progress bar.
* :func:`ensure_driver_python` — ``spark-submit spark_gen/job.py`` starts the driver with
  ``python3`` from PATH too; when that interpreter cannot import the project and the
  ``spark-submit`` being used belongs to a virtualenv (``SPARK_HOME`` inside its
  site-packages), the driver re-executes itself with that virtualenv's Python.
* :func:`probe_executors` — one tiny job imports the project on the executors before the
  real work; a failure becomes one line naming the missing module and the executors'
  Python (:class:`~spark_gen.errors.EnvironmentSetupError`), instead of a retried task
  failure minutes later. On a cluster, ship a packed environment (docs/spark.md).

This module imports only the standard library at import time: ``job.py`` loads it in an
interpreter that may not have the project's dependencies.
"""

from __future__ import annotations

import os
import re
import site
import sys
import tempfile
from pathlib import Path
from typing import Any

from generators.engines import DEFAULT_LOG_LEVEL, LOG_LEVELS

__all__ = [
    "LOG_LEVELS",
    "DEFAULT_LOG_LEVEL",
    "PROJECT_MODULES",
    "is_local_master",
    "prepare_local",
    "builder_options",
    "LOCAL_JVM_OPTIONS",
    "ensure_driver_python",
    "probe_executors",
    "explain_failure",
]

PROJECT_MODULES = ("binlogwriter", "generators", "spark_gen")
_DEPENDENCIES = ("construct", "numpy", "faker", "sqlglot", "zstandard", "yaml")
_REEXEC_FLAG = "_BINLOGWRITER_DRIVER_REEXEC"


def is_local_master(master: str | None) -> bool:
    """``local``, ``local[N]``, ``local[*]``, ``local[N,F]`` (and no master at all)."""
    return master is None or master == "local" or master.startswith("local[")


def _project_roots() -> list[str]:
    """Directories the project's packages are imported from, minus site-packages."""
    import importlib.util

    skip = {os.path.realpath(p) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    out: list[str] = []
    for name in PROJECT_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        root = os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))
        if os.path.realpath(root) not in skip and root not in out:
            out.append(root)
    return out


def prepare_local(conf_python: str | None = None) -> None:
    """Local mode: workers run ``sys.executable`` unless the user chose an interpreter;
    the project's source directories are on the workers' PYTHONPATH (the JVM and the
    workers it starts inherit this process's environment)."""
    if not (os.environ.get("PYSPARK_PYTHON") or conf_python):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    if not os.environ.get("PYSPARK_DRIVER_PYTHON") and not conf_python:
        os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for root in reversed(_project_roots()):
        if root not in paths:
            paths.insert(0, root)
    if paths:
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)


def _log4j_file(level: str) -> str:
    """A log4j2 configuration: console on stderr at ``level`` (Spark's own default is INFO)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    d = Path(tempfile.gettempdir()) / f"binlogwriter-spark-{uid}"
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = d / f"log4j2-{level.lower()}.properties"
    text = (
        f"rootLogger.level = {level.lower()}\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex\n"
        # the shell's logger set too: Spark then keeps this level instead of announcing WARN
        "logger.repl.name = org.apache.spark.repl.Main\n"
        f"logger.repl.level = {level.lower()}\n"
    )
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
    return str(path)


LOCAL_JVM_OPTIONS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
"""JVM options of a local session (``local: True``). The JVM there only schedules tasks and
moves the Python workers' bytes; its parallel GC and C2 compiler threads cost more CPU
than they save (measured with spark_gen/timing.py on a 100 MB sysbench run, local[2]:
JVM 6.1 -> 2.8 CPU-s, same bytes)."""


def builder_options(level: str, existing: Any = None, local: bool = False) -> dict[str, str]:
    """Settings for a new session: the driver JVM logs at ``level`` from its first line,
    no console progress bar; ``local``: the driver JVM runs the executors too and gets
    :data:`LOCAL_JVM_OPTIONS` and, when its workers run this interpreter, the daemon of
    spark_gen/daemon.py. Settings the user made (spark-defaults.conf, ``--conf``) win."""
    jvm = f"{LOCAL_JVM_OPTIONS} " if local else ""
    out = {"spark.ui.showConsoleProgress": "false",
           # from SparkContext's first line (also under spark-submit, whose JVM is already up)
           "spark.log.level": level.upper(),
           "spark.driver.extraJavaOptions": f"{jvm}-Dlog4j2.configurationFile=file:{_log4j_file(level)}"}
    # not spark.python.unix.domain.socket.enabled (Unix sockets to the workers instead of
    # TCP: about 40 ms less per task): with it about one run in three printed a worker's
    # cut-off traceback (a broken pipe) to stderr when the JVM stopped
    if local and os.environ.get("PYSPARK_PYTHON") == sys.executable:
        # the workers run this interpreter: its daemon imports the project once, before it
        # forks them (spark_gen/daemon.py); reused workers keep it (Spark's default, stated)
        out["spark.python.daemon.module"] = "spark_gen.daemon"
        out["spark.python.worker.reuse"] = "true"
    if existing is not None:
        out = {k: v for k, v in out.items() if not existing.contains(k)}
    return out


# -- the driver under spark-submit ------------------------------------------------------------

def _venv_python_of_spark_home() -> str | None:
    """``SPARK_HOME`` = ``VENV/lib/pythonX.Y/site-packages/pyspark`` (pip's pyspark, as
    ``VENV/bin/spark-submit`` finds it) -> ``VENV/bin/python``."""
    home = os.environ.get("SPARK_HOME")
    if not home:
        return None
    p = Path(home).resolve()
    for parent in p.parents:
        cand = parent / "bin" / "python"
        if (parent / "pyvenv.cfg").is_file() and cand.exists():
            return str(cand)
    return None


def ensure_driver_python() -> None:
    """Called first by ``spark_gen/job.py``: if this interpreter cannot import the project,
    re-execute with the Python of the virtualenv that ``spark-submit`` came from, or exit 2
    with one line saying what to set."""
    missing = _missing_module()
    if missing is None:
        return
    cand = _venv_python_of_spark_home()
    if cand and os.path.realpath(cand) != os.path.realpath(sys.executable) and not os.environ.get(_REEXEC_FLAG):
        os.environ[_REEXEC_FLAG] = "1"
        sys.stderr.flush()
        os.execv(cand, [cand, *sys.argv])
    print(f"spark_gen: error: the driver's Python ({sys.executable}) cannot import {missing}: run "
          "spark-submit with PYSPARK_PYTHON=/path/to/venv/bin/python (a Python where binlogwriter is "
          "installed), or use `binlogwriter generate --engine spark` (docs/spark.md)", file=sys.stderr)
    raise SystemExit(2)


def _missing_module() -> str | None:
    """The first project module or dependency this interpreter cannot import, or None."""
    import importlib

    for name in (*_DEPENDENCIES, "binlogwriter", "generators.engine", "spark_gen.partition", "pyspark"):
        try:
            importlib.import_module(name)
        except ImportError as e:
            return f"{name} ({type(e).__name__}: {e})"
        except Exception as e:  # noqa: BLE001 - a broken install is just as missing
            return f"{name} ({type(e).__name__}: {e})"
    return None


# -- executors --------------------------------------------------------------------------------

def probe_executors(sc: Any, tasks: int | None = None) -> None:
    """Import the project on the executors (one tiny job); raise EnvironmentSetupError with
    one line when they cannot."""
    from spark_gen.errors import EnvironmentSetupError

    modules = (*_DEPENDENCIES, "binlogwriter", "generators.engine", "spark_gen.partition")
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"

    def probe(_it):  # nested: cloudpickle ships it by value, it needs nothing of ours
        import importlib
        import sys as _sys

        got = f"{_sys.version_info[0]}.{_sys.version_info[1]}"
        if got != want:
            return [(_sys.executable, None, f"Python {got}, the driver runs Python {want}")]
        for m in modules:
            try:
                importlib.import_module(m)
            except Exception as e:  # noqa: BLE001
                return [(_sys.executable, m, f"{type(e).__name__}: {e}")]
        return [(_sys.executable, None, None)]

    n = max(1, min(tasks or sc.defaultParallelism, 256))
    try:
        results = sc.parallelize(range(n), n).mapPartitions(probe).collect()
    except Exception as e:  # noqa: BLE001 - Py4J/PySpark errors: translate to one line
        raise EnvironmentSetupError(explain_failure(e)) from None
    for exe, mod, err in results:
        if err is not None:
            what = f"cannot import {mod} ({err})" if mod else err
            raise EnvironmentSetupError(
                f"--engine spark: the executors' Python ({exe}) {what}; give executors an environment "
                "with binlogwriter installed: a packed venv via --archives and spark.pyspark.python "
                "(docs/spark.md)")


_PATTERNS = (
    (re.compile(r"((?:ModuleNotFoundError|ImportError): [^\n]+)"), "cannot import the project: {0}"),
    (re.compile(r'Cannot run program "([^"]+)"'), "cannot start the Python workers: no program {0!r}"),
    (re.compile(r"(Python in worker has different version[^\n]*)"), "{0}"),
    (re.compile(r"(Java gateway process exited[^\n]*)"),
     "cannot start Spark's JVM ({0}); is Java 17+ installed (JAVA_HOME or java on PATH)?"),
)


def explain_failure(e: BaseException) -> str:
    """One line for a Spark failure at startup or in the probe (the cause, not the stack)."""
    text = str(e)
    for rx, fmt in _PATTERNS:
        m = rx.search(text)
        if m:
            return "--engine spark: " + fmt.format(m.group(1).strip())
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(e).__name__)
    return f"--engine spark: Spark failed before the job started: {first[:300]}"
