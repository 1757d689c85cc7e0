"""Step text made concrete before it is printed: variables (`${SKILL_DIR}`, `$ARGUMENTS`, ...)
substituted, and `` !`cmd` `` commands run through the gateway, their output shown in a
`<context>` element (PROTOCOL.md section 2, DESIGN.md section 6).

Only the author's static texts are expanded (actions, questions, resources, expected output,
the completion text). A text computed at run time may hold values the agent reported, so it is
shown exactly as it is returned: a value can never become a variable or a command. A step
without `$` or `` !` `` in its texts costs one scan and imports nothing more.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Mapping

from .core import StepContext
from .formatters.view import (
    ActionView,
    AskUserView,
    ContextView,
    DoItem,
    ExpectedView,
    ForbiddenView,
    ResourceView,
    StepView,
)

#: `$${NAME}` (an escaped, literal `${NAME}`), `${NAME}`, `$ARGUMENTS` or `$ARGUMENTS[N]`.
VARIABLE = r"\$(\$\{[A-Za-z_]\w*\})|\$\{([A-Za-z_]\w*)\}|\$ARGUMENTS(?:\[(\d+)\])?"
#: `` !`cmd` ``: a command whose output the step shows.
INJECTION = r"!`([^`\n]+)`"
# Both are compiled (by `re`'s cache) only when a text holds a `$` or a `` !` ``: most steps
# hold neither, and every step invocation would pay for compiling them at import.
#: Names Claude Code gives the same values, accepted so a SKILL.md reads the same in both.
ALIASES = {"CLAUDE_SKILL_DIR": "SKILL_DIR", "CLAUDE_SESSION_ID": "SESSION_ID"}
NAMES = ("ARGUMENTS", "SKILL_DIR", "SESSION_ID", "WORKSPACE", "DATE", "USER")


def variables(skill_dir: str, run: str | None, arguments: str = "",
              workspace: str | None = None) -> dict[str, str]:
    """The values of the substitution variables."""
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    if not user:
        import getpass

        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "unknown"
    return {"ARGUMENTS": arguments, "SKILL_DIR": skill_dir, "SESSION_ID": run or "",
            "WORKSPACE": workspace or os.path.realpath(os.getcwd()),
            "DATE": time.strftime("%Y-%m-%d"), "USER": user}


class Substituter:
    """Puts variable values into texts; an unknown `${NAME}` stays as written, with one warning
    per name on stderr (a typo should be visible, never fatal)."""

    def __init__(self, values: Mapping[str, str], where: str) -> None:
        self.values, self.where, self.warned = dict(values), where, set[str]()

    def __call__(self, text: str) -> str:
        if "$" not in text:
            return text
        return re.sub(VARIABLE, self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        escaped, name, index = match.groups()
        if escaped:
            return escaped
        if name is None:  # $ARGUMENTS or $ARGUMENTS[N]
            whole = self.values.get("ARGUMENTS", "")
            return whole if index is None else _word(whole, int(index))
        name = ALIASES.get(name, name)
        if name in self.values:
            return self.values[name]
        if name not in self.warned:
            self.warned.add(name)
            sys.stderr.write(f"warning: unknown variable ${{{name}}} ({self.where}); it is "
                             f"shown as written. Known: {', '.join(NAMES)}\n")
        return match.group()


def _word(arguments: str, index: int) -> str:
    import shlex

    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    return words[index] if index < len(words) else ""


def expand_document(text: str, substitute: Substituter) -> str:
    """A SKILL.md body or resource: substituted, with the arguments appended under an
    'ARGUMENTS:' line when the text never uses $ARGUMENTS (as Claude Code does)."""
    arguments = substitute.values.get("ARGUMENTS", "")
    out = substitute(text)
    if arguments and "$ARGUMENTS" not in text:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {arguments}\n"
    return out


def expand_view(ctx: StepContext, view: StepView, skill_dir: str) -> StepView:
    """`view` with its author texts substituted and its `` !`cmd` `` commands run."""
    texts = [view.complete or "", *(_texts(item) for item in view.do)]
    if not any("$" in t or "!`" in t for t in texts):
        return view
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
