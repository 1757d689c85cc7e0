"""Sealing an approved plan, and finding the sealed plan an invocation of the plan's workflow
belongs to. The seal is a hash of what the plan makes the agent do: a plan edited after its
approval no longer matches it and is refused, whatever changed."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import Any, TypeVar

from skills.lib.workflow.base.errors import SkillrailError, UsageError

#: The plan's fields the seal covers: everything but the bookkeeping the seal step writes.
_BOOKKEEPING = ("status", "sealed", "skill", "target", "approved_by")
T = TypeVar("T")


def seal_of(plan: dict[str, Any]) -> str:
    body = {k: v for k, v in plan.items() if k not in _BOOKKEEPING}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def seal(path: str, skill: str, target: str, approved: list[str] | None = None,
         run: str | None = None, settings: dict[str, Any] | None = None) -> str:
    """Mark the plan at `path` approved, for `skill` (its name) at `target` (its folder).
    `approved`: the checks outside the policy that the user's approval lets this run use (the
    seal covers them, so they cannot be added afterwards), approved in `run`, whose ledger
    keeps them too. `settings`: what the skill's SKILL.md sets for its runs (retries, budget,
    timeout, early termination), written over anything the plan said. Returns the seal."""
    with open(path, encoding="utf-8") as handle:
        plan = json.load(handle)
    plan.update({k: v for k, v in (settings or {}).items() if v is not None})
    plan["approved_commands"] = approved or []
    plan["approved_by"] = run or ""
    plan.update(status="approved", skill=skill, target=target)
    plan["sealed"] = seal_of(plan)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=2)
        handle.write("\n")
    return str(plan["sealed"])


def plan_path(argv: list[str]) -> str | None:
    """The plan an invocation names: its --plan, or the plan of the run its --run names."""
    found = flag(argv, "--plan")
    run_id = flag(argv, "--run")
    if found is not None or run_id is None:
        return found
    from skills.lib.workflow.ledger.store import Ledger

    with Ledger() as ledger:
        run = ledger.run(run_id)
    return run.params.get("plan") if run is not None else None


def flag(argv: list[str], name: str) -> str | None:
    """The value of `--name VALUE` or `--name=VALUE` in argv."""
    for n, item in enumerate(argv):
        if item.startswith(name + "="):
            return item.partition("=")[2]
        if item == name and n + 1 < len(argv):
            return argv[n + 1]
    return None


def sealed_plan(argv: list[str], sample: str) -> dict[str, Any]:
    """The approved plan of this invocation (the sample when it names none: discovery, --help,
    simulation); UsageError when it is missing, unsealed or changed since approval."""
    path = plan_path(argv) or sample
    from skills.lib.runner.plan import read_json

    plan, problem = read_json(os.path.abspath(path))
    if problem:
        raise UsageError(problem, "skill-runner-plan", "Run the command skill-runner's last "
                         "step printed, unchanged")
    if not isinstance(plan, dict) or plan.get("status") != "approved":
        raise UsageError(f"the plan {path} is not approved", "skill-runner-plan",
                         "Plan and approve it with the skill-runner skill first")
    if plan.get("sealed") != seal_of(plan):
        raise UsageError(f"the plan {path} changed after it was approved", "skill-runner-plan",
                         "Run skill-runner again to plan and approve the change")
    if plan.get("approved_commands"):
        _check_approval(plan, path)
    return plan


def _check_approval(plan: dict[str, Any], path: str) -> None:
    """Commands beyond the policy run only as the user approved them: the approving run's
    ledger must hold this seal and exactly these commands (a plan file alone proves nothing)."""
    from skills.lib.workflow.graph.model import STEP_STATE
    from skills.lib.workflow.ledger.store import Ledger

    by = str(plan.get("approved_by") or "")
    with Ledger() as ledger:
        run = ledger.run(by) if by else None
    state = json.loads(run.memory.get(STEP_STATE + "seal", "{}")) if run is not None else {}
    if state != {"seal": plan.get("sealed"), "approved_commands": plan["approved_commands"]}:
        raise UsageError(f"the plan {path} names commands beyond the policy that no run in the "
                         "ledger approved with it", "skill-runner-plan",
                         "Run skill-runner again (not --stateless) to have the user approve "
                         "the plan")


def load_or_exit(argv: list[str], sample: str, module: str) -> dict[str, Any]:
    """sealed_plan; when the defining script is the one being run, a refusal is one error line
    and exit 2, never a traceback."""
    return or_exit(lambda: sealed_plan(argv, sample), module)


def or_exit(make: Callable[[], T], module: str) -> T:
    """What `make` makes when a script loads (its workflow's input); when the defining script
    (`module`) is the one being run, a refusal is its error line and exit status, never a
    traceback. Imported (discovery, tests), the error is raised."""
    import sys

    try:
        return make()
    except SkillrailError as exc:
        if module != "__main__":
            raise
        sys.stderr.write("\n".join(exc.lines()) + "\n")
        raise SystemExit(exc.exit_code) from None
