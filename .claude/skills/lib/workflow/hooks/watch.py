"""What the hooks watch of runs, and record in the evidence store, so that a run's ledger (which
the agent's Bash can write) is judged against what the hooks saw rather than believed:

- every step document a Bash command printed (PostToolUse): its run is seen, hence binding
  for life (askgate.py), with its workflow's shape as it is then; a question it puts is timed;
  a step printed at a position the ledger does not hold (run against a copied ledger or a
  forged evidence store) marks the run tampered with;
- every step command naming a run (PreToolUse): a run already found tampered with is refused;
  the answer to a question the user has not answered yet is refused before it runs, by the
  hooks' own code and evidence rather than the step script's;
- at the end of each turn (Stop): the session's runs are judged once more, and the user is told,
  once, of each run found tampered with.

A run is judged by `shape.forged`: its moves must chain along the workflow's edges, and where its
questions bind, every move out of an ask_user step needs a user turn after the hooks saw the
question put.
"""

from __future__ import annotations

import re

from ..base.errors import LedgerError
from ..ledger.sessions import main_run
from ..ledger.store import Ledger, Run
from .payload import Payload
from .state import open_ledger, shape_of, workflow_of

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import NamedTuple

    from ..guard.evidence import Evidence
    from ..guard.shell import Simple
else:
    from ..base.records import NamedTuple

# The evidence store, the judging of a run (step/shape.py) and what a run's workflow needs load
# where they are used: a PreToolUse on a Bash command that names no run needs none of it.

#: The run a step's NEXT command names (`--run ID`); compiled on first use.
_NEXT_RUN = r"--run(?:=|\s+)([\w.-]+)"


class Shown(NamedTuple):
    """A step document as printed: its run (None: stateless), position (None: no command
    carries one), workflow, step, and whether it puts a question to the user."""

    run: str | None
    hops: int | None
    workflow: str
    step: str
    asks: bool


def documents(output: str) -> list[Shown]:
    """Every step document in `output` (a command may print several: `cat a b`), read from
    its text (it may be cut: the head holds what is needed)."""
    found = []
    for part in re.split(r"(?=<step\s)", output)[1:]:
        head = re.match(r"<step\s[^>]*>", part)
        if head is None:
            continue
        attrs = dict(re.findall(r'\b(\w+)="([^"]*)"', head.group()))
        # A run's step names its skill and run only where the full mandate is (the ledger knows
        # the run's workflow); elsewhere its NEXT commands name the run. A stateless step always
        # names its skill.
        nxt = part.find("<NEXT")
        named = re.compile(_NEXT_RUN).search(part, nxt) if nxt >= 0 else None
        run = attrs.get("run") or (named.group(1) if named else None)
        if "id" not in attrs or not ("skill" in attrs or run):
            continue
        at = re.search(r"--at(?:=|\s+)(\d+)", part)
        found.append(Shown(run, int(at.group(1)) if at else None,
                           attrs.get("workflow") or attrs.get("skill", ""), attrs["id"],
                           "<ask_user" in part))
    return found


def step_printed(p: Payload) -> None:
    """PostToolUse on Bash: record what the step documents it printed show (module docstring)."""
    # Claude Code reports a command's streams apart; Codex, its output as one string.
    out = (p.tool_response.get("stdout") if isinstance(p.tool_response, dict)
           else p.tool_response)
    shown = documents(out) if isinstance(out, str) else []
    if not shown:
        return
    from ..guard.evidence import Evidence

    with Evidence() as store:
        for doc in shown:
            if doc.run is None and doc.asks:  # the latest sighting counts: an early one
                store.saw_stateless_question(doc.workflow, doc.step, p.session)  # cannot help
        runs = [doc for doc in shown if doc.run is not None]
        ledger = open_ledger() if runs else None
        if ledger is not None:
            with ledger:
                for doc in runs:
                    _printed(ledger, store, p, doc)


def _printed(ledger: Ledger, store: Evidence, p: Payload, doc: Shown) -> None:
    run = ledger.run(doc.run or "")
    if run is None or not _seen(ledger, store, p, run):
        return
    if doc.hops is not None and (doc.hops > run.hops or (doc.hops == run.hops
                                                         and doc.step != run.step)):
        _tampered(ledger, store, run, f"a step of run {run.id} was printed at position "
                  f"{doc.hops} ('{doc.step}'), which the run ledger does not hold (it has the "
                  f"run at position {run.hops}, '{run.step}'): the step ran against another "
                  "ledger or evidence store")
        return
    if doc.asks and (run.status, run.step, run.hops) == ("active", doc.step, doc.hops):
        store.saw_question(run.id, run.hops, doc.step, p.session)
    _judge(ledger, store, run)


