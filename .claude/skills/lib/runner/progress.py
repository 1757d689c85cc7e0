"""How far a plan's run got: which plan steps it met, which it did not and why, read from the
run's moves in the ledger. The run's last steps report it ("3 of 5 plan steps met; not met:
..."), and a run that ends with a step not met is recorded as partial."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from skills.lib.workflow.graph.model import Rework, StepContext

#: The shared counter of attempts (every attempt after a run's first), capped by the budget.
ATTEMPTS = "attempts"


class Progress(NamedTuple):
    met: list[str]  # plan step ids, in plan order
    not_met: list[tuple[str, str]]  # (plan step id, why)
    accepted: bool  # the plan's acceptance check passed, ending the run early
    known: bool  # False without a ledger (a stateless run): nothing to count
    tries: Mapping[str, int] = MappingProxyType({})  # attempts per plan step entered

    def _met(self) -> str:
        return ", ".join(s + (f" (after {self.tries[s]} attempts)" if self.tries.get(s, 1) > 1
                              else "") for s in self.met)

    def summary(self, total: int) -> str:
        if not self.known:
            return "This run kept no ledger, so its progress was not counted."
        if self.accepted:
            return (f"The plan's acceptance check passed after {len(self.met)} of {total} plan "
                    "steps: the directive is met, and the steps left were not needed.")
        head = f"{len(self.met)} of {total} plan steps met" + (f": {self._met()}" if self.met
                                                                 else "")
        if not self.not_met:
            return head + "."
        return head + "; not met: " + "; ".join(f"{s} ({why})" for s, why in self.not_met) + "."

    @property
    def partial(self) -> bool:
        return self.known and not self.accepted and bool(self.not_met)


def progress(ctx: StepContext, plan: dict[str, Any]) -> Progress:
    """The run's progress through `plan` so far (nothing known without a run)."""
    if ctx.run is None:
        return Progress([], [], False, False)
    from skills.lib.workflow.ledger.store import Ledger

    with Ledger() as ledger:
        moves = [(source, outcome, target) for _, source, outcome, target, _
                 in ledger.transitions(ctx.run)]
    return of_moves(moves, plan, ctx.workflow.by_id)


def of_moves(moves: Sequence[tuple[str, str, str]], plan: dict[str, Any],
             steps: Any) -> Progress:
    """Progress from a run's moves (source, outcome, target), in order. A move by a rework edge
    that did not go to the edge's target went to its exhaustion step: the budget ran out."""
    ids = [s["id"] for s in plan["steps"]]
    passed = {s.removesuffix("-eval") for s, o, _ in moves if s.endswith("-eval") and o == "pass"}
    accepted = any(s.endswith("-accept") and o == "ok" for s, o, _ in moves)
    skipped = {s.removesuffix("-escalate") for s, o, _ in moves
               if s.endswith("-escalate") and o == "skip"}
    stopped = next((s.removesuffix("-escalate") for s, o, _ in moves
                    if s.endswith("-escalate") and o == "abort"), None)
    spent = any(_exhausted(steps, s, o, t) for s, o, t in moves)
    entered = {s for s, _, _ in moves} | {t for _, _, t in moves}
    not_met = []
    for sid in ids:
        if sid in passed:
            continue
        why = ("skipped after its tries failed" if sid in skipped
               else "the user stopped the run here" if sid == stopped
               else ("tried; the run used its attempts first" if spent else "tried, not passed")
               if sid in entered
               else "not reached: the run used its attempts" if spent
               else "not reached")
        not_met.append((sid, why))
    tries = {sid: sum(1 for _, _, t in moves if t == sid) + (sid == ids[0]) for sid in ids}
    return Progress([s for s in ids if s in passed], not_met, accepted, True, tries)


def _exhausted(steps: Any, source: str, outcome: str, target: str) -> bool:
    step = steps.get(source)
    edge = step.next.get(outcome) if step is not None else None
    return isinstance(edge, Rework) and edge.counter == ATTEMPTS and target != edge.target
