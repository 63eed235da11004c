"""The settings' vocabularies and their text forms (part of generators/spec.py): the allowed
values of each choice, and sizes (``500MB``), operation mixes, key distributions, ranges and
start times parsed from text, each error a SpecError naming the setting."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

from binlogwriter.errors import did_you_mean
from generators.errors import SpecError

__all__ = ["parse_size", "parse_mix", "parse_key_dist", "parse_range", "parse_start_time", "parse_fraction"]

WORKLOADS = ("sysbench", "ecommerce", "alltypes")
ROW_METADATA = ("NO_LOG", "MINIMAL", "FULL")
ROW_IMAGE = ("FULL", "MINIMAL", "NOBLOB")
CHECKSUMS = ("CRC32", "NONE")
OP_KINDS = ("insert", "update", "delete")
DEFAULT_UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
DEFAULT_START_TIME = 1767225600  # 2026-01-01T00:00:00Z
DEFAULT_TRANSACTIONS = 2000
TEMPLATES = ("mix", "oltp_write_only", "ecommerce")
GEN_KINDS = ("default", "int", "float", "decimal", "choice", "faker", "text", "const",
             "datetime", "sequence", "json", "digits")
_NUM_PARAMS = ("min", "max", "dist")
GEN_PARAMS: dict[str, tuple[str, ...]] = {
    "default": (), "int": _NUM_PARAMS, "float": _NUM_PARAMS, "decimal": _NUM_PARAMS,
    "choice": ("values", "weights"), "faker": ("provider",), "text": ("min_len", "max_len"),
    "const": ("value",), "datetime": ("start", "end"), "sequence": ("start", "step"),
    "json": (), "digits": ("groups",),
}
"""The settings each ``gen`` reads besides ``null`` (docs/generate.md)."""
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
IDENT_RE = re.compile(r"^[A-Za-z0-9_$]{1,64}$")


def parse_size(text: str | int, what: str = "size") -> int:
    """``500MB``, ``1G``, ``64k``, ``4096`` -> bytes (K/M/G/T are powers of 1024, as MySQL's)."""
    if isinstance(text, bool):
        raise SpecError(f"{what}: expected a size like 500MB, got {text!r}")
    if isinstance(text, int):
        n = text
    else:
        m = _SIZE_RE.match(str(text))
        if not m:
            raise SpecError(f"{what}: expected a size like 500MB or 1G, got {text!r}")
        mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
        n = int(float(m.group(1)) * mult)
    if n <= 0:
        raise SpecError(f"{what}: must be positive, got {text!r}")
    return n


def parse_mix(text: str | Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """``insert=0.5,update=0.3,delete=0.2`` -> normalised ((kind, weight), ...) in kind order."""
    if isinstance(text, Mapping):
        items = [(str(k), v) for k, v in text.items()]
    elif isinstance(text, list | tuple):
        items = [tuple(x) for x in text]
    else:
        items = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise SpecError(f"--mix: expected kind=weight, got {part.strip()!r}")
            k, v = part.split("=", 1)
            items.append((k.strip(), v.strip()))
    out: dict[str, float] = {}
    for k, v in items:
        k = k.lower()
        if k not in OP_KINDS:
            raise SpecError(f"--mix: unknown operation {k!r}{did_you_mean(str(k), ('insert', 'update', 'delete'))} "
                          "(insert, update, delete)")
        try:
            w = float(v)
        except (TypeError, ValueError):
            raise SpecError(f"--mix: weight of {k} is not a number: {v!r}") from None
        if not (w >= 0) or w == float("inf"):
            raise SpecError(f"--mix: weight of {k} must be >= 0, got {v!r}")
        out[k] = w
    total = sum(out.values())
    if total <= 0:
        raise SpecError("--mix: weights must add up to more than 0")
    return tuple((k, round(out.get(k, 0.0) / total, 12)) for k in OP_KINDS)


def parse_key_dist(text: str) -> str:
    """Validate ``uniform | zipf:S | hotspot:FRACTION:PROBABILITY | latest``; returns it normalised."""
    t = str(text).strip().lower()
    parts = t.split(":")
    name = parts[0]
    try:
        if name in ("uniform", "latest") and len(parts) == 1:
            return name
        if name == "zipf" and len(parts) == 2:
            s = float(parts[1])
            if not 0 < s <= 10:
                raise SpecError(f"--key-dist zipf exponent must be in (0, 10], got {parts[1]}")
            return f"zipf:{parts[1]}"
        if name == "hotspot" and len(parts) == 3:
            f, p = float(parts[1]), float(parts[2])
            if not (0 < f < 1 and 0 <= p <= 1):
                raise SpecError("--key-dist hotspot:FRACTION:PROBABILITY needs 0<FRACTION<1, 0<=PROBABILITY<=1")
            return f"hotspot:{parts[1]}:{parts[2]}"
    except ValueError:
        pass
    raise SpecError(f"--key-dist: expected uniform, zipf:S, hotspot:F:P or latest, got {text!r}")


def parse_fraction(v: Any, what: str) -> float:
    """A share ``0 <= x <= 1`` (``0.2``, ``"0.2"``, ``1``) as a float; SpecError naming ``what``."""
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise SpecError(f"{what}: expected a fraction 0..1, got {v!r}")
    try:
        x = float(v)
    except ValueError:
        raise SpecError(f"{what}: expected a fraction 0..1, got {v!r}") from None
    if not 0.0 <= x <= 1.0:  # NaN fails too
        raise SpecError(f"{what}: expected a fraction 0..1, got {v!r}")
    return x


def parse_range(text: str | int | list | tuple, what: str = "--rows-per-txn") -> tuple[int, int]:
    """``N`` or ``A-B`` -> (A, B), 1 <= A <= B."""
    if isinstance(text, list | tuple):
        if len(text) != 2:
            raise SpecError(f"{what}: expected N or A-B, got {text!r}")
        a, b = text
    elif isinstance(text, int) and not isinstance(text, bool):
        a = b = text
    else:
        m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$", str(text))
        if not m:
            raise SpecError(f"{what}: expected N or A-B, got {text!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
    if not (isinstance(a, int) and isinstance(b, int)) or not 1 <= a <= b or b > 100_000:
        raise SpecError(f"{what}: expected 1 <= A <= B <= 100000, got {text!r}")
    return (a, b)


def parse_start_time(text: str | int) -> int:
    """ISO 8601 (``2026-01-01T00:00:00Z``; no zone = UTC) or epoch seconds -> epoch seconds."""
    if isinstance(text, int) and not isinstance(text, bool):
        n = text
    else:
        s = str(text).strip()
        if re.fullmatch(r"\d+", s):
            n = int(s)
        else:
            try:
                d = _dt.datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise SpecError(f"--start-time: not an ISO 8601 time: {text!r}") from None
            if d.tzinfo is None:
                d = d.replace(tzinfo=_dt.UTC)
            n = int(d.timestamp())
    if not 0 < n < 2**31 - 1:
        raise SpecError(f"--start-time: must be between 1970 and 2038, got {text!r}")
    return n
