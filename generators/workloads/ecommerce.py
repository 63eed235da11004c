"""``ecommerce``: customers, products, orders, order_items with consistent foreign keys.

Key model (all pure functions of the key): ``id = key + 1`` everywhere;
``orders.customer_id`` and ``order_items.product_id`` point at initial customers /
products, which are never deleted; an order with key ``o`` owns the order_items keys
``o*16 + line`` (``order_items.order_id = key // 16 + 1``), inserted in the order's own
transaction and deleted with it; ``order_items.unit_price`` is the product's initial
price. So every foreign key holds after every transaction, in any replay order the
server applies (the binlog writes parents first, deletes children first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from generators.edge_values import value_mode
from generators.hashing import hash64, hash64_array, salt
from generators.spec import ColumnGen, Spec
from generators.values import Vec, column_generator, column_vector_generator
from generators.workloads._ddl import create_table, parse_one
from generators.workloads.base import TableDef, WorkloadDef

LINES = 16  # order_items keys per order
KeyFn = Callable[[int], Any]
"""A column's value as a function of the row's key (given a ``.vec`` for many keys at once)."""


def lines_of_initial_order(seed: int, o: int) -> int:
    return 1 + hash64(salt(seed, "ecommerce", "lines"), o) % 4


_DDL = (
    ("customers", [
        ("id", "BIGINT UNSIGNED NOT NULL AUTO_INCREMENT"),
        ("email", "VARCHAR(255) NOT NULL"),
        ("first_name", "VARCHAR(64) NOT NULL"),
        ("last_name", "VARCHAR(64) NOT NULL"),
        ("phone", "VARCHAR(32) NULL"),
        ("street_address", "VARCHAR(255) NULL"),
        ("city", "VARCHAR(100) NULL"),
        ("country_code", "CHAR(2) NULL"),
        ("created_at", "DATETIME(6) NOT NULL"),
        ("updated_at", "TIMESTAMP(3) NULL"),
    ], ["PRIMARY KEY (`id`)", "UNIQUE KEY `uk_email` (`email`)"]),
    ("products", [
        ("id", "INT UNSIGNED NOT NULL AUTO_INCREMENT"),
        ("sku", "VARCHAR(32) NOT NULL"),
        ("name", "VARCHAR(200) NOT NULL"),
        ("description", "TEXT NULL"),
        ("price", "DECIMAL(10,2) NOT NULL"),
        ("stock", "INT NOT NULL"),
        ("attributes", "JSON NULL"),
        ("created_at", "DATETIME NOT NULL"),
    ], ["PRIMARY KEY (`id`)", "UNIQUE KEY `uk_sku` (`sku`)"]),
    ("orders", [
        ("id", "BIGINT UNSIGNED NOT NULL AUTO_INCREMENT"),
        ("customer_id", "BIGINT UNSIGNED NOT NULL"),
        ("status", "ENUM('pending','paid','shipped','delivered','cancelled','refunded') NOT NULL DEFAULT 'pending'"),
        ("total", "DECIMAL(12,2) NOT NULL"),
        ("currency", "CHAR(3) NOT NULL DEFAULT 'USD'"),
        ("placed_at", "DATETIME(3) NOT NULL"),
        ("updated_at", "TIMESTAMP NULL"),
    ], ["PRIMARY KEY (`id`)", "KEY `idx_customer` (`customer_id`)",
        "CONSTRAINT `fk_orders_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`)"]),
    ("order_items", [
        ("id", "BIGINT UNSIGNED NOT NULL"),
        ("order_id", "BIGINT UNSIGNED NOT NULL"),
        ("product_id", "INT UNSIGNED NOT NULL"),
        ("quantity", "SMALLINT UNSIGNED NOT NULL"),
        ("unit_price", "DECIMAL(10,2) NOT NULL"),
    ], ["PRIMARY KEY (`id`)", "KEY `idx_order` (`order_id`)",
        "CONSTRAINT `fk_items_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`)",
        "CONSTRAINT `fk_items_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`)"]),
)
"""The four tables (name, columns, keys), parents before children."""


def _references(spec: Spec, products: Any) -> tuple[KeyFn, KeyFn, KeyFn]:
    """``orders.customer_id``, ``order_items.product_id`` and ``order_items.unit_price`` as
    functions of the row's key (each with a ``.vec`` for many keys at once,
    generators/rows.py compute_columns): initial customers / products by hash, a line's unit
    price its product's price (edge value or not)."""
    n, seed = spec.initial_rows, spec.seed
    mode = value_mode(spec) or False  # a line's unit price is its product's price, edge or not
    price_fn = column_generator(products, products.column("price"), spec.flavor, seed,
                                edge=mode, start_time=spec.start_time)
    fk_c = salt(seed, "fk", "orders.customer_id")
    fk_p = salt(seed, "fk", "order_items.product_id")

    def customer_of(k: int) -> int:
        return 1 + hash64(fk_c, k) % n

    def product_of(k: int) -> int:
        return 1 + hash64(fk_p, k) % n

    def unit_price(k: int) -> Decimal:
        return price_fn(product_of(k) - 1, 0)

    price_vec = column_vector_generator(products, products.column("price"), spec.flavor, seed,
                                        edge=mode, start_time=spec.start_time)
    if n > 0:
        customer_of.vec = lambda keys: Vec("int", 1 + (hash64_array(fk_c, keys) % np.uint64(n)).astype(np.int64))
        product_of.vec = lambda keys: Vec("int", 1 + (hash64_array(fk_p, keys) % np.uint64(n)).astype(np.int64))
        unit_price.vec = lambda keys: price_vec(product_of.vec(keys).data - 1, np.zeros(len(keys), dtype=np.int64))
    return customer_of, product_of, unit_price


