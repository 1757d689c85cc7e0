"""The end of a plan's run: what it taught is recorded for the skill it ran (learned.py), so
the next planning of that skill starts from it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skills.lib.workflow import decides
from skills.lib.workflow.graph.model import VERIFY_OUTPUT, StepContext


def learner(plan: dict[str, Any]) -> Callable[[StepContext], str]:
    """The handler of the `learn` step for `plan`."""

    @decides("ok")
    def learn(ctx: StepContext) -> str:
        if ctx.run is None:  # stateless: there is no ledger to learn into
            return "ok"
        from skills.lib.workflow.ledger.learned import record
        from skills.lib.workflow.ledger.store import Ledger

        with Ledger() as ledger:
            found = lessons(plan, ledger.transitions(ctx.run), ledger.memory_writes(ctx.run),
                            ctx.values)
            with ledger.transaction():
                for kind, text in found:
                    record(ledger, plan.get("skill") or "unknown", ctx.run, kind, text)
        return "ok"

    return learn


def lessons(plan: dict[str, Any], moves: list[tuple[int, str, str, str, float]],
            writes: list[tuple[int, str, str, str]],
            memory: dict[str, str] | Any) -> list[tuple[str, str]]:
    """(kind, text) of each case a run teaches: one success case (the steps that passed, in
    order, with their key outputs; what was skipped; where it stopped), one failure case per
    failed evaluation or check, and the user's feedback."""
    from skills.lib.runner.build import key

    steps = {s["id"]: s for s in plan["steps"]}
    passed = [s[:-5] for _, s, o, _, _ in moves if s.endswith("-eval") and o == "pass"]
    skipped = [s[:-9] for _, s, o, _, _ in moves if s.endswith("-escalate") and o == "skip"]
    stopped = next((s[:-9] for _, s, o, _, _ in moves if s.endswith("-escalate")
                    and o == "abort"), None)
    found: list[tuple[str, str]] = []
    tries = {s: sum(1 for _, src, _, _, _ in moves if src == s) for s in steps}
    if passed:
        done = "; ".join(_outputs(steps[s], memory, tries.get(s, 1)) for s in passed
                         if s in steps)
        found.append(("success", f"passed in order: {done}"
                      + (f"; skipped: {', '.join(skipped)}" if skipped else "")
                      + (f"; stopped at {stopped}" if stopped else "")))
    for _, name, step, value in writes:
        sid = step.removesuffix("-eval")
        if step.endswith("-eval") and name == key(sid, "FINDINGS"):
            case = ("failure", f"{sid}: {value}")
        elif step.endswith("-verify") and name == VERIFY_OUTPUT and \
                not value.startswith("[exit 0]"):
            case = ("failure", f"{step.removesuffix('-verify')} check: "
                               f"{value.strip().splitlines()[-1][:300]}")
        else:
            continue
        if case not in found:  # the same failure on every attempt teaches it once
            found.append(case)
    found += [case for case in _failed_approaches(steps, passed, writes) if case not in found]
    if memory.get("FEEDBACK"):
        found.append(("feedback", memory["FEEDBACK"]))
    return found


def _failed_approaches(steps: dict[str, Any], passed: list[str],
                       writes: list[tuple[int, str, str, str]]) -> list[tuple[str, str]]:
    """Each approach a retry named (CHANGE_<step>) that did not make its step pass: every one
    but the last of a step that passed, all of a step that never did."""
    from skills.lib.runner.build import key

    found = []
    for sid in steps:
        tried = [value for _, name, _, value in writes if name == key(sid, "CHANGE")]
        failed = tried[:-1] if sid in passed else tried
        found += [("failure", f"{sid}: the approach '{value[:200]}' did not pass")
                  for value in failed]
    return found


def _outputs(step: dict[str, Any], memory: Any, attempts: int) -> str:
    keys = step.get("key_outputs", [])
    shown = ", ".join(f"{k}={memory.get(k, '?')[:200]}" for k in keys)
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    return f"{step['id']}{tried}" + (f" ({shown})" if shown else "")
