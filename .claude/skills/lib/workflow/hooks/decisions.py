"""What each hook event decides while a run is active in the agent's session:

- PreToolUse: a tool outside the current step's allowed set is denied, the reason naming the
  step's next command(s); the run's own step scripts and `skillrail status|resume|show|pause`
  are always allowed, so are reading the skill's files and the conventions, AskUserQuestion on an
  ask_user step and the sub-agent tool on a dispatch step. Allowing is silence: an explicit
  "allow" would also skip the user's own permission prompts.
- Stop: an unfinished run blocks the end of the turn once (not while it waits for the user's
  answer; `stop_hook_active` and a paused run let it through).
- SessionStart (compact, resume): the run's current step, as plain context.
- UserPromptSubmit, PostToolUse: the evidence of the ask_user gate (turns.py).

Before all that, PreToolUse refuses the cheap ways around the gate and trust in every session
(refusals.py), and `skillrail pause` of a run that waits for the user's answer. Each refusal is an
event of the session's active run, shown by `skillrail trace`.
"""

from __future__ import annotations

import json
import os
import sys

from ..base.errors import SkillrailError
from ..ledger.sessions import audit, main_run
from . import refusals
from .payload import Payload, parse, patched_files
from .state import (
    first_shape,
    next_commands,
    open_ledger,
    scoped_run,
    seen_in,
    shape_of,
    workflow_of,
)
from .turns import MAX_TURN_TEXT, after_tool, user_turn

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..graph.model import StepDef, Workflow
    from ..guard.rules import Rule
    from ..guard.shell import Simple
    from ..ledger.store import Ledger, Run
    from .turns import Output

# What a hook imports is what its answer needs: most tool calls are in a session with no run,
# or are a run's own step command, and those never load a workflow. So the graph, the rules of
# a step's tools, the shell reader (for a Bash command) and what watches a run load in the
# function that first needs them.

#: skillrail commands that read or pause a run: always allowed (a step may name `show` for the
#: rest of a long value it shows the head of).
_SAFE = ("status", "resume", "show", "pause")


def respond(event: str, raw: bytes | str, client: str = "claude") -> str:
    """The hook's stdout for one payload: the decision as JSON, or '' to let things be.
    `client` "gemini": Gemini CLI's event, read and answered as Gemini has them (gemini.py)."""
    if client == "gemini":
        return _for_gemini(event, raw)
    p = parse(raw, event)
    if isinstance(p, str):
        note(f"{p}; letting the action through")
        return ""
    handler = _HANDLERS.get(p.event)
    if handler is None:
        return ""
    try:
        out = handler(p)
    except SkillrailError as exc:  # a busy, damaged or newer ledger: never block the agent
        note(exc.summary())
        return ""
    return json.dumps(out) if out else ""


def _for_gemini(event: str, raw: bytes | str) -> str:
    from . import gemini

    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return respond(gemini.event_of(event), raw)  # parse says what is wrong with it
    out = respond(gemini.event_of(event), json.dumps(gemini.as_claude(data)))
    answered = gemini.answer(json.loads(out)) if out else None
    return json.dumps(answered) if answered else ""


def note(text: str) -> None:
    sys.stderr.write(f"skillrail hook: {text}\n")


def pre_tool_use(p: Payload) -> Output:
    command = p.tool_input.get("command") if p.tool == "Bash" else None
    simples = _split(command) if isinstance(command, str) else None
    refused = refusals.refusal(p, command if isinstance(command, str) else None, simples)
    ledger = open_ledger()
    if ledger is None:
        return _deny(refused) if refused else None
    with ledger:
        if refused:
            return _refuse(ledger, p, refused)
        if simples:
            from .watch import step_command

            held = _pause_held(ledger, p, simples) or step_command(ledger, p, simples)
            if held:
                return _refuse(ledger, p, held)
        run = scoped_run(ledger, p)
        if run is None:
            return None
        from ..base.paths import skill_folder
        from ..ledger.workspace import script_here

        folder = skill_folder(script_here(run.script, run.workspace))  # a teammate's run
        if simples and all(_own(s, folder, p.cwd) for s in simples):
            return None  # step scripts need no workflow loaded: the common case stays fast
        return _held_to_step(run, p, simples, folder)


