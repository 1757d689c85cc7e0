"""skillrail's framework: workflow graphs that are validated data, printed one step at a time in
the XML step protocol. A skill script defines a `Workflow`, registers it, and calls `main`.

Only the standard library is imported here: this is the `--step` hot path. The framework's
layers (base, graph, protocol, authoring, guard, run; tools, hooks, legacy and commands on top)
are described in docs/DESIGN.md; the names below are the API skill authors use.
"""

from . import moved
from .authoring.conventions import get_convention
from .authoring.qr import qr_loop
from .authoring.registry import register_workflow, registered
from .authoring.templates import Template
from .base.errors import (
    Finding,
    InvalidWorkflow,
    LedgerError,
    ProtocolViolation,
    SkillrailError,
    UsageError,
)
from .graph.model import StepContext, StepDef, Workflow
from .graph.types import (
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Outcome,
    Param,
    Resource,
    Rework,
    decides,
)
from .protocol.constants import PROTOCOL_VERSION
from .run.cli import main
from .run.dispatch import each_line, each_paragraph, value_of

__all__ = [
    "PROTOCOL_VERSION", "Action", "Arg", "AskUser", "ConventionRef", "Dispatch", "Finding",
    "InvalidWorkflow", "LedgerError", "Outcome", "Param", "ProtocolViolation", "Resource",
    "Rework", "SkillrailError", "StepContext", "StepDef", "Template", "UsageError", "Workflow",
    "decides", "each_line", "each_paragraph", "get_convention", "main", "qr_loop",
    "register_workflow", "registered", "value_of",
]

moved.install()  # modules from before the layers still import from their old paths
