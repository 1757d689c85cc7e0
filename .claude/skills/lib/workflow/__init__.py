"""skillrail's framework: workflow graphs that are validated data, printed one step at a time in
the XML step protocol. A skill script defines a `Workflow`, registers it, and calls `main`.

Nothing is imported here but the import hook for the old module paths: each name below loads
its module on first use (PEP 562), so a process that needs part of the framework loads only that
part (a hook with no run to judge loads no graph; a step script, what its imports name). The
framework's layers (base, graph, protocol, authoring, guard, run; tools, hooks, legacy and
commands on top) are described in docs/DESIGN.md; the names below are the API skill authors use.
"""

from __future__ import annotations

from .base import relocations

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any

    from .authoring.conventions import get_convention
    from .authoring.qr import qr_loop
    from .authoring.qrreport import reviewer_of
    from .authoring.registry import register_workflow, registered
    from .authoring.reviewer import review_workflow
    from .authoring.templates import Template
    from .base.errors import (
        Finding,
        InvalidWorkflow,
        LedgerError,
        ProtocolViolation,
        SkillrailError,
        UsageError,
    )
    from .graph.model import (
        Action,
        Arg,
        AskUser,
        ConventionRef,
        Dispatch,
        Outcome,
        Param,
        Resource,
        Rework,
        StepContext,
        StepDef,
        Workflow,
        decides,
    )
    from .protocol.constants import PROTOCOL_VERSION
    from .step.cli import main
    from .step.dispatch import each_line, each_paragraph, value_of

#: Where each name of the API is defined: a module loads on the first use of one of its names,
#: so that a process needing only part of the framework (a hook, a command) loads only that.
_ON_USE = {
    **dict.fromkeys(("register_workflow", "registered"), ".authoring.registry"),
    **dict.fromkeys(("Finding", "InvalidWorkflow", "LedgerError", "ProtocolViolation",
                     "SkillrailError", "UsageError"), ".base.errors"),
    **dict.fromkeys(("Action", "Arg", "AskUser", "ConventionRef", "Dispatch", "Outcome", "Param",
                     "Resource", "Rework", "StepContext", "StepDef", "Workflow", "decides"),
                    ".graph.model"),
    "PROTOCOL_VERSION": ".protocol.constants", "main": ".step.cli",
    "get_convention": ".authoring.conventions", "qr_loop": ".authoring.qr",
    "Template": ".authoring.templates", "each_line": ".step.dispatch",
    "each_paragraph": ".step.dispatch", "value_of": ".step.dispatch",
    "review_workflow": ".authoring.reviewer", "reviewer_of": ".authoring.qrreport",
}


def __getattr__(name: str) -> Any:
    """PEP 562: `from skills.lib.workflow import Workflow` loads graph/model.py then, and binds
    the names of the API it defines, so that the next of them is a plain attribute."""
    where = _ON_USE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module = import_module(where, __name__)
    globals().update((other, getattr(module, other)) for other, place in _ON_USE.items()
                     if place == where)
    return globals()[name]

__all__ = [
    "PROTOCOL_VERSION", "Action", "Arg", "AskUser", "ConventionRef", "Dispatch", "Finding",
    "InvalidWorkflow", "LedgerError", "Outcome", "Param", "ProtocolViolation", "Resource",
    "Rework", "SkillrailError", "StepContext", "StepDef", "Template", "UsageError", "Workflow",
    "decides", "each_line", "each_paragraph", "get_convention", "main", "qr_loop",
    "register_workflow", "registered", "review_workflow", "reviewer_of", "value_of",
]

relocations.install()  # modules from before the layers still import from their old paths
