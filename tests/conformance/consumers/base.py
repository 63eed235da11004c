"""What an adapter gets and how adapters are found (the adapter contract: docs/consumers.md).

An adapter is ``tests/conformance/consumers/<name>/adapter.py`` exporting ``NAME`` (str),
``FLAVORS`` (the flavors it reads), ``ensure_built()`` (install or build once; a missing
toolchain raises with one line saying what to install — never a skip) and
``decode(server, *, expected_changes, timeout=120.0) -> list[dict]``: connect to the served
run, read until ``expected_changes`` row changes were seen (or the timeout: return what was
read) and return them in the change model (``op``, ``database``, ``table``, ``before``,
``after`` keyed by column name; ``gtid``/``file``/``position`` when the consumer gives them),
values converted from the consumer's wire format to natural Python values, not forced into
the canonical form (the comparison does that).

An adapter that compares final table state instead of a change stream (a real replica) sets
``MODE = "final_rows"`` and its ``decode`` returns one ``{"op": "row", "database", "table",
"after": row}`` per row left in each table the run wrote (see mariadb_replica/adapter.py).
An adapter may set ``PROFILE`` to the comparison profile its values need
(binlogwriter.compare.PROFILES; default: the profile named like ``NAME``, else ``exact``), and
keep its known failures in its own ``expectations.toml`` beside ``adapter.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from binlogwriter.pytest_plugin import ServedBinlogs

__all__ = ["ServedEndpoint", "Adapter", "discover", "AdapterBroken", "HERE", "require_pinned"]

HERE = Path(__file__).resolve().parent
FLAVORS = ("mysql80", "mysql84", "mariadb1011")


ServedEndpoint = ServedBinlogs
"""Where a shape is served: the ``binlog_server`` fixture's :class:`ServedBinlogs` — ``host``/
``port``/``user``/``password`` of the server, ``flavor`` of the files, ``run_dir`` (the
directory served: a generated run with its ``truth/``, or a catalogue case's files),
``server_id`` (a replica server id to register with, new for every cell) and ``settings``."""


def require_pinned(name: str, distribution: str, here: Path) -> None:
    """An adapter's ``ensure_built`` for a Python consumer: the version pinned in
    ``here/requirements.txt`` (``distribution==X``) is the one installed — the matrix's
    expectations are about that version; else one line saying what to install."""
    import importlib.metadata

    pin = (here / "requirements.txt").read_text().split("==")[1].strip()
    try:
        got = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        got = None
    if got != pin:
        raise AssertionError(f"{name} {pin} is needed ({got or 'not installed'}): "
                             f"pip install -r {here / 'requirements.txt'}")


class AdapterBroken(Exception):
    """An adapter.py that cannot be imported or does not follow the contract."""


@dataclass(frozen=True)
class Adapter:
    """One consumer: its directory name, its module (None when broken) and why it is broken."""

    dirname: str
    module: ModuleType | None
    error: str | None = None

    @property
    def name(self) -> str:
        return getattr(self.module, "NAME", self.dirname) if self.module is not None else self.dirname

    @property
    def flavors(self) -> tuple[str, ...]:
        return tuple(getattr(self.module, "FLAVORS", FLAVORS)) if self.module is not None else FLAVORS

    @property
    def mode(self) -> str:
        return getattr(self.module, "MODE", "changes") if self.module is not None else "changes"

    def check(self) -> ModuleType:
        if self.module is None:
            raise AdapterBroken(f"{self.dirname}/adapter.py: {self.error}")
        return self.module


def _load(path: Path) -> ModuleType:
    name = f"tests.conformance.consumers.{path.parent.name}.adapter"
    if (path.parent / "__init__.py").is_file():
        return importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def discover(root: Path = HERE) -> list[Adapter]:
    """Every ``<dir>/adapter.py`` under ``root``, by directory name; an adapter that fails to
    import or lacks a name of the contract is listed with the error (its cells fail)."""
    out = []
    for path in sorted(root.glob("*/adapter.py")):
        try:
            module = _load(path)
            missing = [n for n in ("NAME", "FLAVORS", "ensure_built", "decode") if not hasattr(module, n)]
            if missing:
                out.append(Adapter(path.parent.name, None, f"missing {', '.join(missing)}"))
                continue
            out.append(Adapter(path.parent.name, module))
        except Exception as exc:  # an adapter's import error is its cells' failure, not the run's
            out.append(Adapter(path.parent.name, None, f"import failed: {type(exc).__name__}: {exc}"))
    return out
