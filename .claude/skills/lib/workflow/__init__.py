"""skillrail's framework: workflow graphs that are validated data, printed one step at a time in
the XML step protocol. A skill script defines a `Workflow`, registers it, and calls `main`.

Only the standard library is imported here: this is the `--step` hot path. The framework's
layers (base, graph, protocol, authoring, guard, run; tools, hooks, legacy and commands on top)
are described in docs/DESIGN.md; the names below are the API skill authors use.
"""

from typing import TYPE_CHECKING, Any

from .authoring.registry import register_workflow, registered
from .base import relocations
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

if TYPE_CHECKING:
    from .authoring.conventions import get_convention
    from .authoring.qr import qr_loop
    from .authoring.qrreport import reviewer_of
    from .authoring.reviewer import review_workflow
    from .authoring.templates import Template
    from .step.dispatch import each_line, each_paragraph, value_of

#: Names of the API that most steps never use: each module loads on the name's first use.
_ON_USE = {"get_convention": ".authoring.conventions", "qr_loop": ".authoring.qr",
           "Template": ".authoring.templates", "each_line": ".step.dispatch",
           "each_paragraph": ".step.dispatch", "value_of": ".step.dispatch",
           "review_workflow": ".authoring.reviewer", "reviewer_of": ".authoring.qrreport"}


def __getattr__(name: str) -> Any:
    """PEP 562: `from skills.lib.workflow import qr_loop` loads authoring/qr.py then."""
    if name not in _ON_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(_ON_USE[name], __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "PROTOCOL_VERSION", "Action", "Arg", "AskUser", "ConventionRef", "Dispatch", "Finding",
    "InvalidWorkflow", "LedgerError", "Outcome", "Param", "ProtocolViolation", "Resource",
    "Rework", "SkillrailError", "StepContext", "StepDef", "Template", "UsageError", "Workflow",
    "decides", "each_line", "each_paragraph", "get_convention", "main", "qr_loop",
    "register_workflow", "registered", "review_workflow", "reviewer_of", "value_of",
]

relocations.install()  # modules from before the layers still import from their old paths
