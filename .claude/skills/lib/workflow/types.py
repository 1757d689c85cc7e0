"""The graph's value types at their documented path (`skills.lib.workflow.types`): those of
graph/model.py, and the original system's (`AgentRole`, the routings, `Step`, `QRState`,
`GateConfig`), which legacy/model.py keeps."""

from .graph.model import (
    STEP_STATE,
    VERIFY_OUTCOMES,
    VERIFY_OUTPUT,
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Edge,
    Fragment,
    Handler,
    Outcome,
    Param,
    QRRole,
    Resource,
    Rework,
    Target,
    Text,
    decides,
    handler_outcomes,
    target_id,
)
from .legacy.model import (
    AgentRole,
    BranchRouting,
    GateConfig,
    LinearRouting,
    QRState,
    Routing,
    Step,
    TerminalRouting,
)

__all__ = ["STEP_STATE", "VERIFY_OUTCOMES", "VERIFY_OUTPUT", "Action", "AgentRole", "Arg",
           "AskUser", "BranchRouting", "ConventionRef", "Dispatch", "Edge", "Fragment",
           "GateConfig", "Handler", "LinearRouting", "Outcome", "Param", "QRRole", "QRState",
           "Resource", "Rework", "Routing", "Step", "Target", "TerminalRouting", "Text",
           "decides", "handler_outcomes", "target_id"]
