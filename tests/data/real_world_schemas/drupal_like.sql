-- Written for tests/conformance/test_real_world_schemas.py in the style of a CMS's schema
-- (blob caches, serialized data, ascii_bin machine names, tinyint flags, partitions).
CREATE TABLE cache_default (
  cid varchar(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '' COMMENT 'Primary Key: Unique cache ID.',
  data longblob DEFAULT NULL COMMENT 'A collection of data to cache.',
  expire int NOT NULL DEFAULT 0,
  created decimal(14,3) NOT NULL DEFAULT 0.000,
  serialized smallint NOT NULL DEFAULT 0,
  tags longtext DEFAULT NULL,
  checksum varchar(255) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
  PRIMARY KEY (cid),
  KEY expire (expire),
  KEY created (created)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='Storage for the cache API.';
CREATE TABLE node_field_data (
  nid int unsigned NOT NULL,
  vid int unsigned NOT NULL,
  type varchar(32) CHARACTER SET ascii NOT NULL COMMENT 'The ID of the target entity.',
  langcode varchar(12) CHARACTER SET ascii NOT NULL,
  status tinyint NOT NULL,
  uid int unsigned NOT NULL COMMENT 'The ID of the target entity.',
  title varchar(255) NOT NULL,
  created int NOT NULL,
  changed int DEFAULT NULL,
  promote tinyint DEFAULT NULL,
  sticky tinyint DEFAULT NULL,
  PRIMARY KEY (nid, langcode),
  KEY node__id__default_langcode__langcode (nid, langcode),
  KEY node_field__type__target_id (type),
  KEY node__status_type (status, type, nid),
  KEY node__title_type (title(191), type(4))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='The data table for node entities.';
CREATE TABLE watchdog (
  wid bigint unsigned NOT NULL AUTO_INCREMENT,
  uid int unsigned NOT NULL DEFAULT 0,
  type varchar(64) CHARACTER SET ascii NOT NULL DEFAULT '',
  message longtext NOT NULL,
  variables longblob NOT NULL,
  severity tinyint unsigned NOT NULL DEFAULT 0,
  hostname varchar(128) NOT NULL DEFAULT '',
  timestamp bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (wid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 PARTITION BY HASH (wid) PARTITIONS 4;
