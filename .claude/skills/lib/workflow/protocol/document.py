"""One step's view as the document a step script prints: XML (the protocol's form), or the
same as plain text or JSON (`--format`)."""

from __future__ import annotations

from .view import StepView


def render(view: StepView, fmt: str) -> str:
    """Serialize a StepView in the requested format."""
    from .xml import build_step, to_xml

    root = build_step(view)
    if fmt == "xml":
        return to_xml(root)
    from .text import to_json, to_text

    return to_json(root) if fmt == "json" else to_text(root)
