"""Tests of binlogwriter/write/ (transactions and the writer)."""
