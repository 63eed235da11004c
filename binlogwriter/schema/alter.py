"""``ALTER TABLE`` statements of a schema script folded into the CREATE TABLE they change.

Many schema files define a table bare and give it its keys afterwards: phpMyAdmin's export
(``ALTER TABLE t ADD PRIMARY KEY (id), ADD UNIQUE KEY …``, then ``MODIFY id … AUTO_INCREMENT``
and ``ADD CONSTRAINT … FOREIGN KEY``), ORM and migration tools (Hibernate, Django, Prisma:
``ALTER TABLE … ADD CONSTRAINT fk FOREIGN KEY … REFERENCES …``). The table a server ends up
with is the CREATE TABLE with those clauses in its definition list, which is what
:func:`fold_alters` writes (MySQL 8.0 reference, "ALTER TABLE Statement"; MariaDB the same):

* ``ADD [CONSTRAINT [name]] PRIMARY KEY | UNIQUE | FOREIGN KEY | CHECK …`` and ``ADD KEY |
  INDEX | FULLTEXT | SPATIAL …``: the definition, after the others;
* ``ADD [COLUMN] name definition [FIRST | AFTER c]``: the column, where it goes;
* ``MODIFY [COLUMN] name definition [FIRST | AFTER c]`` and ``CHANGE [COLUMN] name name
  definition …`` (the same name): the column's definition replaced (and moved);
* ``PARTITION BY …`` (a table not partitioned by its CREATE TABLE): the clause, after the
  table options (the employees sample partitions its tables so);
* table options (``AUTO_INCREMENT = n``, ``ENGINE``, ``COMMENT``, …), ``ALGORITHM``, ``LOCK``,
  ``FORCE``, mysqldump's ``DISABLE KEYS`` / ``ENABLE KEYS`` and ``ALTER [COLUMN] c SET
  DEFAULT … | DROP DEFAULT`` change no column, key or generated row: left out.

Anything else that changes a table (``DROP …``, ``RENAME``, a renaming ``CHANGE``,
``CONVERT TO CHARACTER SET``, a column made invisible, a second partitioning or other
partition operations) is a one-line
:class:`~binlogwriter.errors.SchemaError` naming the clause and the table, as is an ALTER of
a table the script does not create before it. The folded text keeps every line where it was
(added clauses go on existing lines), so errors still name the script's own lines; the ALTER
statements stay in the text (readers of a script skip them).
"""

from __future__ import annotations

from dataclasses import dataclass

from binlogwriter.errors import SchemaError
from binlogwriter.schema.lexer import Tok, split_commas, split_statements

__all__ = ["fold_alters"]

_CONSTRAINT_WORDS = frozenset({"PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "KEY", "INDEX", "FULLTEXT", "SPATIAL",
                               "CONSTRAINT"})
"""First words of a definition that is not a column (a key or a constraint)."""
_HARMLESS = frozenset({"AUTO_INCREMENT", "ENGINE", "COMMENT", "ROW_FORMAT", "KEY_BLOCK_SIZE", "STATS_PERSISTENT",
                       "STATS_AUTO_RECALC", "STATS_SAMPLE_PAGES", "PACK_KEYS", "CHECKSUM", "DELAY_KEY_WRITE",
                       "MAX_ROWS", "MIN_ROWS", "AVG_ROW_LENGTH", "ALGORITHM", "LOCK", "FORCE", "DISABLE", "ENABLE",
                       "PAGE_CHECKSUM", "TRANSACTIONAL", "INSERT_METHOD", "DATA", "ORDER",
                       "COMPRESSION", "ENCRYPTION", "STORAGE", "TABLESPACE", "DEFAULT", "CHARSET", "CHARACTER",
                       "COLLATE", "ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE", "AUTOEXTEND_SIZE"})
"""First words of ALTER TABLE clauses that change no column or key of the table (its options;
``DEFAULT CHARSET`` changes only the default of columns added later, which name theirs)."""


@dataclass
class _Create:
    """A CREATE TABLE statement being folded: its definitions, in order, each as (the text
    before it — blanks and comments, its comma left out —, its text, its lower-case column
    name or "" for a key or constraint)."""

    items: list[list[str]]
    start: int  # where the definition list begins (after its "(")
    end: int  # where it ends (its ")")
    tail: str  # the text between the last definition and the ")"
    lines: int  # newlines the list held
    stmt_end: int  # where the statement's text ends (its table options, its partitioning)
    partitioned: bool  # it has a PARTITION BY clause of its own
    changed: bool = False
    partition: str = ""  # a PARTITION BY clause an ALTER TABLE gives it

    @property
    def columns(self) -> list[str]:
        return [name for _, _, name in self.items]

    def render(self) -> str:
        """The definition list, each line break of the original kept (padded at its end)."""
        body = "".join(("," if i else "") + sep + text for i, (sep, text, _) in enumerate(self.items)) + self.tail
        return body + "\n" * max(0, self.lines - body.count("\n"))


