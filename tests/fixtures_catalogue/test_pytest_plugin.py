"""The pytest plugin (binlogwriter.pytest_plugin), run through pytester on small test files
the way a user's suite uses it. When binlogwriter is installed with its entry point the plugin
is already loaded; otherwise (a checkout on PYTHONPATH) it is loaded with ``-p``."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]


def _args() -> list[str]:
    installed = any(ep.value == "binlogwriter.pytest_plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "binlogwriter.pytest_plugin"]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*_args(), "-p", "no:cacheprovider", *args)


def test_binlog_writer_closes_and_verifies(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_w="""
        from binlogwriter.schema import Table
        from binlogwriter.testing import read_changes

        FILES = []

        def test_write(binlog_writer):
            w = binlog_writer("mariadb1011", row_image="MINIMAL", row_metadata="FULL")
            t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))", database="d",
                               flavor="mariadb1011")
            w.ddl("CREATE DATABASE d")
            w.ddl("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))", "d")
            with w.transaction() as tx:
                tx.insert(t, [(1, "a")])
            FILES.append(w)  # left open: the fixture closes it

        def test_closed_by_teardown():
            (w,) = FILES
            assert w.closed and w.files
            assert [c.op for c in read_changes(w.files)] == ["insert"]

        def test_broken_file_fails_at_teardown(binlog_writer):
            w = binlog_writer("mysql80")
            w.ddl("CREATE DATABASE x")
            w.close()
            data = bytearray(w.files[0].read_bytes())
            data[-10] ^= 0xFF
            w.files[0].write_bytes(bytes(data))
    """)
    res = run(pytester, "-v")
    res.assert_outcomes(passed=3, errors=1)
    res.stdout.fnmatch_lines(["*test_broken_file_fails_at_teardown*ERROR*",
                              "*files written by this test do not verify*"])


def test_binlog_case_parametrized_over_the_catalogue(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_c="""
        import pytest
        from binlogwriter.pytest_plugin import catalogue_params
        from binlogwriter.testing import read_changes

        PARAMS = [p for p in catalogue_params() if p.split(":")[0] in
                  ("enum_index_zero", "negative_time", "compressed_transaction")]

        @pytest.mark.parametrize("binlog_case", PARAMS, indirect=True)
        def test_reader(binlog_case, assert_binlog_changes):
            schemas = binlog_case.tables if binlog_case.settings.row_metadata != "FULL" else ()
            assert_binlog_changes(read_changes(binlog_case.files, schemas), binlog_case.changes)
            assert binlog_case.entry.reproduces

        @pytest.mark.parametrize("binlog_case", ["zero_dates"], indirect=True)
        def test_default_flavor(binlog_case):
            assert binlog_case.flavor == "mysql80" and binlog_case.rows["fx.zd"]

        def test_needs_a_parameter(binlog_case):
            pass
    """)
    res = run(pytester)
    res.assert_outcomes(passed=9, errors=1)  # 3 + 3 + 2 flavors, + default
    res.stdout.fnmatch_lines(["*binlog_case needs a parameter*"])


def test_seed_from_ini_option_and_fixture_override(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nbinlogwriter_seed = 7\n")
    pytester.makepyfile(test_s="""
        import pytest

        def test_ini(binlogwriter_seed):
            assert binlogwriter_seed == 7

        def test_sample_is_deterministic(binlog_sample):
            a, b = binlog_sample(), binlog_sample()
            assert a.flavor == b.flavor and a.changes == b.changes
            assert [f.read_bytes() for f in a.files] == [f.read_bytes() for f in b.files]

        @pytest.mark.parametrize("binlogwriter_seed", [1, 2])
        def test_override(binlogwriter_seed, binlog_sample):
            assert binlog_sample("mysql84", "NOBLOB").settings.row_image == "NOBLOB"
    """)
    run(pytester).assert_outcomes(passed=4)
    res = run(pytester, "--binlogwriter-seed", "9", "-k", "test_ini")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*assert 9 == 7*"])


def test_assert_helper_prints_a_readable_diff(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="""
        from decimal import Decimal
        from binlogwriter.values import ABSENT

        def test_diff(assert_binlog_changes):
            truth = [("insert", "db.t", None, (1, Decimal("1.50"), "x")),
                     ("update", "db.t", (1, ABSENT, ABSENT), (ABSENT, Decimal("2.00"), ABSENT))]
            decoded = [{"op": "insert", "table": "db.t", "after": (1, Decimal("1.50"), b"x")},
                       {"op": "update", "table": "db.t", "before": (1, ABSENT, ABSENT),
                        "after": (ABSENT, None, ABSENT)}]
            assert_binlog_changes(decoded, truth, columns={"db.t": ["id", "amount", "code"]})
    """)
    res = run(pytester)
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*by kind: column value 2*",
                              "*change #0 db.t after column code: decoded b'x' [[]bytes[]], expected 'x' [[]str[]]*",
                              "*change #1 db.t after column amount: decoded None [[]NoneType[]], "
                              "expected Decimal('2.00')*"])
