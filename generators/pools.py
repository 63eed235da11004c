"""Pools of realistic strings, built once per process from Faker (the way dbldatagen does it).

Faker is never called per row and never seeded globally: each pool is made by its own
``Faker`` instance seeded with a fixed number derived from the pool's name, so a pool's
content depends only on the pool name and the installed Faker version (recorded in the
manifest). Values are then *sampled* from pools by a hash of (seed, table, column, key,
version) — see values.py.

Building the pools costs about 50 ms of CPU each (Faker is slow), which every process
paid again (ecommerce: ten pools, half a CPU-second). So a built pool is also kept in a
cache file (:func:`cache_dir`), keyed by everything its content depends on — pool name,
seed, size, Faker version and Python version — and checked by a digest of its values when
read: a file that does not match is ignored and the pool built again. The cache changes
no byte of any output; it only saves the building.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from functools import cache
from pathlib import Path

from generators.hashing import salt

__all__ = ["pool", "POOL_NAMES", "POOL_SIZE", "faker_version", "cache_dir"]

POOL_SIZE = 1024

_PROVIDERS = {
    "first_name": lambda f: f.first_name(),
    "last_name": lambda f: f.last_name(),
    "name": lambda f: f.name(),
    "user_name": lambda f: f.user_name(),
    "email_domain": lambda f: f.free_email_domain(),
    "domain": lambda f: f.domain_name(),
    "city": lambda f: f.city(),
    "country": lambda f: f.country(),
    "country_code": lambda f: f.country_code(),
    "state": lambda f: f.state(),
    "postcode": lambda f: f.postcode(),
    "street_address": lambda f: f.street_address(),
    "address": lambda f: f.address().replace("\n", ", "),
    "phone": lambda f: f.phone_number(),
    "company": lambda f: f.company(),
    "job": lambda f: f.job(),
    "url": lambda f: f.url(),
    "ipv4": lambda f: f.ipv4(),
    "word": lambda f: f.word(),
    "color": lambda f: f.color_name(),
    "sentence": lambda f: f.sentence(nb_words=10),
    "paragraph": lambda f: f.paragraph(nb_sentences=5),
    "catch_phrase": lambda f: f.catch_phrase(),
    "currency_code": lambda f: f.currency_code(),
    "user_agent": lambda f: f.user_agent(),
}
POOL_NAMES = tuple(sorted(_PROVIDERS))


@cache
def faker_version() -> str:
    try:
        from importlib.metadata import version

        return version("Faker")
    except Exception:  # noqa: BLE001 - only informational
        return "unknown"


def cache_dir() -> Path | None:
    """Where built pools are kept: ``$BINLOGWRITER_CACHE_DIR`` (empty: no cache), else
    ``$XDG_CACHE_HOME/binlogwriter`` or ``~/.cache/binlogwriter``."""
    env = os.environ.get("BINLOGWRITER_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "binlogwriter"


def _digest(values: list[str] | tuple[str, ...]) -> str:
    return hashlib.sha256(json.dumps(list(values), ensure_ascii=False).encode("utf-8")).hexdigest()


def _cache_key(name: str, seed: int) -> dict:
    return {"pool": name, "seed": seed, "size": POOL_SIZE, "faker": faker_version(),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}"}


def _cache_path(where: Path, key: dict) -> Path:
    tag = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return where / f"pool-{key['pool']}-{tag}.json"


def _cached(where: Path, key: dict) -> tuple[str, ...] | None:
    try:
        got = json.loads(_cache_path(where, key).read_text(encoding="utf-8"))
        values = got["values"]
        if (got["key"] == key and len(values) == POOL_SIZE and all(type(v) is str for v in values)
                and got["sha256"] == _digest(values)):
            return tuple(values)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _store(where: Path, key: dict, values: tuple[str, ...]) -> None:
    """Write the cache file atomically (a temporary file renamed); a cache that cannot be
    written is no error."""
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".pool-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"key": key, "sha256": _digest(values), "values": list(values)}, f, ensure_ascii=False)
            os.replace(tmp, _cache_path(where, key))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def build_pool(name: str) -> tuple[str, ...]:
    """The pool ``name`` built by Faker (no cache)."""
    if name not in _PROVIDERS:
        raise KeyError(name)
    from faker import Faker

    fk = Faker("en_US")
    fk.seed_instance(salt("pool", name) & 0x7FFFFFFF)
    make = _PROVIDERS[name]
    return tuple(make(fk) for _ in range(POOL_SIZE))


@cache
def pool(name: str) -> tuple[str, ...]:
    """The pool ``name`` (one of POOL_NAMES): POOL_SIZE strings, deterministic — read from
    the cache when a valid file is there, else built (:func:`build_pool`) and cached."""
    if name not in _PROVIDERS:
        raise KeyError(name)
    where = cache_dir()
    if where is None or faker_version() == "unknown":  # no key for the content: build it
        return build_pool(name)
    key = _cache_key(name, salt("pool", name) & 0x7FFFFFFF)
    got = _cached(where, key)
    if got is None:
        got = build_pool(name)
        _store(where, key, got)
    return got
