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
(1, 'terri.eaton0@yahoo.com', 'John', 'Gonzalez', '770-924-9323', '1470 Hogan Manor', 'Lake Marcusburgh', 'AE', '2023-12-08 21:48:28.261386', '2023-09-11 09:05:17.355'),
(2, 'pamela.dawson1@hotmail.com', 'Christina', 'Foley', '001-762-357-4865', '3727 Troy Heights', 'Crossview', 'BS', '2025-06-21 23:56:22.235672', '2025-10-01 21:02:28.429'),
(3, 'jeffrey.bauer2@gmail.com', 'Erin', 'Mays', '(582)992-3913x7678', '62916 David Meadows Apt. 114', 'Port Brett', 'BE', '2025-01-11 11:40:02.549657', '2025-02-18 09:46:40.315'),
(4, 'william.smith3@yahoo.com', 'Cristian', 'Valenzuela', '281.611.1336x13128', '924 Vincent Terrace', 'Daisyland', 'BN', '2024-12-29 12:54:47.410812', '2024-10-29 14:48:56.231'),
(5, 'courtney.hall4@gmail.com', 'Suzanne', 'Henry', '(219)206-3214x370', '50733 Gray Fork', 'Greenland', 'TM', '2024-05-05 10:23:26.485549', '2024-10-29 02:08:15.667'),
(6, 'charles.brown5@yahoo.com', 'Luis', 'Bernard', '306-545-1908x6773', '2809 Mason Trace Suite 792', 'West Cameron', 'RW', '2023-01-24 04:43:40.810491', '2024-05-16 10:30:57.720'),
(7, 'corey.potter6@hotmail.com', 'Anna', 'Cruz', '9994268534', '0034 Mark Mission', 'Maddoxhaven', 'ES', '2024-02-25 00:06:23.068988', NULL),
(8, 'ronald.lopez7@hotmail.com', 'Jason', 'Allen', '+1-707-734-4726x493', '0472 Richard Brooks Apt. 588', 'Port Katieshire', 'MU', '2024-06-20 17:02:24.997857', '2024-05-13 03:59:23.026'),
(9, 'marissa.brown8@yahoo.com', 'Jennifer', 'Armstrong', '975.877.0267x81912', '148 Henderson Wall', 'Port Kevinbury', 'BS', '2024-03-10 14:51:23.912051', '2025-10-27 10:13:59.081'),
(10, 'jennifer.anderson9@yahoo.com', 'Christine', 'Mcknight', '287-230-6202', '13236 Ryan Knolls Suite 254', 'Port Jessica', 'IS', '2023-01-02 23:53:37.203862', '2023-09-15 16:28:52.186');
INSERT INTO `test`.`products` (`id`, `sku`, `name`, `description`, `price`, `stock`, `attributes`, `created_at`) VALUES
(1, '0-ok-police', 'Silver Place Poor', 'Brother become he. Owner cell physical course team but bag. Key heavy play evidence tax hospital news alone. Sign most focus first home quickly compare shake. Foot will suggest. Mean recently send. Which sing into green west. Board far it since improve phone. Night measure four machine husband arrive. Agency treatment author land recent rich be', 3.75, 470, '{"id": 1, "tags": [], "score": 678, "active": true}', '2023-12-09 01:07:32'),
(2, '1-wish-see', 'Pink Brother Case', 'Prepare section design kind. Real reality remember member become throw official name. Everybody can approach power. Brother just so usually these national. Personal leave military. Four north company between save employee brother speech. Physical allow then wish usually assume deal. Hold total impact run serve. Foreign strong run box guy daughter world. Fund score often still simply term mention. Single here deep rise. Career happen more. Age enough education decision conference. They story see political. Compare ', 29.55, 36, '{"id": 2, "tags": [], "score": 568, "active": true}', '2023-02-23 11:47:20'),
(3, '2-side-upon', 'Violet Realize Single', 'Movement serious box opportunity save. Chance radio understand ready agree. Wife close hard wonder able former different. Box speech statement style plant lay ready its. Need usually cultural be often west. Economy director through million cultural happen town politics. Economy which value yard fact listen compare without. Design interest sense hold concern question. Yard choice employee bar as. Society certainly news citizen level accept. Yet color town phone evidence speech focus. Discussion play music our make bed per. Affect dinner financial husband. Pull wife walk executive environment meet husband his. Right design agree management. Scene network word cold happy order. Than large many. Sing someone our project financial message third. Form why run end owner to. Its picture professional discover middle college. Spend body traditional human skill best fill too. This quite black board. Amount couple some ability. Response end their hold plan place. Everybody mean without political some issue. Would without year business yourself major. Actually whom cost walk adult movement. Author ', 10.59, 90, NULL, '2025-02-20 06:23:48'),
(4, '3-generation-once', 'Rosybrown Wife Pass', 'Better fight group develop effort act. Have free tonight speak. St', 25.95, 473, '{"id": 4, "tags": ["source", "small", "size"], "attrs": {"size": "L", "color": "SkyBlue", "weight_g": 1094}, "score": 729, "active": true}', '2024-03-05 16:44:11'),
(5, '4-run-east', 'Darkgoldenrod Read Opportunity', 'Raise indeed medical', 62.72, 393, '{"id": 5, "name": "Zoë \\"Q\\" Ünïcode ✓", "tags": ["game", "add"], "attrs": {"size": "XL", "color": "SkyBlue", "weight_g": 4611}, "score": 551, "active": true}', '2025-03-09 07:30:06'),
(6, '5-sort-officer', 'Ghostwhite Feel Push', 'Manager nearly two I personal writer lawyer. Last magazine miss scene church anything. Suggest employee some they hear. Cause painting my mother many him seek. At break positive first sister us after ok. Then himself around. Can degree discussion memory project. Allow throughout month better rich certainly better. Compare prepare four matter church. Enter industry among smile. Main another today stop high. Start economy walk tend bill week bag. Expect modern almost. Near system dark meet task when. Enter week only speech service building prove. List student life deal. Speech which home team model husband off. Open material doctor number explain stock certain clear. Next open growth than. Gas Congress involve such quite. Whatever important right argue herself. Debate morning entire show market. Here member apply maybe door. People decade book notice expect song television read. Coach number into our. Again bag who within. The treat become poor study. Friend teach center become attention meeting. Some save situation manager condition at. Matter mouth create have affect light. Treat office quickly control paper behavior pick. Interesting type young herself apply it. By face cultural decision man popular push discuss. Interesting game century. Personal among yes stop. Democratic of base go set quite paper. Force such check nothing skill challenge. Anything answer low center event. Live wife home fill television beyond specific. Everything plan participant big beat simply nothing. Community will serve run ', 6.49, 126, '{"id": 6, "tags": ["option"], "score": 683, "active": false}', '2023-11-25 13:53:42'),
(7, '6-what-not', 'Palegreen Air More', 'Trouble significant will force. Painting improve trial feel rest star. Lay nor camera lose red property. Old senior give behavior head region. Yeah benefit finish work daughter continue. Four official team security watch must. Indeed force much agree stay. Power brother significant tree. Safe many choice worry building budget. Person coach effect sport while. Alone including prove final. Child per dinner answer around hour several. Book detail read section sort seek. Evidence approach subject bar i', 24.26, 73, '{"id": 7, "note": null, "tags": [], "score": 370, "active": true}', '2023-10-28 21:10:38'),
(8, '7-ahead-site', 'Floralwhite Behind Poor', 'Dark his play six six. With college despite. Certain here among on. Second themselves measure fund only know. Should win early decade run team camera. Drop try bill spring building season perform. Daughter while you concern. Town garden trial cup action believe. Same order region herself enjoy. Low letter discuss security. Attack short heart nothing. Blood eight head plant. At party wall two mean compare true. Something scientist sell environment. Concern ball manager newspaper civil prevent hundred. Try ask simple nation she nor him. Manage conference course rich. Shoulder success fund might. Affect treatment rock. Eye opportunity design. Size day total conference enter. Her forward support daughter. Guess wish practice. Might include quite article perform front plan. Stay impact teacher little. Continue every s', 89.32, 354, '{"id": 8, "note": null, "tags": ["their"], "attrs": {"size": "XL", "color": "DarkBlue", "weight_g": 3132}, "score": 511, "active": true}', '2023-12-17 22:06:22'),
(9, '8-ok-these', 'Palegreen Trial Heavy', 'High whose through wait these amount just. Probably hear pressure option discussion society analysis improve. Finish fight wall head term popular brother oil. Ability ok north feeling. Part pass seem public painting business. Lose instead impact game song piece star wind. Pass possible particularly reach investment economy. Bad concern agency magazine now. Away treat white listen customer lay clear sense. Let however budget section difficult world I. Great development much attack. Letter thousand religious whole rate. Explain difficult unit various quality skin wear. Sign see somebody. Air politics family green organization. Against fact really suggest environmental already agent focus. People performance one else. Life fund account very page. Car note Democrat system. Force early fact bag area age. Analysis job ca', 112.53, 202, NULL, '2025-02-17 18:15:58'),
(10, '9-move-two', 'Mediumaquamarine Product Physical', 'Determine live region require home training action. Soon maintain late friend. Drive need score deal leave give always government. Nation property pull on mission maybe. Travel evidence memory defense growth develop financial. Activity reason cultural occur where. Water world something point growth. Detail organization cell office door skill pretty. Yard line politics Mrs poor. Service window catch expert. Detail guy main. Yes end type future break drop our. In production long rather bag care. My claim east world best. Argue task officer plant ', 1.83, 141, '{"id": 10, "note": null, "tags": [], "attrs": {"size": "XL", "color": "Gray", "weight_g": 4936}, "score": 127, "active": false}', '2024-03-06 00:02:51');
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
