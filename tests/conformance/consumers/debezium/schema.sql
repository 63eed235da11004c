-- A custom --schema for the Debezium conformance test (test_debezium.py): the types whose wire
-- form Debezium converts (JSON, DECIMAL, DATETIME(6), TIMESTAMP(3), TIME(6), ENUM/SET, BIT,
-- utf8mb4 text, BLOB), a composite primary key and a keyless table.
CREATE TABLE accounts (
  region CHAR(2) NOT NULL,
  id INT UNSIGNED NOT NULL,
  name VARCHAR(80) CHARACTER SET utf8mb4 NOT NULL,
  bio TEXT CHARACTER SET utf8mb4,
  balance DECIMAL(20,6) NOT NULL,
  rate DECIMAL(5,4),
  seen_at DATETIME(6),
  changed TIMESTAMP(3) NULL,
  slot TIME(6),
  tier ENUM('free','pro','team','enterprise') NOT NULL,
  flags SET('a','b','c','d','e'),
  mask BIT(12),
  on_off BIT(1),
  doc JSON,
  avatar BLOB,
  big BIGINT UNSIGNED,
  PRIMARY KEY (region, id)
) DEFAULT CHARSET=utf8mb4;

CREATE TABLE events_log (
  at DATETIME(6),
  kind VARCHAR(20),
  payload JSON,
  amount DECIMAL(12,2),
  note VARCHAR(200) CHARACTER SET utf8mb4
) DEFAULT CHARSET=utf8mb4;
