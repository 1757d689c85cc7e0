"""What each hook event decides while a run is active in the agent's session:

- PreToolUse: a tool outside the current step's allowed set is denied, the reason naming the
  step's next command(s); the run's own step scripts and `skillrail status|resume|pause` are
  always allowed, so are reading the skill's files and the conventions, AskUserQuestion on an
  ask_user step and the sub-agent tool on a dispatch step. Allowing is silence: an explicit
  "allow" would also skip the user's own permission prompts.
- Stop: an unfinished run blocks the end of the turn once (not while it waits for the user's
  answer; `stop_hook_active` and a paused run let it through).
- SessionStart (compact, resume): the run's current step, as plain context.
- UserPromptSubmit (and a user's answer in AskUserQuestion): a real user turn, for the ask_user
  gate (runs.py) and the run's audit.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from ..core import StepDef, Workflow, skill_folder
from ..errors import SkillrailError
from ..ledger import Run
from ..routing import resume_command, skillrail_command
from ..sessions import record_turn
from . import rules as R
from .payload import Payload, parse
from .shell import INTERPRETER, Simple, harmless_redirects, inside, program, script_run, split
from .state import next_commands, open_ledger, scoped_run, step_tools, workflow_of

Output = dict[str, Any] | None
#: skillrail commands that read or pause a run: always allowed.
_SAFE = ("status", "resume", "pause")
#: How much of a user's prompt the run's audit keeps.
MAX_TURN_TEXT = 2_000


def respond(event: str, raw: bytes | str) -> str:
    """The hook's stdout for one payload: the decision as JSON, or '' to let things be."""
    p = parse(raw, event)
    if p is None:
        note("the payload is not a JSON object with a session_id; letting the action through")
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


def note(text: str) -> None:
    sys.stderr.write(f"skillrail hook: {text}\n")


def pre_tool_use(p: Payload) -> Output:
    ledger = open_ledger()
    if ledger is None:
        return None
    with ledger:
        run = scoped_run(ledger, p)
        if run is None:
            return None
        folder = skill_folder(run.script)
        command = p.tool_input.get("command") if p.tool == "Bash" else None
        simples = split(command) if isinstance(command, str) else None
        if simples and all(_own(s, folder, p.cwd) for s in simples):
            return None  # step scripts need no workflow loaded: the common case stays fast
        workflow = workflow_of(run)
        step = workflow.by_id.get(run.step) if workflow is not None else None
        texts = step_tools(step, folder) if step is not None else None
        if workflow is None or step is None or texts is None:
            return None
        allowed = R.parse(texts)
        if _allowed(allowed, step, p, simples, folder):
            return None
        shown = ", ".join(map(str, allowed))
        reason = (f"skillrail: run {run.id} ({workflow.name}) is at step '{step.id}' "
                  f"({step.title}), which allows {f'{shown}, besides' if shown else 'only'} "
                  f"the run's own step scripts and `skillrail status|resume`; "
                  f"{_what(p, simples)} is not among them.\n"
                  + _next_text(workflow, run))
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                       "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}


def _own(simple: Simple, folder: str, cwd: str) -> bool:
    """A step script of the run's skill, a skillrail command that reads or pauses a run, or a
    `cd`: fine in any step, as long as it writes nothing through a redirection."""
    words = program(simple)
    if not words or not harmless_redirects(simple):
        return False
    name = os.path.basename(words[0])
    safe = ((name == "skillrail" and words[1:2] in [(s,) for s in _SAFE])
            or (INTERPRETER.fullmatch(name) is not None
                and words[1:3] == ("-m", "skills.lib.workflow.commands")
                and words[3:4] in [(s,) for s in _SAFE]))
    return safe or name == "cd" or script_run(simple, folder, cwd)


def _allowed(allowed: tuple[R.Rule, ...], step: StepDef, p: Payload,
             simples: list[Simple] | None, folder: str) -> bool:
    if p.tool == "AskUserQuestion" and step.ask_user is not None:
        return True
    if p.tool in R.FAMILIES["Agent"] and step.dispatch is not None:
        return True
    if p.tool in R.FAMILIES["Read"] and _reads_guidance(p, folder):
        return True
    if p.tool != "Bash":
        return R.allows_call(allowed, p.tool, p.tool_input, p.cwd)
    if R.bare_bash(allowed):
        return True
    return simples is not None and all(_own(s, folder, p.cwd) or R.allows_bash(allowed, s)
                                       for s in simples)


def _reads_guidance(p: Payload, folder: str) -> bool:
    """Reading the skill's own files (the resources a step lists) or the shared conventions:
    part of following any step."""
    from ..conventions import CONVENTIONS_DIR

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
    ledger = open_ledger()
    if ledger is None:
        return None
    with ledger:
        run = scoped_run(ledger, p)
        workflow = workflow_of(run) if run is not None else None
        if run is None or workflow is None or workflow.by_id[run.step].ask_user is not None:
            return None  # an ask_user step waits for the user: ending the turn is right
        step = workflow.by_id[run.step]
        reason = (f"skillrail: run {run.id} ({workflow.name}) is not finished: it is at step "
                  f"{workflow.position(step.id)} of {len(workflow.steps)}, '{step.id}' "
                  f"({step.title}). " + _next_text(workflow, run)
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
        from ..runs import reprint

        step = workflow.by_id[run.step]
        context = (f"A skillrail run is active in this session: run {run.id} of workflow "
                   f"'{workflow.name}' (skill '{run.skill}'), at step "
                   f"{workflow.position(step.id)} of {len(workflow.steps)}, '{step.id}' "
                   f"({step.title}). Its current step, as the step script prints it:\n\n"
                   + reprint(ledger, run.id))
        return {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                       "additionalContext": context}}


def user_turn(p: Payload) -> Output:
    ledger = open_ledger(create=True)  # the first prompt may come before the first run
    if ledger is not None:
        with ledger:
            record_turn(ledger, p.session, p.prompt[:MAX_TURN_TEXT])
    return None


def answered(p: Payload) -> Output:
    """The user answered an AskUserQuestion: a user turn as well. Only a real answer counts
    (an empty or '.' one comes from a tool call nobody answered)."""
    if p.tool != "AskUserQuestion":
        return None
    pairs = [(str(q), a) for source in (p.tool_response, p.tool_input)
             if isinstance(source, dict) and isinstance(source.get("answers"), dict)
             for q, a in source["answers"].items()
             if isinstance(a, str) and a.strip() not in ("", ".")]
    if pairs:
        text = "answered in AskUserQuestion: " + "; ".join(f"{q} -> {a}" for q, a in pairs)
        user_turn(p._replace(prompt=text))
    return None


_HANDLERS: dict[str, Callable[[Payload], Output]] = {
    "PreToolUse": pre_tool_use, "Stop": stop, "SessionStart": session_start,
    "UserPromptSubmit": user_turn, "UserPromptExpansion": user_turn, "PostToolUse": answered,
}
