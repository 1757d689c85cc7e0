"""Simulation: walk a workflow's real step script as subprocesses, following `<NEXT>` exactly as
an agent would, in a throwaway ledger. Each hop runs one printed command, checks the document
against the protocol schema, picks an invoke (an outcome, or the user's answer), and supplies a
value for every `<arg>`. Walks repeat until every edge was taken (`all-edges`) or for a number
of seeded random walks (`random`); the report gives edge coverage, the longest run against the
static bound, each failure with the exact command that produced it, and why each edge left
untaken was.

A check (`verify=`) really runs: the scratch ledger trusts the skill as it is (the user's own
trust is not touched), and the scratch folder has the project's command policy. Its outcome is
the world's: a check naming the project's tests (`${PROJECT_TESTS}`) gets, in the scratch
policy, a test command that gives the outcome the walk wants (`true` or `false`); any other
check gets its world from the step's `prepare`."""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import NamedTuple

import yaml

from ..base.paths import PACKAGE_PARENT, project_root
from ..graph.analysis import worst_case_steps
from ..graph.model import Param, Rework, StepContext, StepDef, Workflow, skill_dir
from ..guard.gatepolicy import PROJECT_FILE, read_policy_file
from ..guard.gateway import PROJECT_TESTS
from ..protocol.reading import asked, command, decided
from ..protocol.reading import invokes as offered
from ..protocol.schema import schema_errors
from .walkedges import END, EdgeKey, Hop, edge_of, graph_edges, passed_edges
from .walkgoals import Goals

#: all-edges gives up after this many walks in a row that take no new edge, and on a goal
#: (walkgoals.py) after this many of them.
STALL = 12
TRIES = 3
#: Values that a careless shell or serializer would break on, used by random walks.
AWKWARD = ("it's a \"test\" <b> & co", "line one\nline two", "$(echo nope) `id` ;|", "ünïcødé ✓")


class Failure(NamedTuple):
    command: str
    message: str


class Report(NamedTuple):
    workflow: str
    edges: frozenset[EdgeKey]
    seen: frozenset[EdgeKey]
    longest: int
    bound: int | None
    largest: int  # characters of the largest step document printed
    walks: int
    failures: tuple[Failure, ...]
    why: tuple[tuple[EdgeKey, str], ...] = ()  # each untaken edge, and why it was

    def untaken(self) -> list[tuple[EdgeKey, str]]:
        """The edges no walk took, in order, each with why."""
        said = dict(self.why)
        return [(e, said.get(e, "")) for e in sorted(self.edges - self.seen)]

    @property
    def coverage(self) -> float:
        return len(self.edges & self.seen) / len(self.edges) if self.edges else 1.0


class WalkFailed(Exception):
    """A hop failed: its command and what went wrong."""

    def __init__(self, command: list[str], message: str) -> None:
        super().__init__(message)
        self.failure = Failure(shlex.join(command), message)


def simulated_params(wf: Workflow, given: dict[str, str] | None = None,
                     turn: int = 0) -> dict[str, str]:
    """A value for every param: the one `given` (`simulate --param`), its sample, else, when
    it has choices, the `turn`-th of them counting from its default (walks take each choice
    in turn, so a branch on a mode is walked too; a sample with further `samples` likewise),
    else a made-up one."""
    def value(p: Param) -> str:
        if p.sample:
            options = [p.sample, *p.samples]
        elif p.choices:
            first = [p.default] if p.default in p.choices else []
            options = first + [c for c in p.choices if c not in first]
        else:
            return f"simulated-{p.name}"
        return options[turn % len(options)]

    return {p.name: (given or {}).get(p.name) or value(p) for p in wf.params}


def entry_command(wf: Workflow, given: dict[str, str] | None = None) -> list[str]:
    """The command that starts a run, with a value for every param."""
    return [sys.executable, wf.source, "--step", wf.entry] + [
        f"--{name}={value}" for name, value in simulated_params(wf, given).items()]


#: How a hop's command is run: (argv, environment, folder) -> how it ended and what it printed.
Runner = Callable[[list[str], dict[str, str], str], "subprocess.CompletedProcess[str]"]


def in_a_process(cmd: list[str], env: dict[str, str], cwd: str
                 ) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, as an agent runs it (the default Runner)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=60, check=False)
    except subprocess.TimeoutExpired:
        raise WalkFailed(cmd, "no answer within 60 s") from None


