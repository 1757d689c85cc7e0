"""What a hook needs to know of the run an agent is in: the ledger (never created by a hook that
only reads), the run of the session or sub-agent, its workflow, the current step's allowed tools
and its next commands. Every look-up that fails returns None: the hook then stays silent."""

from __future__ import annotations

import os
import re
import sys

from ..base.paths import ledger_path, ledger_url
from ..ledger.sessions import agent_run, bind_agent, main_run, paused
from ..ledger.store import Ledger

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from ..graph.model import Workflow
    from ..ledger.store import Run
    from ..step.shape import Shape
    from .payload import Payload

#: A hook must answer well under a second; a writer holding the ledger longer lets it through.
HOOK_BUSY_MS = 300


def open_ledger(create: bool = False) -> Ledger | None:
    """The ledger; None when it does not exist and `create` is false (no run was ever started
    here, and a hook that only reads must not leave a file behind). LedgerError passes up."""
    shared = ledger_url()  # a team's ledger, on a server: always there
    if shared:
        return Ledger(shared, busy_ms=HOOK_BUSY_MS)
    path = ledger_path()
    if not create and not os.path.exists(path):
        return None
    return Ledger(path, busy_ms=HOOK_BUSY_MS)


def scoped_run(ledger: Ledger, p: Payload) -> Run | None:
    """The active, unpaused run the agent of `p` works in (sessions.py says which). A client
    that names no session in the agent's shell (Codex) starts runs without one: for those, the
    newest active run the hooks saw in this session (a step of it printed, or a command naming
    it), of the runs that name no session."""
    if p.agent is None:
        run = main_run(ledger, p.session) or _seen_here(ledger, p.session)
    else:
        _bind(ledger, p)
        run = agent_run(ledger, p.session, p.agent)
    return None if run is None or paused(ledger, run) else run


def seen_in(session: str) -> list[str]:
    """The runs the hooks saw in `session`, oldest first (none where no store exists)."""
    from ..guard.evidence import read_only

    store = read_only()
    if store is None:
        return []
    with store:
        return store.runs_of(session)


def _seen_here(ledger: Ledger, session: str) -> Run | None:
    # Most sessions have a run with their session, or none without one: the evidence store
    # is opened only where a run without a session is active.
    if not ledger.query("SELECT 1 FROM runs WHERE session IS NULL AND status = 'active' AND "
                        "parent IS NULL LIMIT 1"):
        return None
    seen = seen_in(session)
    for run_id in reversed(seen):
        run = ledger.run(run_id)
        if run is not None and run.status == "active" and run.session is None and \
                run.parent is None:
            return run
    return None


def _bind(ledger: Ledger, p: Payload) -> None:
    """A sub-agent's step command names its sub-run (`--run ID`): remember the pair."""
    from ..guard.shell import split

    command = p.tool_input.get("command") if p.tool == "Bash" else None
    simples = split(command) if isinstance(command, str) else None
    for simple in simples or ():
        words = simple.words
        for i, word in enumerate(words):
            run_id = (word.partition("=")[2] if word.startswith("--run=")
                      else words[i + 1] if word == "--run" and i + 1 < len(words) else "")
            if run_id and bind_agent(ledger, p.session, p.agent or "", run_id):
                return


def first_shape(run: Run) -> Shape | None:
    """The run's workflow as the hooks first saw it (step/shape.py), from the evidence store;
    None where they have not seen it, or saw another workflow (the run is judged forged)."""
    from ..guard.evidence import read_only

    store = read_only()
    if store is None:
        return None
    with store:
        first = store.seen_run(run.id)
    if first is None or first[2] != run.fingerprint:
        return None
    from ..step.shape import Shape

    return Shape.loads(first[3])


def workflow_of(run: Run) -> Workflow | None:
    """The run's workflow as it was when the run began; None when its script is gone, fails
    to load, or changed (the run cannot go on then, so there is nothing to enforce)."""
    from ..graph.analysis import fingerprint
    from ..step.resume import workflow_of as load

    try:
        workflow = load(run)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a broken skill must not block
        sys.stderr.write(f"skillrail hook: cannot load the workflow of run {run.id}: {exc}\n")
        return None
    return workflow if fingerprint(workflow) == run.fingerprint else None


def shape_of(workflow: Workflow, folder: str) -> Shape:
    """What the hooks keep of `workflow` (step/shape.py), its skill folder `folder` giving the
    SKILL.md `allowed-tools` of the steps that name no tools of their own."""
    from ..step.shape import Shape

    return Shape.of(workflow, allowed_tools(os.path.join(folder, "SKILL.md")))


def allowed_tools(skill_md: str) -> tuple[str, ...] | None:
    """SKILL.md's `allowed-tools`: a YAML list, or one line of rules separated by commas or
    spaces (spaces inside a rule's parentheses kept). Read by hand: yaml costs ~20 ms."""
    from ..authoring.skillmd import tool_list  # here: it loads pathlib

    try:
        with open(skill_md, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("---"):
        return None
    lines = text[3:].split("\n---", 1)[0].splitlines()
    for i, line in enumerate(lines):
        found = re.match(r"allowed-tools\s*:\s*(.*)$", line)
        if found is None:
            continue
        value = found.group(1).strip()
        if value.startswith("[") and value.endswith("]"):
            items = tool_list(value[1:-1])
        elif value:
            items = tool_list(value)
        else:
            items = []
            for item in lines[i + 1:]:
                if not item.strip().startswith("-"):
                    break
                items.append(item.strip()[1:].strip())
        return tuple(i.strip("'\"") for i in items if i.strip("'\""))
    return None


def next_commands(workflow: Workflow, run: Run) -> list[tuple[str | None, str]]:
    """(when, command) of each command that leaves the run's step, as `<NEXT>` prints them;
    empty while a script-decided step has not recorded its decision."""
    from ..graph.model import StepContext
    from ..step.routing import invokes

    step = workflow.by_id[run.step]
    if step.decided_by == "script" and run.decided is None:
        return []
    ctx = StepContext(workflow, step, run.params, run.memory, run.counts, run.id, run.hops)
    return [(i.when, i.cmd) for i in invokes(workflow, ctx, "xml", run.decided)]
