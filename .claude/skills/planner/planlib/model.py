"""The plan: a JSON document with a schema (resources/plan-format.md explains it to agents).
Validated by pydantic, rendered to markdown for people, and ordered into dependency waves for
execution. A plan in plain form is vouched for by the standard library first (plain.py), so
pydantic is imported only by a step that reads a plan the fast path cannot vouch for."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

@functools.cache
def plan_model() -> type[BaseModel]:
    """The Plan schema, built on first use."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, model_validator

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")

    class Diff(Strict):
        file: str = Field(min_length=1)
        diff: str = Field(min_length=1, description="a unified diff against the current file")

    class Milestone(Strict):
        id: str = Field(pattern=r"^M[0-9]+$")
        title: str = Field(min_length=1)
        goal: str = Field(min_length=1)
        files: list[str] = Field(min_length=1)
        depends_on: list[str] = Field(default_factory=list)
        acceptance: list[str] = Field(min_length=1)
        diffs: list[Diff] = Field(default_factory=list)

    class Decision(Strict):
        decision: str = Field(min_length=1)
        why: str = Field(min_length=1)
        rejected: list[str] = Field(default_factory=list)

    class Risk(Strict):
        risk: str = Field(min_length=1)
        mitigation: str = Field(min_length=1)

    class Plan(Strict):
        status: Literal["draft", "approved"] = "draft"
        request: str = Field(min_length=1)
        constraints: list[str] = Field(default_factory=list)
        decisions: list[Decision] = Field(min_length=1)
        milestones: list[Milestone] = Field(min_length=1)
        risks: list[Risk] = Field(default_factory=list)
        invisible_knowledge: list[str] = Field(default_factory=list)
        # The command that shows the change works (the project's test suite); the executor
        # runs it. The seal step writes what the user approved beyond the policy, and where.
        check: str = ""
        approved_commands: list[str] = Field(default_factory=list)
        approved_by: str = ""

        @model_validator(mode="after")
        def _graph(self) -> Plan:
            ids = [m.id for m in self.milestones]
            if len(set(ids)) != len(ids):
                raise ValueError(f"milestone ids repeat: {ids}")
            for m in self.milestones:
                unknown = [d for d in m.depends_on if d not in ids]
                if unknown:
                    raise ValueError(f"{m.id} depends on {unknown}, which are not milestones")
            if _cyclic(self):
                raise ValueError("the milestones' dependencies form a cycle")
            return self

    return Plan


def load_plan(path: str, *, need_diffs: bool = False,
              need_approval: bool = False) -> tuple[Any, str]:
    """(plan, '') or (None, what is wrong, with the field path, and how to fix it)."""
    from skills.lib.workflow.authoring.documents import read_document
    from skills.planner.planlib.plain import plain_plan

    plan, problem = read_document(path, plan_model, "plan", plain=plain_plan)
    if plan is None:
        return None, problem
    bare = [m.id for m in plan.milestones if not m.diffs]
    if need_diffs and bare:
        return None, f"milestones {', '.join(bare)} have no diffs: fill milestones[].diffs"
    if need_approval and plan.status != "approved":
        return None, f"the plan at {path} is not approved (status: {plan.status})"
    return plan, ""


def waves(plan: Any, done: set[str]) -> list[list[str]]:
    """The milestones not yet done, in waves: each wave's milestones depend only on milestones
    done or in earlier waves, so a wave's milestones can be implemented in parallel."""
    left = {m.id: set(m.depends_on) - done for m in plan.milestones if m.id not in done}
    order: list[list[str]] = []
    while left:
        ready = sorted(m for m, deps in left.items() if not deps)
        if not ready:
            break  # a cycle: the model refuses such plans
        order.append(ready)
        left = {m: deps - set(ready) for m, deps in left.items() if m not in ready}
    return order


def _cyclic(plan: Any) -> bool:
    return sum(len(w) for w in waves(plan, set())) < len(plan.milestones)


def to_markdown(plan: Any) -> str:
    """The plan for people: request, decisions, milestones with acceptance and diffs, risks."""
    lines = [f"# Plan ({plan.status})", "", plan.request, ""]
    if plan.constraints:
        lines += ["## Constraints", "", *[f"- {c}" for c in plan.constraints], ""]
    lines += ["## Decisions", ""]
    for d in plan.decisions:
        rejected = f" Rejected: {'; '.join(d.rejected)}." if d.rejected else ""
        lines.append(f"- **{d.decision.rstrip('.')}.** {d.why.rstrip('.')}.{rejected}")
    lines += ["", "## Milestones", ""]
    for m in plan.milestones:
        after = f" (after {', '.join(m.depends_on)})" if m.depends_on else ""
        lines += [f"### {m.id}: {m.title}{after}", "", m.goal, "",
                  "Files: " + ", ".join(f"`{f}`" for f in m.files), "", "Acceptance:",
                  *[f"- {a}" for a in m.acceptance], ""]
        lines += [block for d in m.diffs for block in (f"`{d.file}`:", "", "```diff",
                                                        d.diff.rstrip(), "```", "")]
    if plan.risks:
        lines += ["## Risks", "", *[f"- {r.risk} Mitigation: {r.mitigation}"
                                   for r in plan.risks], ""]
    if plan.invisible_knowledge:
        lines += ["## What the code will not tell you", "",
                  *[f"- {k}" for k in plan.invisible_knowledge], ""]
    return "\n".join(lines)
