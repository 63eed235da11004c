"""Tests of binlogwriter/schema/ (the table model and CREATE TABLE parsing)."""
