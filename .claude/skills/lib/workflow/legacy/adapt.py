"""Turn a STEPS dict of the original API into a Workflow, which `@skill` validates and registers
like any other: the legacy script gets validation, the run ledger and protocol v1 for free.

- Step N becomes `step-N`; a gate step becomes `<qr-name>-gate`. `--step N` still works.
- LinearRouting -> outcome `ok` to step N+1; TerminalRouting -> `ok` ends the run;
  BranchRouting(p, f) -> outcomes `pass` and `fail`, judged by the agent (one `ok` when p == f).
- A GateConfig becomes the shared review loop (`qr_loop`): the step before the gate is the
  review, `work_step` is redone in fix mode on a failed review, within `iteration_limit` passes,
  then the user is asked. The verdict is `--set QR_VERDICT=...` or the original `--qr-status`.
- Actions are plain instructions, or pieces made by the format_* functions: a forbidden list,
  an expected output, a sub-agent dispatch and an inlined text become the StepDef's own parts;
  banners are dropped, since the loop state draws them.

Shape problems the graph checks cannot see are W017 findings, all reported at once.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..authoring.qr import VERDICT, qr_loop, review_pass
from ..authoring.registry import refuse, register_workflow
from ..base.errors import Finding, InvalidWorkflow
from ..graph.model import (
    Action,
    Fragment,
    StepContext,
    StepDef,
    Target,
    Workflow,
    fragment_parts,
    marked,
)
from .model import BranchRouting, LinearRouting, Step, TerminalRouting

#: The original framework's QR_ITERATION_LIMIT.
ITERATION_LIMIT = 5
_WHEN = {"pass": "the work of this step succeeded",
         "fail": "the work of this step did not succeed"}


class LegacySkill:
    """What `@skill` returns: the registered workflow, and `main(argv)` to run a step."""

    def __init__(self, workflow: Workflow) -> None:
        self.workflow = workflow

    def main(self, argv: Sequence[str] | None = None) -> int:
        from ..step.cli import main

        return main(self.workflow, argv)

    __call__ = main


def skill(name: str, total_steps: int, *, description: str = "",
          iteration_limit: int = ITERATION_LIMIT) -> Callable[[Callable[[], Any]], LegacySkill]:
    """Decorate a function that returns the STEPS dict (or returns nothing, beside a module-level
    STEPS). The steps are adapted, validated and registered at once; a bad graph never runs."""

    def wrap(fn: Callable[[], Any]) -> LegacySkill:
        steps = fn()
        if steps is None:
            steps = fn.__globals__.get("STEPS")
        source = os.path.realpath(fn.__code__.co_filename)
        try:
            workflow = adapt(name, steps, total_steps, description=description, source=source,
                             limit=iteration_limit)
            return LegacySkill(register_workflow(workflow))
        except InvalidWorkflow as exc:
            refuse(InvalidWorkflow(name, map(_in_legacy_terms, exc.findings)),
                   fn.__globals__.get("__name__"))

    return wrap


def _in_legacy_terms(finding: Finding) -> Finding:
    """A finding whose fix names what a STEPS dict can hold: its routings hold no Rework."""
    if finding.code != "W007":
        return finding
    return finding._replace(fix="Bound the loop with a review gate (a Step with "
                                "gate=GateConfig(...): @skill's iteration_limit caps its passes), "
                                "or write the skill as StepDefs with a Rework edge")


def adapt(name: str, steps: Any, total_steps: int, *, description: str = "", source: str = "",
          limit: int = ITERATION_LIMIT) -> Workflow:
    """The Workflow a STEPS dict stands for (not yet validated or registered)."""
    findings = list(shape_findings(name, steps, total_steps))
    if findings:
        raise InvalidWorkflow(name, findings)
    defs = {n: _plain(steps, n) for n in sorted(steps)}
    tail: list[StepDef] = []
    for n in sorted(steps):
        if steps[n].gate is not None:
            tail += _gate(steps, n, defs, limit)
    return marked(Workflow(name, [defs[n] for n in sorted(defs)] + tail,
                           description=description), source=source or sys.argv[0], legacy=True)


def step_id(steps: Mapping[int, Step], n: int) -> str:
    gate = steps[n].gate
    return f"{kebab(gate.qr_name)}-gate" if gate is not None else f"step-{n}"


def kebab(name: str) -> str:
    """'QR-Completeness' -> 'qr-completeness': a loop name that fits a step id."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "qr"


