"""What other installed packages add to the codec: Python entry points (the standard plugin
mechanism, read with :mod:`importlib.metadata`).

The codec knows nothing of generation (issue 12, docs/architecture.md "Package boundaries"):
no module of ``binlogwriter`` imports ``generators`` or ``spark_gen``. The generator plugs
its pieces in through these groups, declared in ``pyproject.toml`` and installed with the
package:

``binlogwriter.commands``
    click commands added to the ``binlogwriter`` command (``generate``).
``binlogwriter.streams``
    ``serve --generate SPEC``: a callable ``(spec_path, size) -> source`` giving the generated
    stream to serve (the protocol is :class:`binlogwriter.serve.generated.StreamSource`).

An entry point whose package cannot be imported counts as absent; a broken one in an
installed package raises (a plugin that fails silently would hide a bug).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["COMMANDS", "STREAMS", "PluginMissing", "available", "load"]

COMMANDS = "binlogwriter.commands"
STREAMS = "binlogwriter.streams"


class PluginMissing(LookupError):
    """No installed package provides this entry point (the generator is not installed)."""


def available(group: str) -> dict[str, EntryPoint]:
    """The entry points of ``group`` whose top-level package is importable, by name
    (:mod:`importlib.metadata` imported here: a command that asks for no plugin does not
    pay for it)."""
    import importlib.util
    from importlib.metadata import entry_points

    out: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        top = ep.value.split(":", 1)[0].split(".", 1)[0]
        if importlib.util.find_spec(top) is not None:
            out.setdefault(ep.name, ep)
    return out


def load(group: str, name: str) -> Any:
    """The object entry point ``name`` of ``group`` names; :class:`PluginMissing` when no
    installed package provides it."""
    ep = available(group).get(name)
    if ep is None:
        raise PluginMissing(f"{group}:{name} is not installed (the generators package provides it: "
                            f"reinstall the binlogwriter distribution, e.g. pip install -e ., to register its entry points)")
    return ep.load()
