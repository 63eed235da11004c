"""ZongJi (npm ``@vlasky/zongji``, pinned by tests/conformance/node/package-lock.json) reads the
served run: the Node.js client logs in (caching_sha2_password for MySQL files,
mysql_native_password for MariaDB), dumps blocking from ``binlog.000001:4`` and decodes rows
with the Table_map's metadata; ``zongji_changes.mjs`` prints one JSON line per row change.

Values come back as ZongJi gives them, through JSON: numbers, strings, null, Buffers (tagged,
back to bytes), JS Dates (tagged ISO text in UTC — the process runs with TZ=UTC — back to
datetime, or date for a DATE column), JSON documents as parsed objects, SET as the member
text ``'a,b'`` (ZongJi's own form, left as is), ENUM as the member text. Column names are
ZongJi's own (from the Table_map metadata); a column outside a partial image is absent.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.consumers._names import columns as table_columns

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint

NAME = "zongji"
FLAVORS = ("mysql80", "mysql84", "mariadb1011")
HERE = Path(__file__).resolve().parent
_NODE: dict[str, str] = {}


def ensure_built() -> None:
    from tests.conformance.toolchain import ZONGJI, ToolchainError, ensure

    try:
        _NODE["node"] = ensure(ZONGJI)["node"]
    except ToolchainError as exc:
        raise AssertionError(str(exc)) from None


def version() -> str:
    pkg = HERE.parents[1] / "node" / "node_modules" / "@vlasky" / "zongji" / "package.json"
    return json.loads(pkg.read_text())["version"] if pkg.is_file() else "?"


def _untag(v: Any, col: Any) -> Any:
    if isinstance(v, dict):
        if set(v) == {"$bytes"}:
            return base64.b64decode(v["$bytes"])
        if set(v) == {"$int"}:
            return int(v["$int"])
        if set(v) == {"$date"}:
            try:
                d = dt.datetime.fromisoformat(v["$date"].replace("Z", "+00:00"))
            except ValueError:
                return v["$date"]
            if col is not None and col.type == "DATE":
                return d.date()
            if col is not None and col.type == "DATETIME":
                return d.replace(tzinfo=None)
            return d
        return {k: _untag(x, None) for k, x in v.items()}
    if isinstance(v, list):
        return [_untag(x, None) for x in v]
    return v


def _image(img: dict | None, cols: list | None) -> dict | None:
    if img is None:
        return None
    by_name = {c.name: c for c in cols or ()}
    return {k: _untag(v, by_name.get(k)) for k, v in img.items()}


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    node = _NODE.get("node") or "node"
    env = dict(os.environ, TZ="UTC")
    proc = subprocess.run([node, str(HERE / "zongji_changes.mjs"), str(server.port), server.user, server.password,
                           str(server.server_id), str(expected_changes), str(int(timeout * 1000))],
                          capture_output=True, text=True, timeout=timeout + 30, env=env)
    out = []
    for line in proc.stdout.split("\n"):  # not splitlines(): U+2028 & co. stay inside JSON strings
        if not line.strip():
            continue
        rec = json.loads(line)
        row = rec["after"] if rec["after"] is not None else rec["before"]
        cols = table_columns(Path(server.run_dir), rec["database"], rec["table"], len(row or {}))
        rec["before"], rec["after"] = _image(rec["before"], cols), _image(rec["after"], cols)
        out.append(rec)
    if proc.returncode not in (0, 3) and not out:
        lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
        why = next((ln for ln in lines if "rror" in ln), lines[0] if lines else "no output")
        raise RuntimeError(f"zongji exited {proc.returncode}: {why[:300]}")
    return out