def _plain(steps: Mapping[int, Step], n: int) -> StepDef:
    step = steps[n]
    parts = _parts(step.actions)
    route = step.routing
    nxt: dict[str, Target]
    when: Mapping[str, str] = {}
    # A gate's own routing is a stand-in: the review loop (_gate) replaces the step.
    if step.gate is not None or isinstance(route, TerminalRouting):
        nxt = {"ok": None}
    elif isinstance(route, BranchRouting) and route.if_pass != route.if_fail:
        nxt = {"pass": step_id(steps, route.if_pass), "fail": step_id(steps, route.if_fail)}
        when = _WHEN
    else:
        target = route.if_pass if isinstance(route, BranchRouting) else n + 1
        nxt = {"ok": step_id(steps, target)}
    return StepDef(step_id(steps, n), step.title, actions=parts["actions"], next=nxt,
                   when=when, forbidden=parts["forbidden"], expect="\n".join(parts["expect"]),
                   dispatch=parts["dispatch"][0] if parts["dispatch"] else None)


def _parts(actions: Sequence[str]) -> dict[str, list[Any]]:
    """Sort a legacy action list into the StepDef parts it stands for. Banners are dropped: the
    loop's state draws them from the graph and the run."""
    return fragment_parts(list(actions), banners=False)


def _review_of(steps: Mapping[int, Step], gate: int) -> list[int]:
    """The steps whose routing leads into step `gate`."""
    return [n for n in sorted(steps) if n != gate and gate in _targets(steps[n], n)]


def _targets(step: Step, n: int) -> set[int]:
    """The step numbers a step routes to (a gate's own routing is the loop's, not its own)."""
    route = step.routing
    if step.gate is not None:
        return set()
    if isinstance(route, BranchRouting):
        return {route.if_pass, route.if_fail}
    return {n + 1} if isinstance(route, LinearRouting) else set()


def _gate(steps: Mapping[int, Step], n: int, defs: dict[int, StepDef],
          limit: int) -> list[StepDef]:
    """Replace the work, review and gate steps by the shared review loop; return the steps the
    loop adds after the numbered ones (escalation, abort, and a finish when pass_step is None)."""
    config = steps[n].gate
    assert config is not None
    checkpoint = kebab(config.qr_name)
    review = _review_of(steps, n)[0]
    done = f"{checkpoint}-done"
    on_pass = step_id(steps, config.pass_step) if config.pass_step is not None else done
    work = defs[config.work_step]
    if not config.self_fix:
        agent = config.fix_target or "developer"

        def delegate(ctx: StepContext) -> str:
            return "" if review_pass(ctx) == 1 else (
                f"Make the fixes through a {agent} sub-agent: give it the findings and the "
                "files they name, and have it report what it changed.")

        work = work._replace(actions=(*work.actions, Action(delegate)))
    work, reviewed, gate, escalate, abort = qr_loop(checkpoint, work=work, review=defs[review],
                                                    on_pass=on_pass, limit=limit)
    message = config.pass_message
    fixer = None if config.self_fix else (config.fix_target or "developer")

    def verdict(ctx: StepContext) -> str:
        """What the gate says: the pass message, or the failure and who fixes it; 'run the
        command below' only when a command follows (not once the passes are used up)."""
        from ..step.routing import leg

        if ctx.values.get(VERDICT, "").strip() == "pass":
            return f"{message} Run the command below."
        if leg(ctx.step, "fail", dict(ctx.counts)).exhausted is not None:
            return "The review found blocking issues, and no pass is left."
        said = "The review found blocking issues. Run the command below"
        return (f"{said}: on the work step, hand the fixes to a {fixer} sub-agent (give it "
                "the findings and the files they name; do not fix them yourself)."
                if fixer else f"{said}, and fix them yourself on the work step.")

    defs[config.work_step], defs[review] = work, reviewed
    defs[n] = gate._replace(title=steps[n].title, actions=(Action(verdict),))
    tail = [escalate, abort]
    if config.pass_step is None:
        tail.append(StepDef(done, "Report the result", next={"ok": None}, complete=message,
                            actions=[Action(f"Tell the user: {message}", out="reply")]))
    return tail