def step_command(ledger: Ledger, p: Payload, simples: list[Simple]) -> str | None:
    """PreToolUse on Bash: why a step command naming a run (`--run ID`) may not run, or None."""
    from ..guard.shell import program

    for simple in simples:
        words = program(simple)
        run_id = _named_run(words)
        if run_id is None or not any(w.endswith(".py") for w in words):
            continue
        run = ledger.run(run_id)
        if run is None:
            continue
        from ..guard.evidence import Evidence

        with Evidence() as store:
            if not _seen(ledger, store, p, run):
                continue
            why = _judge(ledger, store, run)
            first = store.seen_run(run.id)
        if why is not None:
            from ..step.routing import skillrail_command

            return (f"run {run.id} was changed outside skillrail ({why}); it takes no more "
                    f"steps. Tell the user; `{skillrail_command('trace', run.id)}` shows what "
                    "happened")
        from ..step.shape import Shape

        shape = Shape.loads(first[3]) if first is not None else None
        if shape is not None and run.step in shape.asks and run.status == "active" and \
                _moves(words, run.step):
            from ..guard.askgate import Asked, unanswered
            from ..ledger.workspace import folder_of

            asked = shape.asked.get(run.step)
            held = unanswered(run, folder_of(run.workspace, run.folder),
                              None if asked is None else Asked(*asked), _flag(words, "--outcome"),
                              _set_keys(words))
            if held is not None:
                return f"{held[0]}. {held[1]}"
    return None


def _flag(words: tuple[str, ...], name: str) -> str | None:
    for i, word in enumerate(words):
        if word.startswith(name + "="):
            return word.partition("=")[2]
        if word == name and i + 1 < len(words):
            return words[i + 1]
    return None


def _set_keys(words: tuple[str, ...]) -> set[str]:
    """The keys a step command sets (`--set KEY=VALUE`, `--set-file KEY=PATH`)."""
    keys = set()
    for i, word in enumerate(words):
        value = (word.partition("=")[2] if word.startswith(("--set=", "--set-file="))
                 else words[i + 1] if word in ("--set", "--set-file") and i + 1 < len(words)
                 else None)
        if value is not None:
            keys.add(value.partition("=")[0])
    return keys


def stop_notice(p: Payload) -> str | None:
    """Stop: the runs of the session judged once more; a message for the user naming each run
    newly found tampered with, or None."""
    ledger = open_ledger()
    if ledger is None:
        return None
    from ..guard.evidence import Evidence

    with ledger, Evidence() as store:
        ids = store.runs_of(p.session)
        current = main_run(ledger, p.session)
        if current is not None and current.id not in ids:
            ids.append(current.id)
        for run_id in ids:
            run = ledger.run(run_id)
            if run is not None and _seen(ledger, store, p, run):
                _judge(ledger, store, run)
        told = store.untold(ids)
    if not told:
        return None
    from ..step.routing import skillrail_command

    return "\n".join(f"skillrail: run {run} was changed outside skillrail: {why}. It takes no "
                     f"more steps; `{skillrail_command('trace', run)}` shows what happened."
                     for run, why in told)


def _seen(ledger: Ledger, store: Evidence, p: Payload, run: Run) -> bool:
    """Record that the hooks saw `run` in this session (its first sighting keeps its
    workflow's shape); False when its workflow cannot be had (nothing to judge it by)."""
    if store.seen_run(run.id) is not None:
        return True
    from ..graph.analysis import fingerprint

    workflow = workflow_of(run)
    if workflow is None or fingerprint(workflow) != run.fingerprint:
        return False
    from ..base.paths import skill_folder
    from ..ledger.workspace import folder_of, script_here

    folder = folder_of(run.workspace, run.folder) or p.cwd
    shape = shape_of(workflow, skill_folder(script_here(run.script, run.workspace)))
    store.saw_run(run.id, p.session, folder, run.fingerprint, shape.dumps())
    return True


def _judge(ledger: Ledger, store: Evidence, run: Run) -> str | None:
    """Why `run`'s ledger is not skillrail's doing (shape.forged), recorded; or None."""
    first = store.seen_run(run.id)
    if first is None or run.status == "abandoned":
        return None
    from ..step.shape import Shape, forged

    why = forged(ledger, Shape.loads(first[3]), run, store)  # a mark found before stands first
    if why is not None:
        _tampered(ledger, store, run, why)
    return why


def _tampered(ledger: Ledger, store: Evidence, run: Run, why: str) -> None:
    if store.mark_tampered(run.id, why):
        try:
            with ledger.transaction():
                ledger.event(run.id, "tampered", why)
        except LedgerError:
            pass  # the evidence store holds the mark; the trace's copy is a courtesy


def _named_run(words: tuple[str, ...]) -> str | None:
    return _flag(words, "--run") or None


def _moves(words: tuple[str, ...], current: str) -> bool:
    """Whether a step command would move its run rather than reprint its step: anything but
    `--resume`, or the current step named again without an outcome or values."""
    if "--resume" in words:
        return False
    flags = {w.partition("=")[0] for w in words if w.startswith("--")}
    if flags & {"--outcome", "--set", "--set-file"}:
        return True
    named = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--step"), None)
    named = named or next((w.partition("=")[2] for w in words if w.startswith("--step=")), None)
    return named is not None and named != current
