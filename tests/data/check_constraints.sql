-- CHECK constraints the generator follows; written for tests/conformance/test_check_constraints_replay.py
CREATE TABLE products (
  id INT UNSIGNED NOT NULL PRIMARY KEY CHECK (id > 0),
  sku VARCHAR(20) NOT NULL CHECK (CHAR_LENGTH(sku) BETWEEN 3 AND 20),
  price DECIMAL(10,2) NOT NULL CHECK (price >= 0),
  discount DECIMAL(5,2) CHECK (discount BETWEEN 0 AND 100),
  qty SMALLINT NOT NULL DEFAULT 0,
  rating TINYINT CHECK (rating IN (1,2,3,4,5)),
  status VARCHAR(10) NOT NULL CHECK (status IN ('new','active','retired')),
  weight DOUBLE CHECK (weight > 0 AND weight < 1000.5),
  ratio FLOAT CHECK (ratio >= 0.1),
  kind ENUM('a','b','c') CHECK (kind <> 'c'),
  code CHAR(4) CHECK (code <> ''),
  note TEXT CHECK (LENGTH(note) <= 100 OR note IS NULL),
  born DATE CHECK (born >= '2000-01-01' AND born < '2010-01-01'),
  seen DATETIME CHECK (seen > '2030-06-01 00:00:00'),
  email VARCHAR(100) CHECK (email IS NOT NULL),
  year_made YEAR CHECK (year_made BETWEEN 1990 AND 2020),
  neg INT CHECK (NOT (neg > 0)),
  pos BIGINT CHECK (pos >= 0),
  CONSTRAINT qty_range CHECK (qty >= 0 AND qty <= 500),
  CONSTRAINT either CHECK (rating > 3 OR discount < 10),
  CHECK (qty <> 13)
) ENGINE=InnoDB;
