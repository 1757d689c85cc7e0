"""Step text made concrete before it is printed: variables (`${SKILL_DIR}`, `$ARGUMENTS`, ...)
substituted, and `` !`cmd` `` commands run through the gateway, their output shown in a
`<context>` element (PROTOCOL.md section 2, docs/gateway.md).

Only the author's static texts are expanded (actions, questions, resources, expected output,
the completion text). A text computed at run time may hold values the agent reported, so it is
shown exactly as it is returned: a value can never become a variable or a command. A step
without `$` or `` !` `` in its texts costs one scan and imports nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..graph.model import StepContext
from ..protocol.view import (
    ActionView,
    AskUserView,
    ContextView,
    DoItem,
    ExpectedView,
    ForbiddenView,
    ResourceView,
    StepView,
)

if TYPE_CHECKING:  # loaded by the steps that have something to substitute
    from ..authoring.substitution import Substituter


def expand_view(ctx: StepContext, view: StepView, skill_dir: str) -> StepView:
    """`view` with its author texts substituted and its `` !`cmd` `` commands run."""
    texts = [view.complete or "", *(_texts(item) for item in view.do)]
    if not any("$" in t or "!`" in t for t in texts):
        return view
    from ..authoring.substitution import Substituter, variables

    values = variables(skill_dir, ctx.run, ctx.params.get("arguments", ""))
    substitute = Substituter(values, f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'")
    injector = _Injector(ctx, skill_dir, substitute)
    do = [_expand(item, substitute, injector) for item in view.do]
    complete = substitute(view.complete) if view.complete is not None else None
    return view._replace(do=tuple(injector.contexts) + tuple(do), complete=complete)


def _texts(item: DoItem) -> str:
    if isinstance(item, ActionView):
        return "" if item.literal else item.text
    if isinstance(item, ExpectedView):
        return item.text
    if isinstance(item, AskUserView):
        return ("" if item.literal else item.question) + "".join(t for _, t in item.options)
    if isinstance(item, ResourceView):
        return item.content or ""
    if isinstance(item, ForbiddenView):
        return "".join(item.items)
    return ""


def _expand(item: DoItem, sub: Callable[[str], str], injector: _Injector) -> DoItem:
    if isinstance(item, ActionView):
        return item if item.literal else item._replace(text=injector(item.text))
    if isinstance(item, ExpectedView):
        return item._replace(text=sub(item.text))
    if isinstance(item, AskUserView):
        return item._replace(question=item.question if item.literal else sub(item.question),
                             options=tuple((o, sub(label)) for o, label in item.options))
    if isinstance(item, ResourceView) and item.content is not None:
        return item._replace(content=sub(item.content))
    if isinstance(item, ForbiddenView):
        return item._replace(items=tuple(sub(t) for t in item.items))
    return item


class _Injector:
    """Replaces each `` !`cmd` `` of a text by a pointer to its `<context>`, running the
    command (through the gateway, cached per run) the first time it is met."""

    def __init__(self, ctx: StepContext, skill_dir: str, substitute: Substituter) -> None:
        self.ctx, self.skill_dir, self.substitute = ctx, skill_dir, substitute
        self.contexts: list[ContextView] = []

    def __call__(self, text: str) -> str:
        """Substitute the text around the commands; a command gets its variables word by word
        in the gateway, after splitting, so a value can never become syntax."""
        from ..authoring.substitution import INJECTION

        pieces = re.split(INJECTION, text)  # text, command, text, command, ..., text
        return "".join(self.substitute(p) if n % 2 == 0 else self._inject(p)
                       for n, p in enumerate(pieces))

    def _inject(self, command: str) -> str:
        from .injection import context_name, injected

        template = command.strip()
        name = context_name(template, {c.name for c in self.contexts})
        self.contexts.append(injected(self.ctx, template, name, self.skill_dir,
                                      self.substitute))
        return f"`{template}` (output in the context '{name}' above)"
