-- Written for tests/conformance/test_real_world_schemas.py in the style of a wiki's schema
-- (binary strings for titles and timestamps, varbinary keys, mediumblob text, MariaDB extras).
CREATE TABLE /*_*/page (
  page_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  page_namespace INT NOT NULL,
  page_title VARBINARY(255) NOT NULL,
  page_is_redirect TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_is_new TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_random DOUBLE PRECISION UNSIGNED NOT NULL,
  page_touched BINARY(14) NOT NULL,
  page_links_updated BINARY(14) DEFAULT NULL,
  page_latest INT UNSIGNED NOT NULL,
  page_len INT UNSIGNED NOT NULL,
  page_content_model VARBINARY(32) DEFAULT NULL,
  page_lang VARBINARY(35) DEFAULT NULL,
  INDEX page_random (page_random),
  INDEX page_len (page_len),
  UNIQUE INDEX page_name_title (page_namespace, page_title),
  PRIMARY KEY(page_id)
) /*$wgDBTableOptions*/;
CREATE TABLE text (
  old_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  old_text MEDIUMBLOB NOT NULL,
  old_flags TINYBLOB NOT NULL,
  PRIMARY KEY(old_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary MAX_ROWS=10000000 AVG_ROW_LENGTH=10240;
CREATE TABLE searchindex (
  si_page INT UNSIGNED NOT NULL,
  si_title VARCHAR(255) DEFAULT '' NOT NULL,
  si_text MEDIUMTEXT NOT NULL,
  UNIQUE INDEX si_page (si_page),
  FULLTEXT INDEX si_title (si_title),
  FULLTEXT INDEX si_text (si_text)
) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4;