def run_hop(cmd: list[str], env: dict[str, str], cwd: str,
            measure: Callable[[str], int] = len, run: Runner = in_a_process) -> Hop:
    """Run one command; it must exit 0, write nothing to stderr and print a valid step.
    `measure` gives the hop's size from what it printed (by default its characters)."""
    proc = run(cmd, env, cwd)
    if proc.returncode != 0 or proc.stderr:
        first = (proc.stderr.strip().splitlines() or ["(no message)"])[0]
        raise WalkFailed(cmd, f"exit {proc.returncode}: {first}")
    errors = schema_errors(proc.stdout)
    if errors:
        raise WalkFailed(cmd, f"output breaks the protocol schema: {errors[0]}")
    return Hop(cmd, ET.fromstring(proc.stdout), measure(proc.stdout))


class Walker:
    """Walks one workflow; remembers which edges and arg choices it has used across walks."""

    def __init__(self, wf: Workflow, cwd: str, env: dict[str, str], max_hops: int = 200,
                 rng: random.Random | None = None,
                 goals: frozenset[EdgeKey] | None = None,
                 params: dict[str, str] | None = None,
                 measure: Callable[[str], int] = len, run: Runner = in_a_process) -> None:
        """`run`: how each printed command is run (by default in a process of its own)."""
        self.wf, self.cwd, self.env, self.max_hops, self.rng = wf, cwd, env, max_hops, rng
        self.measure, self.run = measure, run
        self.given, self.walks, self.supplied = params, 0, 0
        self.params = simulated_params(wf, params)
        self.seen: dict[EdgeKey, int] = {}
        self.picks: dict[str, int] = {}
        self.edges = graph_edges(wf) if goals is None else goals  # what walks head for
        self.goals = Goals(wf, self.edges, self.seen)
        self.focused = goals is not None  # persist only on the goals' loops
        self.reached: set[str] = set()  # steps printed or passed through
        self.checks: dict[str, str] = {}  # a check step's last note (how its check ended)
        #: The scratch folder's policy, without `tests:` (set per walk for ${PROJECT_TESTS})
        self.policy: dict[str, object] | None = None

    def walk(self, persist: bool = False) -> list[Hop]:
        """One run from the entry to `<complete>`. Least-taken edges first; with `persist`,
        the outcome that stays in the current loop, so loop caps are reached."""
        hops: list[Hop] = []
        self.params = simulated_params(self.wf, self.given, self.walks)
        self.walks += 1
        cmd = entry_command(self.wf, self.params)
        choice = None
        for _ in range(self.max_hops):
            self._prepare(cmd, persist)
            hop = run_hop(cmd, self.env, self.cwd, self.measure, self.run)
            hops.append(hop)
            self._note(hop)
            passed = passed_edges(hop, self.wf)
            self.goals.learn(choice, passed)
            for edge in passed:
                self.seen[edge] = self.seen.get(edge, 0) + 1
            invokes = offered(hop.root)
            if not invokes:
                self._ended(hop)
                return hops
            chosen = self._choose(hop, invokes, persist)
            edge = edge_of(hop, chosen, self.wf)
            self.seen[edge] = self.seen.get(edge, 0) + 1
            choice = edge[:2]
            cmd = self.supply(chosen, persist, self.wf.by_id.get(hop.root.get("id", "")))
        raise WalkFailed(cmd, f"no <complete> after {self.max_hops} hops")

    def _choose(self, hop: Hop, invokes: list[ET.Element], persist: bool) -> ET.Element:
        if self.rng is not None:
            return self.rng.choice(invokes)

        def rank(inv: ET.Element) -> tuple[int, int, int]:
            source, label, target = edge = edge_of(hop, inv, self.wf)
            return (0 if persist and self._unexhausted(source, label) else 1,
                    self._toward(source, label, target), self.seen.get(edge, 0))

        return min(invokes, key=rank)

    def _toward(self, source: str, label: str, target: str) -> int:
        return self.goals.toward(source, label, target)

    def _unexhausted(self, source: str, label: str) -> bool:
        """Whether (source, outcome) is a rework edge whose exhaustion no walk has reached
        yet: a persisting walk stays on such an edge, one loop after another, until its cap
        fires (staying on every loop at once would end each walk in the first loop)."""
        step = self.wf.by_id.get(source)
        if step is None or (self.focused and (source, label) not in {g[:2] for g in self.edges}):
            return False
        outcome = label if label != "-" else next(iter(step.next))
        target = step.next.get(outcome)
        return isinstance(target, Rework) and (source, label, target.on_exhausted) not in self.seen

    def _note(self, hop: Hop) -> None:
        """Which steps the run reached, and how each check it passed through ended."""
        self.reached.add(hop.root.get("id", ""))
        for passed in decided(hop.root):
            self.reached.add(passed.step)
            if passed.step in self.wf.by_id and self.wf.by_id[passed.step].verify:
                self.checks[passed.step] = f"{passed.outcome}: {passed.note}"

    def why(self, edge: EdgeKey) -> str:
        """Why no walk took `edge`."""
        source, label, _ = edge
        step = self.wf.by_id.get(source)
        if source not in self.reached:
            return f"no walk reached step '{source}'"
        if step is not None and step.verify and source in self.checks:
            fix = ("its check names ${PROJECT_TESTS}, which the walk sets for each outcome: "
                   "report this" if str(step.verify).strip() == PROJECT_TESTS else
                   f"give the step a `prepare` that sets up the world for '{label}', or check "
                   "the project's tests with ${PROJECT_TESTS}")
            return (f"its check never gave '{label}' (last: {self.checks[source]}); {fix}")
        return f"the {self.walks} walks ended before taking it"

    def _prepare(self, cmd: list[str], persist: bool) -> None:
        """A step whose handler reads the world (a report, a plan file) gets the world set up
        for the outcome this walk wants, by the step's own `prepare`; the handler still
        decides for real. The script-decided steps the run will pass through after it are
        prepared too, along the outcomes wanted."""
        step: StepDef | None = self.wf.step(cmd[cmd.index("--step") + 1])
        for _ in range(len(self.wf.steps)):
            if step is None:
                return
            wanted = self._wanted(step, persist)
            if step.verify and str(step.verify).strip() == PROJECT_TESTS and \
                    self.policy is not None:
                self._project_tests(wanted == "ok")
            if step.prepare is not None:
                with contextlib.chdir(self.cwd):
                    step.prepare(StepContext(self.wf, step, self.params), wanted)
            if step.decided_by != "script":
                return
            target = step.next[wanted]
            goes = target.target if isinstance(target, Rework) else target
            step = self.wf.by_id.get(goes) if goes is not None else None

    def _project_tests(self, passing: bool) -> None:
        """The scratch policy's test command: one that passes, or one that fails."""
        path = os.path.join(self.cwd, PROJECT_FILE)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = {**(self.policy or {}), "tests": {"command": "true" if passing else "false"}}
        with open(path, "w", encoding="utf-8") as out:
            yaml.safe_dump(data, out, sort_keys=False)

    def _wanted(self, step: StepDef, persist: bool) -> str:
        outcomes = list(step.next)
        if self.rng is not None:
            return self.rng.choice(outcomes)

        def rank(outcome: str) -> tuple[int, int, int]:
            label = outcome if len(outcomes) > 1 else "-"
            stay = persist and self._unexhausted(step.id, label)
            target = step.next[outcome]
            goes = (target.target if isinstance(target, Rework) else target) or END
            taken = sum(n for (s, o, _), n in self.seen.items() if (s, o) == (step.id, label))
            return (0 if stay else 1, self._toward(step.id, label, goes), taken)

        return min(outcomes, key=rank)

    def _ended(self, hop: Hop) -> None:
        step = self.wf.by_id.get(hop.root.get("id", ""))
        if step is None:
            return
        for outcome, target in step.next.items():
            if target is None:
                key = (step.id, outcome if len(step.next) > 1 else "-", END)
                self.seen[key] = self.seen.get(key, 0) + 1

    def supply(self, invoke: ET.Element, persist: bool = False,
               source: StepDef | None = None) -> list[str]:
        """The invoke's command with a value for every arg. An arg with a `sample` gets it (a
        value its check accepts). A choice arg takes its choices in turn (so script-decided
        steps see each value); with `persist` its last choice, which for a review verdict
        ('pass fail') keeps a loop going. Random walks pick at random, free text included."""
        cmd = command(invoke)
        samples = {a.key: a.sample for a in (source.args if source else ()) if a.sample}
        for arg in asked(invoke):
            key, choices = arg.key, arg.choices
            if key in samples and source is not None:
                with contextlib.chdir(self.cwd):
                    value = samples[key](StepContext(self.wf, source, self.params))
            elif choices and self.rng is not None:
                value = self.rng.choice(choices)
            elif choices:
                turn = len(choices) - 1 if persist else self.picks.get(key, 0) % len(choices)
                if not persist:  # a persisting walk's choice must not use up another's turn
                    self.picks[key] = self.picks.get(key, 0) + 1
                value = choices[turn]
            elif self.rng is not None:
                value = f"simulated {key}: {self.rng.choice(AWKWARD)}"
            else:
                value = f"simulated value for {key}"
            if any(a.key == key and a.distinct for a in (source.args if source else ())):
                self.supplied += 1  # a distinct arg refuses a value it was given before
                value += f" (try {self.supplied})"
            cmd += ["--set", f"{key}={value}"]
        return cmd


