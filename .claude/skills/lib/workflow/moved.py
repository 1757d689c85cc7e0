"""Module paths that moved when the framework was split into layers: an old path still imports,
until the next release, with a DeprecationWarning naming the new one (MIGRATION_STATUS.md lists
them; `skillrail migration-status --write` keeps that list). The documented paths
(`skills.lib.workflow`, `.core`, `.types`, and the old `.graph` and `.protocol` names) are real
modules and need no alias.

An alias is the module at its new path, put in `sys.modules` under the old name, so both names
give the same module object (its classes, its state): a second copy would split a registry.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

PREFIX = "skills.lib.workflow."
#: The module holding the table of moved paths (it is found the ordinary way).
TABLE = PREFIX + "base.relocations"
#: First parts of today's paths: an import of one of these never needs the table (hooks/ both
#: stayed and lost modules, so its names are looked up).
_CURRENT = frozenset({"base", "graph", "protocol", "authoring", "guard", "run", "tools",
                      "commands", "legacy", "core", "types", "moved"})
class _Alias:
    """Loads an old path as the module at its new one."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: Any = None

    def create_module(self, spec: Any) -> ModuleType:
        import importlib
        import warnings

        warnings.warn(f"{spec.name} moved to {self.new}; import it from there (the old path "
                      "goes away in the next release)", DeprecationWarning, stacklevel=3)
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # the import system set the alias's spec: put back the real one


class _Finder:
    """Answers only for the old paths in MOVED, ahead of the path finder (which would otherwise
    load a moved package's submodule a second time under its old name)."""

    def __init__(self) -> None:
        self.table: dict[str, str] | None = None  # read when a framework module is first imported

    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        if not name.startswith(PREFIX) or name[len(PREFIX):].split(".", 1)[0] in _CURRENT:
            return None
        if self.table is None:
            import importlib

            self.table = dict(importlib.import_module(TABLE).MOVED)
        new = self.table.get(name[len(PREFIX):])
        if new is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, _Alias(PREFIX + new))  # type: ignore[arg-type]  # duck-typed


def install() -> None:
    """Make the old paths importable (once per process)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