def shape_findings(name: str, steps: Any, total: int) -> list[Finding]:
    """W017: what makes a STEPS dict impossible to adapt, all at once."""
    def bad(message: str, fix: str, n: int | None = None) -> Finding:
        return Finding("W017", name, message, None if n is None else f"step {n}", fix=fix)

    if not isinstance(steps, Mapping) or not steps:
        return [bad("STEPS is not a non-empty dict of step number -> Step",
                    "Return {1: Step(...), 2: Step(...), ...} from the @skill function")]
    if sorted(steps) != list(range(1, len(steps) + 1)):
        return [bad(f"the step numbers {sorted(steps, key=str)} are not 1..{len(steps)}",
                    "Number the steps 1, 2, 3, ... without gaps")]
    found = []
    if total != len(steps):
        found.append(bad(f"total_steps={total}, but STEPS has {len(steps)} steps",
                         f"Write total_steps={len(steps)}"))
    for n, step in steps.items():
        if not isinstance(step, Step):
            found.append(bad(f"is a {type(step).__name__}, not a Step", "Use Step(title, "
                             "actions, routing)", n))
            continue
        found += [bad(f"routes to step {t}, which is not in STEPS",
                      "Route to an existing step number, or use TerminalRouting()" if t > n
                      else "Route to an existing step number", n)
                  for t in sorted(_targets(step, n)) if t not in steps]
        found += _step_findings(step, n, bad)
        if step.gate is not None:
            found += _gate_findings(steps, n, bad)
    return found


def _step_findings(step: Step, n: int, bad: Callable[..., Finding]) -> list[Finding]:
    found = []
    if any(not isinstance(a, str) for a in step.actions):
        found.append(bad("an action is not a string", "Give actions as strings, or as the "
                         "results of the format_* functions", n))
    dispatches = [a for a in step.actions if isinstance(a, Fragment) and a.part[0] == "dispatch"]
    if len(dispatches) > 1:
        found.append(bad("has more than one sub-agent dispatch", "Dispatch from one step each, "
                         "or use the new API's Dispatch(items=...) for parallel sub-agents", n))
    if not isinstance(step.routing, LinearRouting | BranchRouting | TerminalRouting):
        found.append(bad(f"routing is a {type(step.routing).__name__}", "Use LinearRouting(), "
                         "BranchRouting(if_pass, if_fail) or TerminalRouting()", n))
    return found


def _gate_findings(steps: Mapping[int, Step], n: int,
                   bad: Callable[..., Finding]) -> list[Finding]:
    config = steps[n].gate
    assert config is not None
    found = []
    if config.work_step not in steps:
        found.append(bad(f"the gate's work_step {config.work_step} is not in STEPS",
                         "Name the step whose work the review checks", n))
    if config.pass_step is not None and config.pass_step not in steps:
        found.append(bad(f"the gate's pass_step {config.pass_step} is not in STEPS",
                         "Name an existing step, or None to end the run on a pass", n))
    reviews = _review_of(steps, n)
    if len(reviews) != 1:
        found.append(bad(f"{len(reviews)} steps route into the gate; it needs exactly one (the "
                         "review)", "Route only the review step into the gate", n))
    elif config.work_step in steps and _targets(steps[config.work_step], config.work_step) != \
            {reviews[0]}:
        found.append(bad(f"the gate's work_step {config.work_step} does not lead straight to "
                         f"the review, step {reviews[0]}",
                         "Place the review right after the work step", n))
    if any(s.gate is not None and s.gate.qr_name == config.qr_name and m != n
           for m, s in steps.items()):
        found.append(bad(f"the review loop name '{config.qr_name}' is used by two gates",
                         "Give each gate its own qr_name", n))
    return found