def _item_keys(seed: int, n: int) -> tuple[Callable[[], Iterator[int]], Callable[[int], bool], KeyFn, KeyFn]:
    """order_items' key model (module docstring): its initial keys, whether a key is one of
    them, and ``id`` / ``order_id`` as functions of the key (with ``.vec``)."""
    def initial_items() -> Iterator[int]:
        for o in range(n):
            for line in range(lines_of_initial_order(seed, o)):
                yield o * LINES + line

    def is_initial_item(k: int) -> bool:
        o, line = divmod(k, LINES)
        return 0 <= o < n and line < lines_of_initial_order(seed, o)

    def item_id(k: int) -> int:
        return k + 1

    def order_id(k: int) -> int:
        return k // LINES + 1

    item_id.vec = lambda keys: Vec("int", keys.astype(np.int64) + 1)
    order_id.vec = lambda keys: Vec("int", keys.astype(np.int64) // LINES + 1)
    return initial_items, is_initial_item, item_id, order_id


def ecommerce(spec: Spec) -> WorkloadDef:
    """The ``ecommerce`` workload of ``spec`` (module docstring)."""
    n = spec.initial_rows
    seed = spec.seed
    customers_sql, products_sql, orders_sql, items_sql = (create_table(name, cols, keys, spec)
                                                          for name, cols, keys in _DDL)
    customers = parse_one(customers_sql, spec)
    products = parse_one(products_sql, spec)
    orders = parse_one(orders_sql, spec)
    items = parse_one(items_sql, spec)
    customer_of, product_of, unit_price = _references(spec, products)
    initial_items, is_initial_item, item_id, order_id = _item_keys(seed, n)
    items_next = (n - 1) * LINES + lines_of_initial_order(seed, n - 1) if n else 0
    item_count = sum(lines_of_initial_order(seed, o) for o in range(n))
    status = ColumnGen("orders.status", "choice",
                       (("values", ("pending", "paid", "shipped", "delivered", "cancelled", "refunded")),
                        ("weights", (2, 3, 3, 6, 1, 0.5))))
    tables = [
        TableDef(customers, customers_sql, initial_count=n,
                 update_groups=[("phone", "updated_at"), ("street_address", "city", "country_code", "updated_at"),
                                ("last_name", "updated_at")],
                 overrides={"country_code": ColumnGen("customers.country_code", "faker",
                                                      (("provider", "country_code"),))},
                 immutable=("created_at",)),
        TableDef(products, products_sql, initial_count=n,
                 update_groups=[("stock",), ("stock",), ("description",), ("attributes",), ("name",)],
                 overrides={"stock": ColumnGen("products.stock", "int", (("max", 500), ("min", 0)))},
                 immutable=("price", "created_at")),
        TableDef(orders, orders_sql, key_fns={"customer_id": customer_of}, initial_count=n,
                 overrides={"status": status,
                            "currency": ColumnGen("orders.currency", "choice",
                                                  (("values", ("USD", "EUR", "GBP")), ("weights", (6, 3, 1)))),
                            "total": ColumnGen("orders.total", "decimal", (("max", 2000), ("min", 5)))},
                 update_groups=[("status", "updated_at")], immutable=("placed_at",)),
        TableDef(items, items_sql, initial_count=item_count, initial_keys=initial_items,
                 is_initial=is_initial_item, initial_next=items_next,
                 key_fns={"id": item_id, "order_id": order_id, "product_id": product_of, "unit_price": unit_price},
                 overrides={"quantity": ColumnGen("order_items.quantity", "int", (("max", 5), ("min", 1)))},
                 update_groups=[("quantity",)]),
    ]
    return WorkloadDef("ecommerce", spec.database, tables)
