"""Tests of binlogwriter/read/ and binlogwriter/reader.py (reading)."""
