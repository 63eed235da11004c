"""binlogwriter: write, read and generate MySQL 8.0/8.4 and MariaDB 10.11 binary logs."""

__version__ = "0.1.0"