def _flat(sql: str, toks: list[Tok]) -> str:
    """The text of ``toks`` on one line: a gap between two tokens that breaks the line (or
    holds a comment) becomes one blank; other gaps and the tokens stay as written."""
    out = [sql[toks[0].pos:toks[0].end]]
    for a, b in zip(toks, toks[1:], strict=False):
        gap = sql[a.end:b.pos]
        out += [" " if "\n" in gap or "--" in gap or "#" in gap or "/*" in gap else gap, sql[b.pos:b.end]]
    return "".join(out)


def _name(toks: list[Tok], i: int, db: str) -> tuple[tuple[str, str], int]:
    """``(database, table)`` named at ``toks[i]`` (``t`` or ``db.t``), and the index after it.
    As written: names compare case-sensitively, as on a server with
    ``lower_case_table_names=0`` (``users`` and ``Users`` are two tables)."""
    first = toks[i].text
    if i + 2 < len(toks) and toks[i + 1].kind == "punct" and toks[i + 1].text == ".":
        return (first, toks[i + 2].text), i + 3
    return (db, first), i + 1


def _create(sql: str, toks: list[Tok]) -> _Create | None:
    """The definition list of a CREATE TABLE (None for ``… LIKE`` or ``… AS SELECT`` without one)."""
    k = next((k for k, t in enumerate(toks) if t.kind == "punct" and t.text == "("), None)
    if k is None:
        return None
    depth, end = 0, None
    for m in range(k, len(toks)):
        t = toks[m]
        if t.kind == "punct" and t.text in "()":
            depth += 1 if t.text == "(" else -1
            if depth == 0:
                end = m
                break
    if end is None:
        return None
    defs = split_commas(toks[k + 1:end])
    if not defs or defs[0][0].upper == "LIKE":
        return None
    items, prev = [], toks[k].end
    for d in defs:
        items.append([sql[prev:d[0].pos].replace(",", "", 1) if items else sql[prev:d[0].pos],
                      sql[d[0].pos:d[-1].end], "" if d[0].upper in _CONSTRAINT_WORDS else d[0].text.lower()])
        prev = d[-1].end
    a, b = toks[k].end, toks[end].pos
    partitioned = any(t.upper == "PARTITION" for t in toks[end + 1:])
    return _Create(items, a, b, sql[prev:b], sql.count("\n", a, b), toks[-1].end, partitioned)


def _where(clause: list[Tok], sql: str, table: tuple[str, str]) -> str:
    text = " ".join(sql[clause[0].pos:clause[-1].end].split())
    return f"ALTER TABLE … {text[:60]}{'…' if len(text) > 60 else ''} of table {table[0]}.{table[1]}"


def _place(c: _Create, clause: list[Tok], sql: str, k: int, name: str, table: tuple[str, str]) -> None:
    """Put column ``name``'s definition (``clause[k:]``, its FIRST / AFTER c at the end, if any)
    where it goes: replacing its old one, or after the last definition."""
    words = [t.upper for t in clause]
    pos = None
    if words[-1] == "FIRST":
        body, pos = clause[k:-1], 0
    elif len(clause) - k >= 2 and words[-2] == "AFTER":
        after = clause[-1].text.lower()
        if after not in c.columns:
            raise SchemaError(f"{_where(clause, sql, table)} cannot be folded into its CREATE TABLE: "
                              f"no column {clause[-1].text}", pos=clause[-1].pos)
        body, pos = clause[k:-2], after
    else:
        body = clause[k:]
    text = _flat(sql, body)
    if name in c.columns:
        old = c.columns.index(name)
        if pos is None:
            c.items[old][1] = text
            return
        del c.items[old]
    at = len(c.items) if pos is None else 0 if pos == 0 else c.columns.index(pos) + 1
    c.items.insert(at, [" ", text, name])
    if at == 0 and len(c.items) > 1:  # the old first definition's leading blanks go first
        c.items[0][0], c.items[1][0] = c.items[1][0], " "


