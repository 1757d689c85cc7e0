"""Every step of a workflow printed by its real script in a subprocess (once, or once per outcome
its handler can decide), with a probe that records which libraries each printing process had
loaded when it exited.

The visit goes breadth first over stateless commands (the state travels in the command, so any
printed command can be run, and each branch explored, without replaying a run). A step whose
handler reads the world (a plan file, a report) is printed once per outcome, after its own
`prepare` set the world up for that outcome; a step that is the source of a loop is printed
again with the loop at its last pass, so the steps only an exhausted loop reaches are printed
too. The probe is a `sitecustomize` module put on PYTHONPATH: the gateway never passes that
variable on to the commands it runs, so only the step scripts are probed. Besides the libraries
loaded, it records (by an audit hook on `open`) whether the process read the project's policy
file, `.claude/skillrail.yaml`: reading the user's YAML takes yaml."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from skills.lib.workflow.graph.model import Rework, StepContext, StepDef, Workflow, skill_folder

#: The libraries kept off the step path (pyproject.toml's third import-linter contract; psycopg
#: loads only for a PostgreSQL ledger, which these steps do not name), and importlib.metadata,
#: which pydantic loads (for its plugins) and nothing else needs.
from skills.lib.workflow.protocol.reading import asked, decided
from skills.lib.workflow.tools.simulate import (
    Walker,
    WalkFailed,
    entry_command,
    run_hop,
    simulated_params,
)

from .forkserver import Server
from .harness import cmd_text, offered

HEAVY = ("pydantic", "yaml", "jinja2", "lxml", "psycopg", "importlib.metadata")

#: What a process reads when it reads the project's policy file (a YAML file of the user's).
PROJECT_POLICY_READ = "project-policy"

PROBE = f"""\
import atexit, json, os, sys

_read = []

def _opened(event, args):
    # The gateway reading the policy (with yaml: the user's YAML), not any open of the file:
    # every step's ledger setting (base/paths.ledger_url) looks in it for `ledger:` too.
    if event == "open" and not _read and str(args[0]).endswith(
            os.path.join(".claude", "skillrail.yaml")) and _by_gateway():
        _read.append({PROJECT_POLICY_READ!r})

def _by_gateway():
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.endswith("gatepolicy.py"):
            return True
        frame = frame.f_back
    return False

def _record():
    heavy = [m for m in {HEAVY!r} if m in sys.modules]
    framework = sorted(m for m in sys.modules if m.startswith("skills.lib."))
    with open(os.environ["SKILLRAIL_IMPORT_PROBE"], "a", encoding="utf-8") as out:
        out.write(json.dumps({{"argv": sys.argv, "heavy": heavy, "read": _read,
                               "framework": framework}}) + "\\n")

if os.environ.get("SKILLRAIL_IMPORT_PROBE"):
    sys.addaudithook(_opened)
    atexit.register(_record)
