"""The original skills API, adapted onto validated Workflows (see adapt.py and formatters.py).
A script written against it keeps its shape and gets graph validation, the run ledger and
protocol v1 output. New skills use `skills.lib.workflow` directly.

A legacy script is a step script like any other, on the `--step` hot path: only the plain value
types load with this package; the adapter and the format_* functions load on first use, so a
script loads what it uses."""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
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

_ADAPT = ("ITERATION_LIMIT", "LegacySkill", "adapt", "skill")
_FORMATTERS = ("format_expected_output", "format_forbidden", "format_gate_step",
               "format_qr_banner", "format_resource", "format_routing", "format_state_banner",
               "format_step_output", "format_subagent_dispatch", "format_text_output")


def __getattr__(name: str) -> Any:
    """PEP 562: `from skills.lib.workflow.legacy import skill` loads adapt.py then."""
    if name not in _ADAPT + _FORMATTERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(".adapt" if name in _ADAPT else ".formatters", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ITERATION_LIMIT", "AgentRole", "BranchRouting", "Fragment", "GateConfig", "LegacySkill",
    "LinearRouting", "QRState", "Routing", "Step", "TerminalRouting", "adapt",
    "format_expected_output", "format_forbidden", "format_gate_step", "format_qr_banner",
    "format_resource", "format_routing", "format_state_banner", "format_step_output",
    "format_subagent_dispatch", "format_text_output", "skill",
]
