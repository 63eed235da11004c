"""The Faker pool cache (generators/pools.py) changes no value: a pool read back from its
cache file is the pool Faker builds; a damaged, truncated or foreign file (another key) is
ignored and rewritten; a cache that cannot be written and a disabled cache still give the
built pool."""

from __future__ import annotations

import json

import pytest

import generators.pools as pools

NAME = "ipv4"


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("BINLOGWRITER_CACHE_DIR", str(tmp_path / "cache"))
    pools.pool.cache_clear()
    yield tmp_path / "cache"
    pools.pool.cache_clear()


def _file(where):
    (path,) = where.glob(f"pool-{NAME}-*.json")
    return path


def test_cached_pool_is_the_built_pool(fresh, monkeypatch):
    built = pools.build_pool(NAME)
    assert pools.pool(NAME) == built
    assert json.loads(_file(fresh).read_text())["values"] == list(built)
    pools.pool.cache_clear()

    def no_build(name):
        raise AssertionError("built again although cached")
    monkeypatch.setattr(pools, "build_pool", no_build)
    assert pools.pool(NAME) == built  # read from the file


@pytest.mark.parametrize("damage", ["value", "truncate", "key", "size"])
def test_damaged_file_is_rebuilt(fresh, damage):
    built = pools.pool(NAME)
    path = _file(fresh)
    doc = json.loads(path.read_text())
    if damage == "value":
        doc["values"][7] = "10.0.0.1x"
        path.write_text(json.dumps(doc))
    elif damage == "truncate":
        path.write_text(path.read_text()[:100])
    elif damage == "key":
        doc["key"]["faker"] = "0.0.1"
        path.write_text(json.dumps(doc))
    else:
        doc["values"] = doc["values"][:-1]
        path.write_text(json.dumps(doc))
    pools.pool.cache_clear()
    assert pools.pool(NAME) == built
    assert json.loads(_file(fresh).read_text())["values"] == list(built)  # rewritten


def test_unwritable_and_disabled_cache(monkeypatch, tmp_path):
    built = pools.build_pool(NAME)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for where in (str(blocker / "cache"), ""):
        monkeypatch.setenv("BINLOGWRITER_CACHE_DIR", where)
        pools.pool.cache_clear()
        assert pools.pool(NAME) == built
    pools.pool.cache_clear()
