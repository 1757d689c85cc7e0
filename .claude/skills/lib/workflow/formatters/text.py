"""The original system's plain-text step: `format_text_output(step=, total=, title=, actions=,
brief=, next_title=)`, for skills whose steps are read as text rather than XML. It names no
command (the original signature has no script): the skill's instructions say how to go on.

Actions may hold the format_* pieces, as in XML; each prints as the text it stands for. Before
the framework was split into layers this path held the protocol's text renderer; its names
still resolve here (to `skills.lib.workflow.protocol.text`), with a DeprecationWarning."""

from collections.abc import Sequence
from typing import Any

from ..graph.model import Fragment, fragment_parts
from ..protocol.xml import clean


def format_text_output(step: int, total: int, title: str, actions: Sequence[str],
                       brief: str | None = None, next_title: str | None = None) -> str:
    """Step `step` of `total` as plain text: the title, the brief, the numbered actions (and
    what a step must not do or must produce), then what comes next, or, with `next_title`
    None, that this is the last step."""
    parts = fragment_parts(list(actions), banners=False)
    lines = [f"STEP {step} of {total}: {_one_line(title)}"]
    lines += [_one_line(a.part[1].text) for a in actions  # banners head the step
              if isinstance(a, Fragment) and a.part[0] == "banner"]
    if brief:
        lines += ["", clean(brief).strip()]
    lines += ["", "DO:"] + [f"{n}. {_text(a)}" for n, a in enumerate(parts["actions"], 1)]
    for fragment in (a for a in actions if isinstance(a, Fragment) and a.part[0] == "dispatch"):
        lines += ["", *_dispatch(fragment)]
    if parts["forbidden"]:
        lines += ["", "DO NOT:"] + [f"- {_one_line(item)}" for item in parts["forbidden"]]
    if parts["expect"]:
        lines += ["", "EXPECTED OUTPUT:", *(clean(e).strip() for e in parts["expect"])]
    lines += ["", _next(step, total, next_title)]
    return "\n".join(lines) + "\n"


def _dispatch(fragment: Fragment) -> list[str]:
    """A sub-agent dispatch as text: who to start and how, then each prompt, indented, to be
    passed on unchanged."""
    import xml.etree.ElementTree as ET

    node = ET.fromstring(str(fragment))
    lines = [f"SUB-AGENT ({node.get('agent')}): start one per prompt below, the prompt "
             "unchanged, and wait for every reply."]
    for prompt in node.findall("prompt"):
        lines += ["PROMPT:", *(f"   {line}".rstrip() for line in
                               (prompt.text or "").strip().splitlines())]
    return lines


def _next(step: int, total: int, next_title: str | None) -> str:
    if next_title is None:
        return "NEXT: this is the last step. Give the user the result."
    return (f"NEXT: step {min(step + 1, total)} of {total}, {_one_line(next_title)}. Go on to "
            "it when this step's actions are done.")


def _text(action: Any) -> str:
    """An action's text, its lines after the first indented under its number."""
    text = clean(str(getattr(action, "text", action))).strip()
    return "\n   ".join(text.splitlines())


def _one_line(text: str) -> str:
    return " ".join(clean(str(text)).split())


def __getattr__(name: str) -> Any:
    """PEP 562: a name of the protocol's text renderer, which this path used to be."""
    from ..protocol import text

    if name.startswith("__") or not hasattr(text, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    warnings.warn(f"{__name__}.{name} moved to skills.lib.workflow.protocol.text; import it "
                  "from there (the old path goes away in the next release)",
                  DeprecationWarning, stacklevel=2)
    return getattr(text, name)


__all__ = ["format_text_output"]