def simulate(wf: Workflow, *, paths: str = "all-edges", seed: int = 0, walks: int = 20,
             max_hops: int = 200, params: dict[str, str] | None = None,
             measure: Callable[[str], int] = len, run: Runner = in_a_process,
             progress: Callable[[int, int, int], None] | None = None) -> Report:
    """Walk `wf` in a throwaway ledger and working directory; see the module docstring.
    `measure` gives a printed step's size (`largest`): by default its characters; `run`, how
    each command runs: by default in a process of its own, as an agent runs it; `progress`,
    told after each walk: the walks made, the edges taken, the edges in all."""
    edges = graph_edges(wf)
    failures: list[Failure] = []
    longest = done = largest = 0
    with tempfile.TemporaryDirectory(prefix="skillrail-sim-") as scratch:
        # A walk answers every question itself, in CI too (guard/askgate.unattended).
        env = {**os.environ, "SKILLRAIL_HOME": os.path.join(scratch, "ledger"),
               "SKILLRAIL_UNATTENDED": "0"}
        rng = random.Random(seed) if paths == "random" else None
        walker = Walker(wf, scratch, env, max_hops, rng, params=params, measure=measure,
                        run=run)
        if any(step.verify for step in wf.steps):
            walker.policy = _checks_can_run(wf, scratch, env)
        budget = walks if rng is not None else max(walks, 4 * len(edges))
        idle = 0  # walks in a row that took no new edge
        for attempt in range(budget):
            before = len(walker.seen)
            try:
                hops = walker.walk(persist=attempt % 2 == 1)
            except WalkFailed as exc:
                failures.append(exc.failure)
                break  # the same command would fail again: one report is enough
            done += 1
            if progress is not None:
                progress(done, len(edges & set(walker.seen)), len(edges))
            # The run's length: the steps printed and those passed through unprinted.
            longest = max(longest, sum(1 + len(h.root.findall("decided")) for h in hops))
            largest = max([largest, *(h.chars for h in hops)])
            idle = 0 if len(walker.seen) > before else idle + 1
            if idle and idle % TRIES == 0 and rng is None:
                walker.goals.give_up()  # a goal walks could not reach: head for the next
            if rng is None and (edges <= set(walker.seen) or idle >= STALL
                                or walker.goals.current() is None):
                break
    seen = frozenset(walker.seen)
    why = tuple((e, walker.why(e)) for e in sorted(edges - seen))
    return Report(wf.name, edges, seen, longest, worst_case_steps(wf), largest, done,
                  tuple(failures), why)


def _checks_can_run(wf: Workflow, scratch: str, env: dict[str, str]) -> dict[str, object]:
    """Set the scratch folder up for the workflow's checks: the skill trusted in the scratch
    ledger, as it is now, and the project's command policy (without its `tests:`, which the
    walk sets), which it returns."""
    done = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "trust",
                           skill_dir(wf)], capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": PACKAGE_PARENT}, check=False)
    if done.returncode != 0:  # a skill that cannot be trusted: its checks fail, and say why
        return {}
    project = os.path.join(project_root(), PROJECT_FILE)
    data: dict[str, object] = (read_policy_file(project) if os.path.isfile(project)
                               else {"version": 2})
    data.pop("tests", None)
    os.makedirs(os.path.join(scratch, ".claude"), exist_ok=True)
    with open(os.path.join(scratch, PROJECT_FILE), "w", encoding="utf-8") as out:
        yaml.safe_dump(data, out, sort_keys=False)
    return data
