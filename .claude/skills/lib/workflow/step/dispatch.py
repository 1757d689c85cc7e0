"""Sub-agent dispatch (PROTOCOL.md section 4): resolve a step's `Dispatch` into the verbatim
prompt(s) the orchestrator passes on unchanged. The prompt carries everything the sub-agent
needs: the brief, the variables, the command to start with (a sub-run linked to this run) and the
reply format, so every run gives the sub-agent the same input."""

import os
import shlex
from collections.abc import Callable, Sequence

from ..graph.model import USER_WORDS, Dispatch, StepContext, render_text
from ..protocol.view import ActionView, DispatchView
from .routing import interpreter

#: How to act on a dispatch, with or without a tool for sub-agents, is said once, in the full
#: mandate of a workflow that dispatches (protocol/constants.py DISPATCH_RULES).

#: The sub-agent that reviews work, and the variable it gets the user's own words in (the
#: request as typed, graph/model.py USER_WORDS), beside the agent's restatement.
REVIEWER, USER_REQUEST = "quality-reviewer", "USER_REQUEST"


def script_of(skill_dir: str, dispatch: Dispatch) -> str | None:
    """The absolute path of the sub-agent's step script, or None in free-form mode."""
    return os.path.join(skill_dir, dispatch.script) if dispatch.script else None


def subagent_command(script: str, run: str | None, flags: Sequence[str] = (),
                     fix: bool = False) -> str:
    """How the sub-agent starts: the script's first step, with `flags` (its params), as a
    sub-run of `run` when there is one (stateless otherwise); `fix`: a fix pass's sub-run,
    which holds the findings to fix."""
    link = (["--parent", run] + (["--fix"] if fix else [])) if run else ["--stateless"]
    return shlex.join([interpreter(), script, "--step", "1", *flags, *link])


def build_dispatch(ctx: StepContext, dispatch: Dispatch, skill_dir: str,
                   command: str | None = None) -> DispatchView | ActionView:
    """The dispatch's view; `command` replaces the sub-agent's start command (a sub-script of
    the original shape starts with its own flags)."""
    script = script_of(skill_dir, dispatch)
    flags = [f"--{name}={render_text(value, ctx)}" for name, value in dispatch.params.items()]
    # A fix pass a sub-run of this run does holds its findings there (runs.py); otherwise the
    # prompt carries them (authoring/qr.py).
    fix = (render_text(dispatch.fix, ctx) if dispatch.fix is not None and script and ctx.run
           and command is None else "")
    cmd = command or (subagent_command(script, ctx.run, flags, bool(fix)) if script else None)
    # A variable whose function returns None does not apply this time: it is left out.
    variables = tuple((k, text) for k, v in dispatch.vars.items()
                      if (text := v(ctx) if callable(v) else v) is not None)
    brief = render_text(dispatch.prompt, ctx)
    items = dispatch.items(ctx) if dispatch.items is not None else None
    agent = render_text(dispatch.agent, ctx)
    words = ctx.values.get(USER_WORDS)
    if words and agent == REVIEWER and USER_REQUEST not in dispatch.vars:
        variables += ((USER_REQUEST, words),)
        brief += (f" {USER_REQUEST} is the request in the user's own words: where the work "
                  "departs from it, that is a finding.")
    if items == []:  # nothing pending: there is no one to start
        return ActionView(f"No {agent} sub-agent to start this time: no item is "
                          "pending. Run the command below.")
    prompts: tuple[tuple[str | None, str], ...]
    if items is not None:
        prompts = tuple((str(n), _prompt(brief, variables, cmd, dispatch.expect, item))
                        for n, item in enumerate(items, 1))
    else:
        prompts = ((None, _prompt(brief, variables, cmd, dispatch.expect, None)),)
    return DispatchView(
        agent=agent, mode="script" if script else "free-form", context=dispatch.context,
        prompts=prompts,
        model=render_text(dispatch.model, ctx) or None if dispatch.model is not None else None,
        instances=len(prompts) if items is not None else dispatch.instances,
        required=dispatch.required, fix=fix or None)


def _prompt(brief: str, variables: tuple[tuple[str, str], ...], cmd: str | None, expect: str,
            item: str | None) -> str:
    parts = [brief]
    if item is not None:
        parts.append(f"Your item: {item}")
    if variables:
        parts.append("Variables:\n" + "\n".join(f"- {k}: {v}" for k, v in variables))
    if cmd is not None:
        parts.append(f"First run this command and follow the steps it prints, to the end: {cmd}")
    parts.append(f"Reply with: {expect}")
    return "\n\n".join(parts)


def value_of(key: str) -> Callable[[StepContext], str]:
    """A dispatch variable (or any text) taken from run memory: the value reported for `key`,
    or "" before one is. `Dispatch(..., vars={"PLAN": value_of("PLAN_FILE")})`."""
    return lambda ctx: ctx.values.get(key, "")


def each_line(key: str) -> Callable[[StepContext], list[str]]:
    """Dispatch items: one sub-agent per non-empty line of the value reported for `key`
    (list markers stripped; a value of 'none' gives no item).
    `Dispatch(..., items=each_line("AREAS"))` starts one sub-agent per area the agent listed."""
    return lambda ctx: [item for item in (line.strip(" -*\t")
                                          for line in ctx.values.get(key, "").splitlines())
                        if item and item.lower() != "none"]


def each_paragraph(key: str) -> Callable[[StepContext], list[str]]:
    """Dispatch items: one sub-agent per blank-line-separated paragraph of the value reported
    for `key` (a value without blank lines gives one item per line)."""
    def items(ctx: StepContext) -> list[str]:
        text = ctx.values.get(key, "").strip()
        if "\n\n" not in text:
            return each_line(key)(ctx)
        return [part.strip() for part in text.split("\n\n")
                if part.strip() and part.strip().lower() != "none"]
    return items
