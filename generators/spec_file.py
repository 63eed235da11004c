"""Spec files (part of generators/spec.py): YAML/JSON (or a run's ``manifest.json``) read into
settings with the line of each, so an error names ``file:line``; and a Spec as JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generators.errors import SpecError

if TYPE_CHECKING:
    from generators.spec import Spec

__all__ = ["SpecFile", "read_spec_file", "load_spec_file", "null_key", "spec_as_json"]


@dataclass
class SpecFile:
    """A spec file's settings (keys normalised: ``_`` for ``-``, ``schema`` -> ``schema_file``)
    and the line of every top-level key (and of every ``columns`` entry as ``columns.T.C``)."""

    path: Path
    data: dict[str, Any]
    lines: dict[str, int]

    def where(self, setting: str | None) -> str:
        """``FILE:LINE`` of a setting (the file alone when its line is unknown)."""
        line = None
        while setting:
            line = self.lines.get(setting)
            if line is not None or "." not in setting:
                break
            setting = setting.rsplit(".", 1)[0]
        return f"{self.path}:{line}" if line is not None else str(self.path)


def norm_key(k: Any) -> str:
    name = str(k).replace("-", "_")
    return _KEY_ALIASES.get(name, name)


_KEY_ALIASES = {"schema": "schema_file", "compress": "transaction_compression"}


def _yaml_lines(text: str, manifest: bool) -> dict[str, int]:
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except Exception:  # noqa: BLE001 - lines are a nicety; the parse error is reported elsewhere
        return {}
    if manifest and isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if getattr(k, "value", None) == "spec"), node)
    out: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return out
    for k, v in node.value:
        name = norm_key(getattr(k, "value", ""))
        out.setdefault(name, k.start_mark.line + 1)
        if name == "columns" and isinstance(v, yaml.MappingNode):
            for ck, _ in v.value:
                out.setdefault(f"columns.{getattr(ck, 'value', '')}", ck.start_mark.line + 1)
    return out


def read_spec_file(path: str | Path) -> SpecFile:
    """Settings from a YAML or JSON file (a manifest.json: its ``spec`` member), with the
    line of each setting. A relative ``schema`` path is taken relative to the spec file's
    directory, and that file is read unless the spec holds the DDL text (``schema_sql``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(f"--spec: cannot read {path}: {e.strerror or e}", setting="spec") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"--spec: {path} is not UTF-8 text ({e.reason} at byte {e.start})", setting="spec") from None
    is_json = p.suffix.lower() == ".json"
    try:
        if is_json:
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}", setting="spec") from None
    except Exception as e:  # noqa: BLE001 - any parser error is a bad spec file
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or (str(e).strip().splitlines() or [type(e).__name__])[0]
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise SpecError(f"{where}: not valid {'JSON' if is_json else 'YAML'}: {problem}", setting="spec") from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise SpecError(f"{path}: a spec file must hold a mapping of settings (setting: value), "
                        f"not a {type(data).__name__}", setting="spec")
    manifest = "spec" in data and "generator" in data
    if manifest:
        data = data["spec"]
        if not isinstance(data, Mapping):
            raise SpecError(f"{path}: manifest has no spec mapping", setting="spec")
    if is_json:
        lines = {}
        for k in data:
            m = re.search(r'"' + re.escape(str(k)) + r'"\s*:', text)
            if m:
                lines[norm_key(k)] = text.count("\n", 0, m.start()) + 1
    else:
        lines = _yaml_lines(text, manifest)
    out: dict[str, Any] = {}
    for k, v in data.items():
        name = norm_key(k)
        if name in out:
            raise SpecError(f"{p}:{lines.get(name, '?')}: setting {k!r} given twice", setting=name)
        out[name] = v
    sf = SpecFile(p, out, lines)
    schema = out.get("schema_file")
    if schema is not None and out.get("schema_sql") is None:
        if not isinstance(schema, str) or not schema.strip():
            raise SpecError(f"{sf.where('schema_file')}: schema: expected the path of a .sql file, got {schema!r}",
                            setting="schema_file")
        sp = Path(schema).expanduser()
        if not sp.is_absolute():
            sp = p.parent / sp
        try:
            out["schema_sql"] = schema_text(sp.read_bytes(), str(sp))
        except OSError as e:
            why = getattr(e, "strerror", None) or str(e)
            raise SpecError(f"{sf.where('schema_file')}: schema: cannot read {sp}: {why}",
                            setting="schema_file") from None
        out["schema_file"] = str(sp)
        if "schema_file" in lines:
            lines["schema_sql"] = lines["schema_file"]
    return sf


def null_key(conf: Mapping, target: Any) -> Mapping:
    """A generator's settings with a ``None`` key read as the setting ``null``: in YAML (1.1
    and 1.2's core schema) an unquoted ``null`` is the null scalar, as a mapping key too, so
    ``{gen: text, null: 0.2}`` arrives as ``{None: 0.2}``. Both spellings at once are refused."""
    if None not in conf:
        return conf
    if "null" in conf:
        raise SpecError(f"spec columns.{target}: null given twice (null and \"null\")")
    return {("null" if k is None else k): x for k, x in conf.items()}


def load_spec_file(path: str | Path) -> dict[str, Any]:
    """Settings from a YAML or JSON file (see :func:`read_spec_file`)."""
    return read_spec_file(path).data


def spec_as_json(s: Spec) -> str:
    return json.dumps(s.to_dict(), sort_keys=True, ensure_ascii=False)


_READ = ("CREATE", "ALTER", "USE", "DROP")
"""First words of the statements a schema script is read for (tables, their keys, the
database); bytes that are not UTF-8 elsewhere (a dump's BLOB data, an INSERT's latin1 text)
are never read."""


def schema_text(data: bytes, name: str) -> str:
    """A ``--schema`` file's text: UTF-8; a statement that is not (mysqldump writes BLOB and
    geometry values as raw bytes) has its undecodable bytes replaced by ``?`` when it is one
    the generator does not read (INSERT, SET, …), and is a SpecError naming its line when it
    is (``CREATE TABLE``, ``ALTER TABLE``, …). The ``mariadb`` client loads such a file; so
    does ``generate``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        first = e
    from binlogwriter.errors import SchemaError
    from binlogwriter.schema.lexer import statement_spans, tokenize

    text = data.decode("utf-8", errors="surrogateescape")
    for a, b in statement_spans(text):
        piece = text[a:b]
        if not _escaped(piece):
            continue
        try:
            toks = tokenize(piece)
            head = next((t.upper for t in toks if t.kind == "word"), "")
            bad = any(_escaped(t.text) for t in toks)  # not only in a comment
        except SchemaError:
            head, bad = "CREATE", True  # cannot tell: as if read
        if head in _READ and bad:
            line = text.count("\n", 0, a + len(piece) - len(piece.lstrip())) + 1
            raise SpecError(f"--schema: {name}:{line}: the statement is not UTF-8 text ({first.reason} in it)") from None
    return _ESCAPED.sub("?", text)  # in statements not read, and in comments


_ESCAPED = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as ``surrogateescape`` decodes it."""


def _escaped(text: str) -> bool:
    """Whether ``text`` holds a byte that was not UTF-8 (``surrogateescape``)."""
    return _ESCAPED.search(text) is not None
