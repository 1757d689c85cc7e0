"""Where the framework's modules went when it was split into layers (docs/DESIGN.md), and the
import hook that keeps the old paths importable until the next release: an old path gives the
module at its new one, with a DeprecationWarning naming it. MIGRATION_STATUS.md lists them
(`skillrail migration-status --write`). The documented paths (`skills.lib.workflow`, `.core`,
`.types`, `.formatters`, `.formatters.text`, and the old `.graph` and `.protocol` names) are real
modules and need no alias; `formatters` and `formatters.text` still answer for the names they
held before the layers.

An alias is the module at its new path, put in `sys.modules` under the old name, so both names
give the same module object (its classes, its state): a second copy would split a registry.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any

PREFIX = "skills.lib.workflow."
#: First parts of today's paths: an import of one of these is never an old path (hooks/ and
#: graph/ both stayed and lost modules, so their names are looked up).
_CURRENT = frozenset({"base", "protocol", "authoring", "guard", "step", "ledger", "tools",
                      "commands", "legacy", "core", "types"})

#: Old path (below skills.lib.workflow) -> new path.
MOVED = {
    "annotations": "tools.annotations",
    "argvgrammar": "guard.argvgrammar",
    "askgate": "guard.askgate",
    "cleanenv": "guard.cleanenv",
    "cli": "step.cli",
    "confine": "guard.confine",
    "context": "step.expand",
    "conventions": "authoring.conventions",
    "diagram": "graph.diagram",
    "discovery": "step.discovery",
    "dispatch": "step.dispatch",
    "documents": "authoring.documents",
    "errors": "base.errors",
    "evidence": "guard.evidence",
    "execute": "guard.execute",
    "formatters.view": "protocol.view",
    "formatters.xml": "protocol.xml",
    "gatemodel": "guard.gatemodel",
    "gatepolicy": "guard.gatepolicy",
    "gateway": "guard.gateway",
    "generated": "tools.generated",
    "graph.context": "graph.model",
    "graph.forms": "graph.model",
    "graph.parts": "graph.model",
    "graph.step": "graph.model",
    "graph.types": "graph.model",
    "graph.workflow": "graph.model",
    "history": "tools.history",
    "hooks.guard": "hooks.refusals",
    "hooks.rules": "guard.rules",
    "hooks.shell": "guard.shell",
    "htmlpage": "tools.htmlpage",
    "injection": "step.injection",
    "invocation": "step.invocation",
    "learned": "ledger.learned",
    "ledger_schema": "ledger.schema",
    "memory": "ledger.memory",
    "qr": "authoring.qr",
    "qrflags": "step.qrflags",
    "qrreport": "authoring.qrreport",
    "redact": "guard.redact",
    "references": "authoring.references",
    "render": "step.render",
    "reportpage": "tools.reportpage",
    "reviewer": "authoring.reviewer",
    "routing": "step.routing",
    "run": "step",
    "run.cli": "step.cli",
    "run.decision": "step.decision",
    "run.discovery": "step.discovery",
    "run.dispatch": "step.dispatch",
    "run.entries": "ledger.entries",
    "run.expand": "step.expand",
    "run.injection": "step.injection",
    "run.invocation": "step.invocation",
    "run.learned": "ledger.learned",
    "run.ledger": "ledger.store",
    "run.ledger_schema": "ledger.schema",
    "run.ledgercopy": "ledger.copy",
    "run.listing": "ledger.listing",
    "run.memory": "ledger.memory",
    "run.pgschema": "ledger.pgschema",
    "run.pgstore": "ledger.pgstore",
    "run.qrflags": "step.qrflags",
    "run.rejoin": "step.rejoin",
    "run.render": "step.render",
    "run.resume": "step.resume",
    "run.routing": "step.routing",
    "run.runs": "step.runs",
    "run.sessions": "ledger.sessions",
    "run.settle": "step.settle",
    "run.values": "step.values",
    "run.verify": "step.verify",
    "run.wakeups": "ledger.wakeups",
    "run.workspace": "ledger.workspace",
    "runs": "step.runs",
    "samples": "tools.samples",
    "sandbox": "guard.sandbox",
    "scaffold": "tools.scaffold",
    "schema": "protocol.schema",
    "sessions": "ledger.sessions",
    "simulate": "tools.simulate",
    "skillmd": "authoring.skillmd",
    "templates": "authoring.templates",
    "trust": "guard.trust",
    "usage": "tools.usage",
    "validate": "graph.validate",
    "verify": "step.verify",
}


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

    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        if not name.startswith(PREFIX) or name[len(PREFIX):].split(".", 1)[0] in _CURRENT:
            return None
        new = MOVED.get(name[len(PREFIX):])
        if new is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, _Alias(PREFIX + new))  # type: ignore[arg-type]  # duck-typed


def install() -> None:
    """Make the old paths importable (once per process)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def forwarded(old: str, new: str) -> Callable[[str], Any]:
    """A module `__getattr__` (PEP 562) for `old`, a path that held module `new`'s names
    before they moved: each still answers there, with a DeprecationWarning, until the next
    release; a name `new` never had is an AttributeError, as from any module."""
    def attribute(name: str) -> Any:
        import importlib
        import warnings

        module = importlib.import_module(new)
        if name.startswith("__") or not hasattr(module, name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} moved to {new}.{name}; import it from there (the old path "
                      "goes away in the next release)", DeprecationWarning, stacklevel=2)
        return getattr(module, name)

    return attribute
