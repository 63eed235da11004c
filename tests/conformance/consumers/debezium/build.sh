#!/usr/bin/env bash
# Builds the Debezium harness for adapter.py's ensure_built(): `mvn package` compiles
# DebeziumDump into target/classes and copies the pinned dependencies into target/lib
# (downloaded into ~/.m2 on first use). On a failure Maven's output goes to stderr with its
# first [ERROR] line repeated last, which is the line the toolchain's one-line message shows.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out=$(mvn -B -q -Dstyle.color=never package 2>&1)
status=$?
if [ "$status" -ne 0 ]; then
    printf '%s\n' "$out" >&2
    printf '%s\n' "$out" | grep -m1 '\[ERROR\]' | sed 's/\x1b\[[0-9;]*m//g' >&2
fi
exit "$status"
