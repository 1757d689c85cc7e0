"""skillrail's framework: workflow graphs that are validated data, printed one step at a time in
the XML step protocol. A skill script defines a `Workflow`, registers it, and calls `main`.

Only the standard library is imported here: this is the `--step` hot path.
"""

from .cli import main
from .conventions import get_convention
from .core import StepContext, StepDef, Workflow
from .dispatch import each_line, each_paragraph, value_of
from .errors import (
    Finding,
    InvalidWorkflow,
    LedgerError,
    ProtocolViolation,
    SkillrailError,
    UsageError,
)
from .protocol import PROTOCOL_VERSION
from .qr import qr_loop
from .registry import register_workflow, registered
from .templates import Template
from .types import (
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

__all__ = [
    "PROTOCOL_VERSION", "Action", "Arg", "AskUser", "ConventionRef", "Dispatch", "Finding",
    "InvalidWorkflow", "LedgerError", "Outcome", "Param", "ProtocolViolation", "Resource",
    "Rework", "SkillrailError", "StepContext", "StepDef", "Template", "UsageError", "Workflow",
    "decides", "each_line", "each_paragraph", "get_convention", "main", "qr_loop",
    "register_workflow", "registered", "value_of",
]