"""


def step_of(argv: list[str]) -> str:
    return argv[argv.index("--step") + 1] if "--step" in argv else ""


class StepVisit:
    """Prints every step of `wf` from `cwd`, recording what each printing process loaded."""

    def __init__(self, wf: Workflow, scratch: Path, policy: str | None = None) -> None:
        """`policy`: the text of a project policy file (.claude/skillrail.yaml) to run under."""
        self.wf, self.cwd = wf, scratch / "work"
        (self.cwd / ".claude").mkdir(parents=True, exist_ok=True)
        if policy is not None:
            (self.cwd / ".claude" / "skillrail.yaml").write_text(policy, encoding="utf-8")
        probe = scratch / "probe"
        probe.mkdir(exist_ok=True)
        (probe / "sitecustomize.py").write_text(PROBE, encoding="utf-8")
        self.log = scratch / "imports.jsonl"
        self.env = {**os.environ, "SKILLRAIL_HOME": str(scratch / "ledger"),
                    "PYTHONPATH": str(probe), "SKILLRAIL_IMPORT_PROBE": str(self.log)}
        # Each command runs in a child forked from a warm interpreter (forkserver.py): a
        # process of its own, whose libraries are its own, at a fraction of a start's cost.
        self.server = Server(Path(skill_folder(wf.source)).parent.parent, self.env, self.cwd)
        self.walker = Walker(wf, str(self.cwd), self.env, run=self.server.run)
        self.queued: set[tuple[str, frozenset[str]]] = set()
        # A command (its argv, as sys.argv has it) -> the steps its process went through: the
        # script-decided steps it passed (protocol 1.2's <decided>), then the step it printed.
        self.chains: dict[tuple[str, ...], list[str]] = defaultdict(list)

    def run(self) -> dict[str, set[str]]:
        """Step id -> the heavy libraries any process printing it had loaded (see loaded).
        Stateless commands first; a step they cannot reach (a handler that counts in its step
        state, which a stateless invocation does not keep) is then reached by walks of runs in
        the ledger, as `skillrail simulate` walks."""
        try:
            return self._visit()
        finally:
            self.server.close()

    def _visit(self) -> dict[str, set[str]]:
        self._stateless()
        missing = set(self.wf.by_id) - set(self.loaded())
        for attempt in range(12 if missing else 0):
            for hop in self.walker.walk(persist=attempt % 2 == 1):
                self.chains[tuple(hop.cmd[1:])] += [
                    *(d.step for d in decided(hop.root)), hop.root.get("id", "")]
            if not set(self.wf.by_id) - set(self.loaded()):
                break
        return self.loaded()

    def _stateless(self) -> None:
        """Print every step a stateless command reaches, from each set of entry params."""
        turns = max([len(p.samples) + 1 for p in self.wf.params if p.sample]
                    + [len(p.choices) for p in self.wf.params] + [1])
        queue = [entry_command(self.wf, simulated_params(self.wf, None, turn)) + ["--stateless"]
                 for turn in range(turns)]
        self.queued.add((self.wf.entry, frozenset()))
        done: set[tuple[str, ...]] = set()
        while queue:
            cmd = queue.pop(0)
            for n, variant in enumerate(self._variants(cmd)):
                if tuple(variant) in done:
                    continue
                done.add(tuple(variant))
                try:
                    queue += self._follow(variant)
                except WalkFailed:
                    if n == 0:  # a loop's last pass may not be a pass this arrival allows
                        raise

    def _variants(self, cmd: list[str]) -> list[list[str]]:
        """The command, and the same with each loop that leaves its step at its last pass."""
        step = self.wf.step(step_of(cmd))
        variants = [cmd]
        for key, edge in self.wf.reworks.items():
            if edge.source != step.id or edge.rework is None:
                continue
            last = edge.rework.max_iterations - 1
            if step.qr is not None and step.qr.counter == key:  # the review loop's own flag
                rest = [a for a in cmd if not a.startswith("--qr-iteration=")]
                variants.append(rest + [f"--qr-iteration={last + 1}"])
            else:
                variants.append(cmd + ["--loop", f"{key}={last}"])
        return variants

    def _follow(self, cmd: list[str]) -> list[list[str]]:
        """Print the step of `cmd` (once per outcome its `prepare` can set up); the commands it
        printed to steps not printed yet, with a value for every arg."""
        found = []
        for plan in self._plans(self.wf.step(step_of(cmd)), frozenset()):
            for step, outcome in plan:
                with contextlib.chdir(self.cwd):
                    step.prepare(StepContext(self.wf, step, self.walker.params), outcome)
            hop = run_hop(cmd, self.env, str(self.cwd), run=self.server.run)
            printed = self.wf.by_id[hop.root.get("id", "")]
            self.chains[tuple(cmd[1:])] += [*(d.step for d in decided(hop.root)), printed.id]
            for invoke in offered(hop.root):
                found += self._commands(invoke, printed)
        return found

    def _plans(self, step: StepDef, seen: frozenset[str]) -> list[list[tuple[StepDef, str]]]:
        """Each way to set the world up for `step` and for the script-decided steps a run
        passes through after it (as the simulator does): a list of (step, outcome) to prepare,
        one outcome per step that has a `prepare`, every combination along the chain."""
        if step.prepare is None or step.id in seen:
            return [[]]
        plans = []
        for outcome, target in step.next.items():
            goes = target.target if isinstance(target, Rework) else target
            after = self.wf.by_id.get(goes) if goes is not None else None
            passes = after is not None and after.decided_by == "script"
            rest = self._plans(after, seen | {step.id}) if passes and after else [[]]
            plans += [[(step, outcome), *more] for more in rest]
        return plans

    def _commands(self, invoke: ET.Element, source: StepDef) -> list[list[str]]:
        """The invoke's command with values for its args, once per value of a choice arg (a
        review's verdict decides the gate after it), to a step and choice not queued yet."""
        target = self.wf.step(step_of(shlex.split(cmd_text(invoke)))).id
        turns = max([len(a.choices) for a in asked(invoke)] + [1])
        found = []
        for _ in range(turns):
            cmd = self.walker.supply(invoke, source=source)
            choices = frozenset(a for a in cmd if a.startswith(tuple(
                f"{arg.key}=" for arg in asked(invoke) if arg.choices)))
            if (target, choices) not in self.queued:
                self.queued.add((target, choices))
                found.append(cmd)
        return found

    def framework(self) -> set[str]:
        """The modules of the framework (skills.lib) any printing process had loaded."""
        return {module for line in self.log.read_text(encoding="utf-8").splitlines()
                for module in json.loads(line)["framework"]}

    def loaded(self) -> dict[str, set[str]]:
        """Step id -> the heavy libraries loaded, and PROJECT_POLICY_READ when a process that
        printed the step read the project's policy file. What a process that passed through
        script-decided steps loaded counts for the step its command named (where a check reads
        its document); the steps it passed and printed count as visited."""
        found: dict[str, set[str]] = defaultdict(set)
        for line in self.log.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            named = self.wf.step(step_of(entry["argv"])).id
            found[named].update(entry["heavy"], entry["read"])
            for step in self.chains.get(tuple(entry["argv"]), []):
                found[step] |= set()
        return found
