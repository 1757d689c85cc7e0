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
    """PEP 562: `from skills.lib.workflow.legacy import skill` loads adapt.py then (and
    formatters.py for a format_* name). Every name of each module loaded is bound at once:
    loading adapt.py, by any way (formatters.py imports it), makes the package's attribute
    `adapt` that module, which must not hide the function `adapt` exported here."""
    if name not in _ADAPT + _FORMATTERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    loaded = [(".adapt", _ADAPT)] + ([(".formatters", _FORMATTERS)] if name in _FORMATTERS
                                     else [])
    for module, names in loaded:
        found = import_module(module, __name__)
        globals().update({each: getattr(found, each) for each in names})
    return globals()[name]


__all__ = [
    "ITERATION_LIMIT", "AgentRole", "BranchRouting", "Fragment", "GateConfig", "LegacySkill",
    "LinearRouting", "QRState", "Routing", "Step", "TerminalRouting", "adapt",
    "format_expected_output", "format_forbidden", "format_gate_step", "format_qr_banner",
    "format_resource", "format_routing", "format_state_banner", "format_step_output",
    "format_subagent_dispatch", "format_text_output", "skill",
]
