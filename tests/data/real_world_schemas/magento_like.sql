-- Written for tests/conformance/test_real_world_schemas.py in the style of a shop's schema
-- (comments on every column and table, foreign keys, table options, DECIMAL prices).
CREATE TABLE store_website (
  website_id smallint unsigned NOT NULL AUTO_INCREMENT COMMENT 'Website ID',
  code varchar(32) DEFAULT NULL COMMENT 'Code',
  name varchar(64) DEFAULT NULL COMMENT 'Website Name',
  sort_order smallint unsigned NOT NULL DEFAULT '0' COMMENT 'Sort Order',
  is_default smallint unsigned DEFAULT '0' COMMENT 'Defines Is Website Default',
  PRIMARY KEY (website_id),
  UNIQUE KEY STORE_WEBSITE_CODE (code),
  KEY STORE_WEBSITE_SORT_ORDER (sort_order)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COMMENT='Websites';
CREATE TABLE catalog_product_entity (
  entity_id int unsigned NOT NULL AUTO_INCREMENT COMMENT 'Entity ID',
  attribute_set_id smallint unsigned NOT NULL DEFAULT '0' COMMENT 'Attribute Set ID',
  type_id varchar(32) NOT NULL DEFAULT 'simple' COMMENT 'Type ID',
  sku varchar(64) NOT NULL COMMENT 'SKU',
  has_options smallint NOT NULL DEFAULT '0' COMMENT 'Has Options',
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP COMMENT 'Creation Time',
  updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP COMMENT 'Update Time',
  PRIMARY KEY (entity_id) USING BTREE,
  KEY CATALOG_PRODUCT_ENTITY_SKU (sku) USING BTREE COMMENT 'sku lookup'
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC STATS_PERSISTENT=1 DEFAULT CHARSET=utf8mb3 COMMENT='Catalog Product Table';
CREATE TABLE catalog_product_index_price (
  entity_id int unsigned NOT NULL COMMENT 'Entity ID',
  website_id smallint unsigned NOT NULL COMMENT 'Website ID',
  tax_class_id smallint unsigned DEFAULT '0' COMMENT 'Tax Class ID',
  price decimal(20,6) DEFAULT NULL COMMENT 'Price',
  final_price decimal(20,6) DEFAULT NULL COMMENT 'Final Price',
  min_price decimal(20,6) DEFAULT NULL CHECK (min_price >= 0),
  max_price decimal(20,6) DEFAULT NULL,
  PRIMARY KEY (entity_id, website_id),
  KEY CAT_PRD_IDX_PRICE_WS_ID_MIN_PRICE (website_id, min_price),
  CONSTRAINT CAT_PRD_IDX_PRICE_WS_ID FOREIGN KEY (website_id) REFERENCES store_website (website_id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci COMMENT='Catalog Product Price Index Table';