def _fold(c: _Create, clause: list[Tok], sql: str, table: tuple[str, str]) -> None:
    """One clause of an ALTER TABLE applied to the definitions of ``c`` (module docstring)."""
    words = [t.upper for t in clause]
    head = words[0]
    if head == "ADD":
        k = 1 + (len(words) > 1 and words[1] == "COLUMN")
        if k < len(words) and words[k] in _CONSTRAINT_WORDS:
            c.items.append([" ", _flat(sql, clause[k:]), ""])
            return
        if words[k:k + 3] == ["IF", "NOT", "EXISTS"]:
            k += 3
        if k < len(clause) and not (clause[k].kind == "punct"):
            name = clause[k].text.lower()
            if name in c.columns and words[k - 1] != "EXISTS":
                raise SchemaError(f"{_where(clause, sql, table)}: column {clause[k].text} exists already",
                                  pos=clause[k].pos)
            _place(c, clause, sql, k, name, table)
            return
    elif head in ("MODIFY", "CHANGE"):
        k = 1 + (len(words) > 1 and words[1] == "COLUMN")
        if words[k:k + 2] == ["IF", "EXISTS"]:
            k += 2
        name = clause[k].text.lower() if k < len(clause) else ""
        if head == "CHANGE":
            if k + 1 >= len(clause) or clause[k + 1].text.lower() != name:
                raise SchemaError(f"{_where(clause, sql, table)} renames a column: not folded into its CREATE "
                                  f"TABLE; write the table as it ends up", pos=clause[0].pos)
            k += 1
        if name not in c.columns:
            raise SchemaError(f"{_where(clause, sql, table)} cannot be folded into its CREATE TABLE: no column "
                              f"{clause[k].text if k < len(clause) else '?'}", pos=clause[0].pos)
        _place(c, clause, sql, k, name, table)
        return
    elif head in _HARMLESS or _default_only(words):
        return
    elif words[:2] == ["PARTITION", "BY"] and not (c.partitioned or c.partition):
        c.partition = _flat(sql, clause)  # after the table options, as CREATE TABLE … PARTITION BY
        return
    raise SchemaError(f"{_where(clause, sql, table)} is not followed by the generator: a schema file may add "
                      f"columns, keys and constraints with ALTER TABLE (ADD, MODIFY, CHANGE without a new name), "
                      f"not drop or rename them; write the table as it ends up", pos=clause[0].pos)


def _default_only(words: list[str]) -> bool:
    """``ALTER [COLUMN] c SET DEFAULT … | DROP DEFAULT``: a default changed, which no generated
    row reads (every INSERT names every column)."""
    k = 1 + (len(words) > 1 and words[1] == "COLUMN")
    return words[0] == "ALTER" and words[k + 1:k + 3] in (["SET", "DEFAULT"], ["DROP", "DEFAULT"])


def fold_alters(sql: str, database: str = "") -> str:
    """``sql`` with each ``ALTER TABLE`` folded into the CREATE TABLE it changes (module
    docstring); ``sql`` itself when it has none. ``database``: the one before any ``USE``."""
    if "ALTER" not in sql.upper():
        return sql
    db = database
    creates: dict[tuple[str, str], _Create] = {}
    for _, toks in split_statements(sql):
        words = [t.upper for t in toks[:6]]
        if words[:1] == ["USE"] and len(toks) > 1:
            db = toks[1].text
        elif words[:1] == ["CREATE"] and "TABLE" in words[:4]:
            i = words.index("TABLE") + 1
            if toks[i:i + 3] and [t.upper for t in toks[i:i + 3]] == ["IF", "NOT", "EXISTS"]:
                i += 3
            key, _ = _name(toks, i, db)
            found = _create(sql, toks)
            if found is not None:
                creates[key] = found
        elif words[:2] == ["ALTER", "TABLE"] or words[:3] == ["ALTER", "ONLINE", "TABLE"] \
                or words[:3] == ["ALTER", "IGNORE", "TABLE"]:
            i = words.index("TABLE") + 1
            if [t.upper for t in toks[i:i + 2]] == ["IF", "EXISTS"]:
                i += 2
            key, i = _name(toks, i, db)
            clauses = split_commas(toks[i:])
            if not clauses:
                continue
            c = creates.get(key)
            if c is None:
                raise SchemaError(f"ALTER TABLE {key[0]}.{key[1]}: no CREATE TABLE of that table (with a column "
                                  f"list) earlier in the script", pos=toks[0].pos)
            for clause in clauses:
                _fold(c, clause, sql, key)
            c.changed = True
    out, at = [], 0
    for c in sorted((c for c in creates.values() if c.changed), key=lambda c: c.start):
        out += [sql[at:c.start], c.render()]
        at = c.end
        if c.partition:
            out += [sql[at:c.stmt_end], " ", c.partition]
            at = c.stmt_end
    out.append(sql[at:])
    return "".join(out)
