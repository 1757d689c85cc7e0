"""The protocol layer: the XML step protocol's constants and schema, the views of a step, and
the serializers that draw them (XML, text, JSON). It imports `graph` and `base`."""

from __future__ import annotations

from typing import TYPE_CHECKING

# `skills.lib.workflow.protocol` was the module of the constants: its names stay here.
from .constants import MANDATE, MEMORY_NOTE, PROTOCOL_VERSION, SCHEMA_PATH

if TYPE_CHECKING:
    from .view import StepView

__all__ = ["MANDATE", "MEMORY_NOTE", "PROTOCOL_VERSION", "SCHEMA_PATH", "render"]


def render(view: StepView, fmt: str) -> str:
    """A step's view as the document a step script prints: XML (the protocol's form), or the
    same as plain text or JSON (`--format`)."""
    from .xml import build_step, to_xml

    root = build_step(view)
    if fmt == "xml":
        return to_xml(root)
    from .text import to_json, to_text

    return to_json(root) if fmt == "json" else to_text(root)