def _held_to_step(run: Run, p: Payload, simples: list[Simple] | None, folder: str) -> Output:
    """Deny a tool the run's step does not allow. The step's rules come from the run's shape
    as the hooks first saw it (state.first_shape): no workflow is loaded for a tool allowed,
    and a script edited since cannot widen them. A run seen before shapes held the rules is
    judged by its workflow's shape taken now; so is one whose script is gone or changed since
    it began (it cannot go on: nothing is denied)."""
    from ..guard.rules import parse as rules

    shape = first_shape(run)
    workflow = None
    if shape is None or shape.tools is None:
        workflow = workflow_of(run)
        if workflow is None:
            return None
        shape = shape_of(workflow, folder)
    texts = (shape.tools or {}).get(run.step)
    if texts is None:
        return None
    allowed = rules(texts)
    if _allowed(allowed, run.step in shape.asks, run.step in shape.dispatches, p, simples,
                folder):
        return None
    workflow = workflow or workflow_of(run)  # to name the step and its next commands
    step = workflow.by_id.get(run.step) if workflow is not None else None
    if workflow is None or step is None:
        return None  # its script is gone or changed: the run cannot go on, nothing to hold
    return _deny(_outside_step(allowed, workflow, run, step, p, simples))


def _outside_step(allowed: tuple[Rule, ...], workflow: Workflow, run: Run, step: StepDef,
                  p: Payload, simples: list[Simple] | None) -> str:
    """Why a tool the step does not allow is denied, and what to run instead."""
    shown = ", ".join(map(str, allowed))
    return (f"skillrail: run {run.id} ({workflow.name}) is at step '{step.id}' "
            f"({step.title}), which allows {f'{shown}, besides' if shown else 'only'} "
            f"the run's own step scripts and `skillrail status|resume|show`; "
            f"{_what(p, simples)} is not among them.\n" + _next_text(workflow, run))


def _deny(reason: str) -> Output:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                   "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def _refuse(ledger: Ledger, p: Payload, why: str) -> Output:
    """Deny, and keep the attempt in the trace of the session's active runs."""
    what = _what(p, _split(str(p.tool_input.get("command", ""))) if p.tool == "Bash" else None)
    audit(ledger, p.session, "refused", f"{what}: {why}"[:MAX_TURN_TEXT], seen_in(p.session))
    return _deny(f"skillrail: refused, because {why}.")


def _pause_held(ledger: Ledger, p: Payload, simples: list[Simple]) -> str | None:
    """`skillrail pause RUN` while RUN waits for the user's answer: pausing would quiet the
    hooks that keep the agent from answering for them."""
    from ..guard.shell import program

    for simple in simples:
        words = program(simple)
        at = next((i for i, w in enumerate(words) if w == "pause"), None)
        named = words[at + 1] if at is not None and at + 1 < len(words) else None
        if at is None or not _is_skillrail(words[:at]):
            continue
        run = ledger.run(named) if named else main_run(ledger, p.session)
        workflow = workflow_of(run) if run is not None and run.status == "active" else None
        if run is not None and workflow is not None and \
                workflow.by_id[run.step].ask_user is not None:
            return (f"run {run.id} waits for the user's answer at step '{run.step}', and a "
                    "pause would quiet the hooks meanwhile: ask the user and end your turn")
    return None


def _split(command: str) -> list[Simple] | None:
    from ..guard.shell import split

    return split(command)


def _is_skillrail(words: tuple[str, ...]) -> bool:
    from ..guard.shell import interpreter

    return (len(words) == 1 and os.path.basename(words[0]) == "skillrail") or (
        len(words) == 3 and interpreter(os.path.basename(words[0]))
        and words[1:] == ("-m", "skills.lib.workflow.commands"))


def _own(simple: Simple, folder: str, cwd: str) -> bool:
    """A step script of the run's skill, a skillrail command that reads or pauses a run, or a
    `cd`: fine in any step, as long as it writes nothing through a redirection."""
    from ..guard.shell import harmless_redirects, interpreter, program, script_run

    words = program(simple)
    if not words or not harmless_redirects(simple):
        return False
    name = os.path.basename(words[0])
    safe = ((name == "skillrail" and words[1:2] in [(s,) for s in _SAFE])
            or (interpreter(name)
                and words[1:3] == ("-m", "skills.lib.workflow.commands")
                and words[3:4] in [(s,) for s in _SAFE]))
    return safe or name == "cd" or script_run(simple, folder, cwd)


def _allowed(allowed: tuple[Rule, ...], asks: bool, dispatches: bool, p: Payload,
             simples: list[Simple] | None, folder: str) -> bool:
    """Whether the step allows the call: by its rules, or as part of any step (its question
    on an ask_user step, sub-agents on a dispatch step, reading the skill's own files)."""
    from ..guard import rules as R

    if p.tool == "AskUserQuestion" and asks:
        return True
    if p.tool in R.FAMILIES["Agent"] and dispatches:
        return True
    if p.tool in R.FAMILIES["Read"] and _reads_guidance(p, folder):
        return True
    patched = patched_files(p)
    if patched is not None:  # Codex's edit: allowed where Edit is allowed on every file
        return bool(patched) and all(R.allows_call(allowed, "Edit", {"file_path": f}, p.cwd)
                                     for f in patched)
    if p.tool != "Bash":
        return R.allows_call(allowed, p.tool, p.tool_input, p.cwd)
    if R.bare_bash(allowed):
        return True
    return simples is not None and all(_own(s, folder, p.cwd) or R.allows_bash(allowed, s)
                                       for s in simples)


