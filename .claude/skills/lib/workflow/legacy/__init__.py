"""The original skills API, adapted onto validated Workflows (see adapt.py and formatters.py).
A script written against it keeps its shape and gets graph validation, the run ledger and
protocol v1 output. New skills use `skills.lib.workflow` directly."""

from .adapt import ITERATION_LIMIT, LegacySkill, adapt, skill
from .formatters import (
    format_expected_output,
    format_forbidden,
    format_gate_step,
    format_qr_banner,
    format_resource,
    format_routing,
    format_state_banner,
    format_step_output,
    format_subagent_dispatch,
    format_text_output,
)
from .model import (
    AgentRole,
    BranchRouting,
    Fragment,
    GateConfig,
    LinearRouting,
    QRState,
    Routing,
    Step,
    TerminalRouting,
)

__all__ = [
    "ITERATION_LIMIT", "AgentRole", "BranchRouting", "Fragment", "GateConfig", "LegacySkill",
    "LinearRouting", "QRState", "Routing", "Step", "TerminalRouting", "adapt",
    "format_expected_output", "format_forbidden", "format_gate_step", "format_qr_banner",
    "format_resource", "format_routing", "format_state_banner", "format_step_output",
    "format_subagent_dispatch", "format_text_output", "skill",
]
