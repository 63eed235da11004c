-- binlogwriter generate: the state before the first event of the first binlog (docs/output.md).
-- workload ecommerce, flavor mysql84, seed 1
SET NAMES utf8mb4;
SET SESSION time_zone = '+00:00';
SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';
SET SESSION foreign_key_checks = 0;
CREATE DATABASE IF NOT EXISTS `test`;
USE `test`;
CREATE TABLE `customers` (
  `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `email` VARCHAR(255) NOT NULL,
  `first_name` VARCHAR(64) NOT NULL,
  `last_name` VARCHAR(64) NOT NULL,
  `phone` VARCHAR(32) NULL,
  `street_address` VARCHAR(255) NULL,
  `city` VARCHAR(100) NULL,
  `country_code` CHAR(2) NULL,
  `created_at` DATETIME(6) NOT NULL,
  `updated_at` TIMESTAMP(3) NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_email` (`email`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
USE `test`;
CREATE TABLE `products` (
  `id` INT UNSIGNED NOT NULL AUTO_INCREMENT,
  `sku` VARCHAR(32) NOT NULL,
  `name` VARCHAR(200) NOT NULL,
  `description` TEXT NULL,
  `price` DECIMAL(10,2) NOT NULL,
  `stock` INT NOT NULL,
  `attributes` JSON NULL,
  `created_at` DATETIME NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_sku` (`sku`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
USE `test`;
CREATE TABLE `orders` (
  `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `customer_id` BIGINT UNSIGNED NOT NULL,
  `status` ENUM('pending','paid','shipped','delivered','cancelled','refunded') NOT NULL DEFAULT 'pending',
  `total` DECIMAL(12,2) NOT NULL,
  `currency` CHAR(3) NOT NULL DEFAULT 'USD',
  `placed_at` DATETIME(3) NOT NULL,
  `updated_at` TIMESTAMP NULL,
  PRIMARY KEY (`id`),
  KEY `idx_customer` (`customer_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
USE `test`;
CREATE TABLE `order_items` (
  `id` BIGINT UNSIGNED NOT NULL,
  `order_id` BIGINT UNSIGNED NOT NULL,
  `product_id` INT UNSIGNED NOT NULL,
  `quantity` SMALLINT UNSIGNED NOT NULL,
  `unit_price` DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `idx_order` (`order_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO `test`.`customers` (`id`, `email`, `first_name`, `last_name`, `phone`, `street_address`, `city`, `country_code`, `created_at`, `updated_at`) VALUES
(1, 'terri.eaton0@yahoo.com', 'Denise', 'Decker', '612.215.3598x26233', '158 Williams Via', 'East Christopher', 'AE', '2023-12-08 21:48:28.261386', '2023-09-11 09:05:17.355'),
(2, 'pamela.dawson1@hotmail.com', 'Sandra', 'Lynn', '494.288.1081', 'ño ç', 'Port Shelby', 'BS', '2025-06-21 23:56:22.235672', '2025-10-01 21:02:28.429'),
(3, 'jeffrey.bauer2@gmail.com', 'Michaela', 'Wilson', '(722)722-7191x7034', '41876 Ann Locks', 'Boydstad', 'BE', '2025-01-11 11:40:02.549657', '2025-02-18 09:46:40.315'),
(4, 'william.smith3@yahoo.com', 'Dennis', 'Scott', '667.226.5310', '51465 Merritt Parkway Suite 978', 'New Adam', 'BN', '2024-12-29 12:54:47.410812', '2024-10-29 14:48:56.231'),
(5, 'courtney.hall4@gmail.com', 'John', 'Jones', '+1-423-972-3812x245', '00781 Wood Dam Suite 706', 'Burnettfort', 'TM', '2024-05-05 10:23:26.485549', '2024-10-29 02:08:15.667'),
(6, 'charles.brown5@yahoo.com', 'Reginald', 'Vasquez', '+1-869-823-6385x93925', '09492 Henry Via', 'ño naïve ǟ Test', 'RW', '2023-01-24 04:43:40.810491', '2024-05-16 10:30:57.720'),
(7, 'corey.potter6@hotmail.com', 'Lori', 'Gibson', '996-897-7058', '2699 Curry Ways Apt. 594', 'Willisstad', 'ES', '2024-02-25 00:06:23.068988', NULL),
(8, 'ronald.lopez7@hotmail.com', 'Tammy', 'Hernandez', 'ño ǟ 42', '3829 Travis Freeway Apt. 550', 'Fisherchester', 'MU', '2024-06-20 17:02:24.997857', '2024-05-13 03:59:23.026'),
(9, 'marissa.brown8@yahoo.com', 'Amber', 'Lewis', '963.569.8348x899', '9977 Casey Isle', 'East Lisa', 'BS', '2024-03-10 14:51:23.912051', '2025-10-27 10:13:59.081'),
(10, 'jennifer.anderson9@yahoo.com', 'Jessica', 'Shaw', '940.410.3309x61681', '574 Nathan Locks Suite 442', 'East Christopher', 'IS', '2023-01-02 23:53:37.203862', '2023-09-15 16:28:52.186');
INSERT INTO `test`.`products` (`id`, `sku`, `name`, `description`, `price`, `stock`, `attributes`, `created_at`) VALUES
(1, '0-ok-police', 'Linen Poor Standard', 'Foot will suggest. Mean recently send. Which sing into green west. Board far it since improve phone. Night measure four machine husband arrive. Agency treatment author land recent rich beyond. Garden reality fact size remember cut. Example religious chance happy. So argue recently can court no PM. Land also truth support woman h', 3.75, 470, '{"id": 1, "tags": [], "score": 678, "active": true}', '2023-12-09 01:07:32'),
(2, '1-wish-see', 'Ђорђе Καλημέρα x', 'Physical allow then wish usually assume deal. Hold total impact run serve. Foreign strong run box guy daughter world. Fund score often still simply term mention. Single here deep rise. Career happen more. Age enough education decision conference. They story see political. Compare decision set have full billion interview. Perhaps free stage decision. Job staff note skin grow. Throughout intere', 29.55, 36, '{"id": 2, "tags": [], "score": 568, "active": true}', '2023-02-23 11:47:20'),
(3, '2-side-upon', 'Palevioletred Single Use', 'Need usually cultural be often west. Economy director through million cultural happen town politics. Economy which value yard fact listen compare without. Design interest sense hold concern question. Yard choice employee bar as. Society certainly news citizen level accept. Yet color town phone evidence speech focus. Discussion play music our make bed per. Affect dinner financial husband. Pull wife walk executive en', 10.59, 90, NULL, '2025-02-20 06:23:48'),
(4, '3-generation-once', 'Maroon Pass Hundred', 'Leave else within lead. Race wall happy hear large. Buy step and cell. Food research report exactly year occur which. Agency research major contain. Reduce forward almost tax ball school tell think. Beautiful central I money major science. Capital no class serious industry.', 25.95, 473, '{"id": 4, "tags": ["source", "small", "size"], "attrs": {"size": "L", "color": "SkyBlue", "weight_g": 1094}, "score": 729, "active": true}', '2024-03-05 16:44:11'),
(5, '4-run-east', 'Gainsboro Opportunity Image', '테스트 〆切 x', 62.72, 393, '{"id": 5, "name": "Zoë \\"Q\\" Ünïcode ✓", "tags": ["game", "add"], "attrs": {"size": "XL", "color": "SkyBlue", "weight_g": 4611}, "score": 551, "active": true}', '2025-03-09 07:30:06'),
(6, '5-sort-officer', 'กิ่ กิ่ abc', 'Cause painting my mother many him seek. At break positive first sister us after ok. The', 6.49, 126, '{"id": 6, "tags": ["option"], "score": 683, "active": false}', '2023-11-25 13:53:42'),
(7, '6-what-not', 'Yellow More Small', 'Old senior give behavior head r', 24.26, 73, '{"id": 7, "note": null, "tags": [], "score": 370, "active": true}', '2023-10-28 21:10:38'),
(8, '7-ahead-site', 'Mediumspringgreen Poor Appear', 'Should win early decade run team camera. Drop try bill spring building season perform. Daughter while you concern. Town garden trial cup action believe. Same order region herself enjoy. Low letter discuss security. Attack short heart n', 89.32, 354, '{"id": 8, "note": null, "tags": ["their"], "attrs": {"size": "XL", "color": "DarkBlue", "weight_g": 3132}, "score": 511, "active": true}', '2023-12-17 22:06:22'),
(9, '8-ok-these', 'Rosybrown Heavy Us', 'Pass possible particularly reach investment economy. Bad concern agency magazine now. Away treat white listen customer lay clear sense. Let however budget section difficult world I. Great development much attack. Letter thousand religious whole rate. Explain difficult unit various quality skin wear. Sign see somebody. Air politics family green organization. Against fact really suggest environmental already agent focus. People performance one else. Life fund account very page. Car note Democrat system. Force early fact bag area age. Analysis job candidate only. Scene purpose window mean ', 112.53, 202, NULL, '2025-02-17 18:15:58'),
(10, '9-move-two', 'Olivedrab Physical Style', 'Activity reason cultural occur where. Water world something point growth. Detail organization cell office door skill pretty. Yard line politics Mrs poor. Se', 1.83, 141, '{"id": 10, "note": null, "tags": [], "attrs": {"size": "XL", "color": "Gray", "weight_g": 4936}, "score": 127, "active": false}', '2024-03-06 00:02:51');
INSERT INTO `test`.`orders` (`id`, `customer_id`, `status`, `total`, `currency`, `placed_at`, `updated_at`) VALUES
(1, 3, 'delivered', 1092.43, 'EUR', '2023-08-21 00:11:18.677', '2023-10-21 06:25:23'),
(2, 1, 'paid', 225.88, 'USD', '2025-11-21 11:08:07.077', '2024-11-05 03:35:00'),
(3, 10, 'pending', 72.19, 'USD', '2025-12-10 05:03:01.208', '2023-04-28 07:34:10'),
(4, 8, 'delivered', 1665.91, 'USD', '2023-06-10 02:41:00.601', '2023-02-02 03:34:43'),
(5, 3, 'pending', 1859.26, 'EUR', '2023-11-15 18:56:41.704', '2023-08-08 23:34:36'),
(6, 4, 'delivered', 1701.41, 'USD', '2023-01-17 10:28:28.197', '2025-05-01 20:31:26'),
(7, 9, 'paid', 1100.86, 'EUR', '2023-10-18 19:18:41.408', '2023-02-26 07:32:08'),
(8, 5, 'shipped', 1944.40, 'EUR', '2023-10-24 20:26:16.695', '2024-04-21 16:10:16'),
(9, 10, 'shipped', 977.25, 'USD', '2023-01-27 21:45:03.048', '2023-05-04 20:12:40'),
(10, 3, 'paid', 117.88, 'EUR', '2024-05-25 19:04:40.500', '2024-07-22 18:34:31');
INSERT INTO `test`.`order_items` (`id`, `order_id`, `product_id`, `quantity`, `unit_price`) VALUES
(1, 1, 6, 4, 6.49),
(2, 1, 4, 3, 25.95),
(17, 2, 3, 3, 10.59),
(18, 2, 10, 2, 1.83),
(33, 3, 4, 1, 25.95),
(34, 3, 10, 4, 1.83),
(49, 4, 9, 1, 112.53),
(65, 5, 8, 3, 89.32),
(66, 5, 1, 1, 3.75),
(67, 5, 1, 4, 3.75),
(68, 5, 4, 1, 25.95),
(81, 6, 5, 1, 62.72),
(82, 6, 6, 2, 6.49),
(83, 6, 3, 4, 10.59),
(84, 6, 2, 4, 29.55),
(97, 7, 2, 1, 29.55),
(98, 7, 6, 4, 6.49),
(99, 7, 10, 2, 1.83),
(113, 8, 10, 1, 1.83),
(114, 8, 6, 1, 6.49),
(129, 9, 2, 3, 29.55),
(130, 9, 7, 4, 24.26),
(145, 10, 5, 1, 62.72),
(146, 10, 8, 4, 89.32);
SET SESSION foreign_key_checks = 1;
