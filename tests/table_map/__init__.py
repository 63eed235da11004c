"""Tests of binlogwriter/table_map/ (TABLE_MAP metadata)."""
