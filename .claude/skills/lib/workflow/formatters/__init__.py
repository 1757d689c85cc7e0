"""The original system's XML formatters at their documented path
(`skills.lib.workflow.formatters`). Each returns a string to print or to mix into a step's
actions: whole step documents (`format_step_output`, `format_gate_step`), and the pieces a step
is made of (a forbidden list, an expected output, a sub-agent dispatch, banners, an inlined
resource). They live in legacy/formatters.py; `formatters.text` holds the plain-text step.

Before the framework was split into layers this path held the protocol's serializers; those
names still resolve here (to `skills.lib.workflow.protocol`), with a DeprecationWarning."""

from ..base.relocations import forwarded
from ..legacy.formatters import (
    format_expected_output,
    format_factored_verification_rationale,
    format_forbidden,
    format_gate_step,
    format_qr_banner,
    format_resource,
    format_routing,
    format_state_banner,
    format_step_output,
    format_subagent_dispatch,
)
from .text import format_text_output

__all__ = ["format_expected_output", "format_factored_verification_rationale",
           "format_forbidden", "format_gate_step", "format_qr_banner", "format_resource",
           "format_routing", "format_state_banner", "format_step_output",
           "format_subagent_dispatch", "format_text_output"]


#: PEP 562: a name of the protocol package this path used to be.
__getattr__ = forwarded(__name__, "skills.lib.workflow.protocol")
