"""The forms of the original system that a StepDef takes in: actions holding the pieces the
format_* functions make (`Fragment`s, each becoming the step's own part), and a `Dispatch` given
as the handler (the step handed to a sub-agent whose verdict picks the outcome). StepDef applies
them when it is made; `check_pieces` (W019) refuses what cannot be placed."""

from collections.abc import Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..base.errors import Finding
from .types import Action, Dispatch, Text

if TYPE_CHECKING:
    from .context import StepContext
    from .step import StepDef
    from .workflow import Workflow


class Fragment(str):
    """A piece of protocol markup made by a format_* function (formatters/). It prints as
    well-formed XML (it is a str, as the original functions returned), and remembers what it
    stands for, so actions may hold it: `part` is (kind, value), kind one of 'action',
    'forbidden', 'expect', 'dispatch', 'banner' (whose value is the banner as the protocol
    layer draws it)."""

    part: tuple[str, Any]

    def __new__(cls, markup: str, kind: str, value: Any) -> "Fragment":
        made = super().__new__(cls, markup)
        made.part = (kind, value)
        return made


def fragment_parts(actions: "tuple[Action | str, ...] | list[Any]",
                   banners: bool) -> dict[str, list[Any]]:
    """Sort actions that may hold format_* pieces into the StepDef parts they stand for:
    'actions', 'forbidden', 'expect' and 'dispatch'. A banner becomes an action when `banners`,
    else it is dropped (a review loop draws its own)."""
    parts: dict[str, list[Any]] = {"actions": [], "forbidden": [], "expect": [], "dispatch": []}
    for item in actions:
        if not isinstance(item, Fragment):
            parts["actions"].append(item)
            continue
        kind, value = item.part
        if kind == "forbidden":
            parts["forbidden"].extend(value)
        elif kind in ("expect", "dispatch"):
            parts[kind].append(value)
        elif kind == "action":
            parts["actions"].append(value)
        elif kind == "banner" and banners:  # its value is the banner's view: keep its text
            parts["actions"].append(getattr(value, "text", str(value)))
    return parts


def with_fragments(step: "StepDef") -> "StepDef":
    """Actions holding format_* pieces: each piece becomes the step's own part. With more than
    one dispatch the pieces stay where they are, for validation to refuse (W019)."""
    parts = fragment_parts(step.actions, banners=True)
    if len(parts["dispatch"]) + (step.dispatch is not None) > 1:
        return step
    return step._replace(actions=tuple(parts["actions"]),
                         forbidden=step.forbidden + tuple(parts["forbidden"]),
                         expect="\n".join(filter(None, [step.expect, *parts["expect"]])),
                         dispatch=step.dispatch or (parts["dispatch"] or [None])[0])


#: The word a sub-agent answers with for each standard outcome of a dispatching step.
_VERDICT = {"ok": "PASS", "fail": "FAIL"}


def handed_over(step: "StepDef") -> "StepDef":
    """`handler=Dispatch(...)`: the sub-agent does the step's actions (its brief, unless the
    Dispatch gives a prompt) and answers with a verdict word per outcome; the orchestrator
    relays the verdict by choosing that outcome's command."""
    dispatch = step.handler
    assert isinstance(dispatch, Dispatch)
    words = {o: _VERDICT.get(o, o.upper()) for o in step.next}
    actions = step.actions if dispatch.prompt else ()
    brief = dispatch.prompt or _brief_of(step.actions, step.title)
    expect = dispatch.expect or (f"First line: {' or '.join(words.values())}; then what you "
                                 "found, with file paths")
    when = {o: f"the sub-agent's verdict is {w}" for o, w in words.items()} | dict(step.when)
    return step._replace(handler=None, actions=actions, when=MappingProxyType(when),
                         dispatch=dispatch._replace(prompt=brief, expect=expect))


def _brief_of(actions: tuple[Action | str, ...], title: str) -> Text:
    """The step's actions as a sub-agent's brief (rendered when the step is printed)."""
    def brief(ctx: "StepContext") -> str:
        texts = [_text(a.text if isinstance(a, Action) else a, ctx) for a in actions]
        return "\n".join(t.strip() for t in texts if t.strip()) or title

    return brief


def _text(text: Text, ctx: "StepContext") -> str:
    return text(ctx) if callable(text) else text


def check_pieces(wf: "Workflow", _: object) -> Iterator[Finding]:
    """W019: format_* pieces left in a step's actions: they could not become the step's own
    parts, because the step would dispatch more than once."""
    for step in wf.steps:
        if any(isinstance(a, Fragment) for a in step.actions):
            yield Finding("W019", wf.name, "the actions hold more than one sub-agent dispatch "
                          "(format_subagent_dispatch, or one beside dispatch=)", step.id,
                          fix="Dispatch once per step, or use Dispatch(items=...) for "
                              "parallel sub-agents")
