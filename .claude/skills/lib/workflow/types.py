"""The graph's value types at their documented path (`skills.lib.workflow.types`); they live in
graph/types.py."""

from .graph.types import (
    VERIFY_OUTCOMES,
    VERIFY_OUTPUT,
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Edge,
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

__all__ = ["VERIFY_OUTCOMES", "VERIFY_OUTPUT", "Action", "Arg", "AskUser", "ConventionRef",
           "Dispatch", "Edge", "Handler", "Outcome", "Param", "QRRole", "Resource", "Rework",
           "Target", "Text", "decides", "handler_outcomes", "target_id"]
