"""Where an all-edges simulation heads next: the first edge no walk has taken, and how far each
choice of the agent or the user leaves a walk from it.

A step its handler decides from how the run arrived (skill-runner's `next`, which repeats a
plan step after a retry and goes on after a pass) cannot be steered by the world a `prepare`
sets up: what steers it is the choice made before. So the goals learn, walk by walk, which
choice led the script to which decision, and head for a choice that made the decision a goal
needs (unless the walk itself steers that step, through its `prepare` or its check). A goal
no walk reaches after all this is given up, so the walks go on to the others (and the report
lists it as untaken)."""

from __future__ import annotations

from ..graph.model import Workflow
from .walkedges import EdgeKey, distances

#: (step, outcome label) of a choice, or of a script's decision
Choice = tuple[str, str]


class Goals:
    def __init__(self, wf: Workflow, edges: frozenset[EdgeKey], seen: dict[EdgeKey, int]) -> None:
        self.wf, self.edges, self.seen = wf, edges, seen
        self.given_up: set[EdgeKey] = set()
        self.led: dict[Choice, set[Choice]] = {}  # a choice -> the decisions that followed it

    def current(self) -> EdgeKey | None:
        """The goal: the first edge, in a stable order, neither taken nor given up."""
        return next(iter(sorted(self.edges - set(self.seen) - self.given_up)), None)

    def give_up(self) -> None:
        """Stop heading for the current goal (a walk that took no new edge tried it)."""
        goal = self.current()
        if goal is not None:
            self.given_up.add(goal)

    def learn(self, choice: Choice | None, decided: list[EdgeKey]) -> None:
        """Remember the script's decisions that followed `choice` (up to the printed step)."""
        if choice is not None and decided:
            self.led.setdefault(choice, set()).update(e[:2] for e in decided)

    def _steered(self, step_id: str) -> bool:
        """Whether the walk sets up the world that decides this step (its `prepare`, or a
        check of the project's tests): then the choice made before it does not decide it."""
        step = self.wf.by_id.get(step_id)
        return step is not None and (step.prepare is not None or bool(step.verify))

    def toward(self, source: str, label: str, target: str) -> int:
        """How far this choice leaves the walk from the goal: 0 takes it, or is known to make
        the script decide it; else the steps from the choice's target to the goal's source
        or to a choice known to make the goal's decision. A choice known to make the goal's
        step decide otherwise is as far as can be: the walk tries the others first."""
        goal = self.current()
        made = self.led.get((source, label), set())
        if goal is None or (source, label) == goal[:2] or goal[:2] in made:
            return 0
        far = len(self.wf.steps) + 1
        if any(step == goal[0] for step, _ in made) and not self._steered(goal[0]):
            return 2 * far
        ends = [goal[0]] + [c[0] for c, did in self.led.items() if goal[:2] in did]
        return 1 + min(distances(self.wf, end).get(target, far) for end in ends)
