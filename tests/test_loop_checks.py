"""W020 (a loop of script-decided steps only) and W021 (a Rework that closes no loop) against
brute-force oracles on random graphs, and each on the documented pattern that meets it.

The oracles relax reachability closures (tests/test_validate_oracle.py) and share nothing with
the strongly connected search of graph/validate.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skills.lib.workflow import Rework, StepDef, Workflow
from skills.lib.workflow.core import Outcome, StepContext

from .strategies import workflows
from .test_validate_oracle import Graph, closure, edges, findings_of

pytestmark = pytest.mark.slow  # thousands of generated examples

#: A check the gateway can run: a step with it is decided by the script.
CHECK = "git status --short"


@st.composite
def mixed_workflows(draw: st.DrawFn) -> Workflow:
    """A random graph whose steps are each decided by the agent or, at random, by a check."""
    wf = draw(workflows())
    scripted = draw(st.lists(st.booleans(), min_size=len(wf.steps), max_size=len(wf.steps)))
    return wf._replace(steps=tuple(s._replace(verify=CHECK) if by else s
                                   for s, by in zip(wf.steps, scripted, strict=True)))


def script_loops(wf: Workflow) -> set[frozenset[str]]:
    """The loops of the graph cut down to its script-decided steps (every edge between two such
    steps, rework and exhaustion edges included): each step on a cycle, with the steps it reaches
    and is reached from."""
    scripted = {s.id for s in wf.steps if s.decided_by == "script"}
    succ: Graph = {n: m & scripted for n, m in edges(wf, with_rework=True).items()
                   if n in scripted}
    reach = closure(succ)
    return {frozenset({n} | {m for m in reach[n] if n in reach[m]})
            for n in reach if n in reach[n]}


def open_reworks(wf: Workflow) -> set[tuple[str, str]]:
    """(step, outcome) of each Rework to a known step that never leads back to the step."""
    reach = closure(edges(wf, with_rework=True))
    return {(s.id, o) for s in wf.steps for o, t in s.next.items()
            if isinstance(t, Rework) and t.target in reach
            and s.id != t.target and s.id not in reach[t.target]}


@given(mixed_workflows())
@settings(max_examples=300, deadline=None)
def test_w020_names_each_script_only_loop_once(wf: Workflow) -> None:
    loops = script_loops(wf)
    found = [f.step for f in findings_of(wf) if f.code == "W020"]
    assert len(found) == len(loops)
    assert all(sum(step in loop for step in found) == 1 for loop in loops)


@given(mixed_workflows())
@settings(max_examples=300, deadline=None)
def test_w021_names_each_rework_that_closes_no_loop(wf: Workflow) -> None:
    found = [(f.step, f.outcome) for f in findings_of(wf) if f.code == "W021"]
    assert len(found) == len(set(found))
    assert set(found) == open_reworks(wf)


def test_the_documented_loop_on_its_own_step_is_refused_with_the_fix() -> None:
    """The original's confidence loop written on the step the agent works in: its handler would
    decide again and again in one invocation, with no work between its passes."""
    def assess(ctx: StepContext) -> Outcome:
        return Outcome.OK if ctx.workflow_params.get("confidence") == "high" else Outcome.ITERATE

    wf = Workflow("confidence", StepDef(
        id="investigate", title="Investigate", actions=["Gather evidence."], handler=assess,
        next={Outcome.OK: "formulate", Outcome.ITERATE: Rework("investigate", 3, "formulate")}),
        StepDef(id="formulate", title="Formulate", actions=["Answer."], next={Outcome.OK: None}))
    [finding] = [f for f in findings_of(wf) if f.code == "W020"]
    assert finding.step == "investigate" and "investigate -> investigate" in finding.message
    assert "put the work in a step of its own" in finding.fix


def test_a_rework_that_goes_on_rather_than_back_is_refused_with_a_plain_edge() -> None:
    wf = Workflow("forward", StepDef("a", "A", actions=["x"], next={"ok": Rework("b", 3, "c")}),
                  StepDef("b", "B", actions=["y"], next={"ok": "c"}),
                  StepDef("c", "C", actions=["z"], next={"ok": None}))
    [finding] = [f for f in findings_of(wf) if f.code == "W021"]
    assert (finding.step, finding.outcome) == ("a", "ok")
    assert finding.fix == "Use a plain edge: next={'ok': 'b'}"