def _reads_guidance(p: Payload, folder: str) -> bool:
    """Reading the skill's own files (the resources a step lists) or the shared conventions:
    part of following any step."""
    from ..base.paths import CONVENTIONS_DIR
    from ..guard.shell import inside

    path = next((p.tool_input[k] for k in ("file_path", "notebook_path", "path")
                 if isinstance(p.tool_input.get(k), str)), None)
    return path is not None and any(inside(path, place, p.cwd)
                                    for place in (folder, CONVENTIONS_DIR))


def _what(p: Payload, simples: list[Simple] | None) -> str:
    if p.tool == "Bash":
        command = str(p.tool_input.get("command", ""))
        text = command if len(command) <= 120 else command[:117] + "..."
        unread = "" if simples is not None else (" (it uses shell expansion or grouping, "
                                                 "which only a plain Bash rule allows)")
        return f"the Bash command `{text}`{unread}"
    path = next((str(p.tool_input[k]) for k in ("file_path", "notebook_path", "path", "url")
                 if k in p.tool_input), "")
    return f"{p.tool} on {path}" if path else f"the tool {p.tool}"


def _next_text(workflow: Workflow, run: Run) -> str:
    """The step's next command(s), as its `<NEXT>` prints them, and how to see the step."""
    from ..step.routing import resume_command

    commands = next_commands(workflow, run)
    resume = resume_command(workflow, run.id)
    if not commands:
        return f"The step's script decides what comes next; to see the step, run:\n{resume}"
    if len(commands) == 1:
        text = f"When the step's work is done, run its next command:\n{commands[0][1]}"
    else:
        text = ("When the step's work is done, run the one of its next commands whose "
                "condition holds:\n" + "\n".join(f"- {when}: {cmd}" for when, cmd in commands))
    return text + f"\nThis reprints the step with the --set values each command needs: {resume}"


def stop(p: Payload) -> Output:
    if p.stop_active or p.agent is not None:
        return None
    from .watch import stop_notice

    told = stop_notice(p)
    if told is not None:  # the user hears of a tampered run; the agent is not held back
        return {"systemMessage": told}
    ledger = open_ledger()
    if ledger is None:
        return None
    with ledger:
        run = scoped_run(ledger, p)
        workflow = workflow_of(run) if run is not None else None
        if run is None or workflow is None or workflow.by_id[run.step].ask_user is not None:
            return None  # an ask_user step waits for the user: ending the turn is right
        from ..step.routing import skillrail_command

        step = workflow.by_id[run.step]
        # The step by id and title, no 'n of total': the workflow's length is not the run's
        # (protocol 1.1 dropped `total` for that), and a title may hold a count of its own.
        reason = (f"skillrail: run {run.id} ({workflow.name}) is not finished: it is at step "
                  f"'{step.id}' ({step.title}). " + _next_text(workflow, run)
                  + "\nIf the user asked to stop here, end your turn again; "
                  f"`{skillrail_command('pause', run.id)}` keeps skillrail's hooks out of the "
                  "way until the run goes on.")
        return {"decision": "block", "reason": reason}


def session_start(p: Payload) -> Output:
    if p.source not in ("compact", "resume") or p.agent is not None:
        return None
    ledger = open_ledger()
    if ledger is None:
        return None
    with ledger:
        run = scoped_run(ledger, p)
        workflow = workflow_of(run) if run is not None else None
        if run is None or workflow is None:
            return None
        from ..step.resume import reprint

        step = workflow.by_id[run.step]
        context = (f"A skillrail run is active in this session: run {run.id} of workflow "
                   f"'{workflow.name}' (skill '{run.skill}'), at step '{step.id}' "
                   f"({step.title}). Its current step, as the step script prints it:\n\n"
                   + reprint(ledger, run.id))
        return {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                       "additionalContext": context}}


_HANDLERS: dict[str, Callable[[Payload], Output]] = {
    "PreToolUse": pre_tool_use, "Stop": stop, "SessionStart": session_start,
    "UserPromptSubmit": user_turn, "UserPromptExpansion": user_turn, "PostToolUse": after_tool,
}
