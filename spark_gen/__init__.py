"""Distributed generation of binlogs on Spark."""
