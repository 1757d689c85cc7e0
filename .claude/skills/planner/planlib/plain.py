"""A plan read with the standard library: the fast path of the plan check (model.py), so that the
executor's and the planner's steps that read a valid plan.json never import pydantic.

It accepts only a plan that certainly passes the model (authoring/plaindoc.py: exact JSON
types, every key known, every length met; here also the id pattern and the dependency rules)
and returns it as the model's object would read; anything else it declines with None, and the
pydantic model decides and words the problems. Its fields are checked against the model's,
and a property test holds the two to the same answers.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from skills.lib.workflow.authoring.plaindoc import (
    REQUIRED,
    Declined,
    Field,
    described,
    many,
    one_of,
    record,
    string,
    text,
)

_MILESTONE_ID = re.compile(r"M[0-9]+")


def plain_plan(data: Any) -> SimpleNamespace | None:
    """The plan, when the model would accept `data` as it is; else None."""
    try:
        plan = read_fields(data)
    except Declined:
        return None
    ids = [m.id for m in plan.milestones]
    if len(set(ids)) != len(ids) or any(d not in ids for m in plan.milestones
                                        for d in m.depends_on) or _cyclic(plan):
        return None
    return plan


def _milestone_id(value: Any) -> str:
    if type(value) is not str or not _MILESTONE_ID.fullmatch(value):
        raise Declined
    return value


described(_milestone_id, ("pattern", _MILESTONE_ID.pattern))


_DIFF: dict[str, Field] = {"file": (text, REQUIRED), "diff": (text, REQUIRED)}
_MILESTONE: dict[str, Field] = {
    "id": (_milestone_id, REQUIRED), "title": (text, REQUIRED), "goal": (text, REQUIRED),
    "files": (many(string, 1), REQUIRED), "depends_on": (many(string), list),
    "acceptance": (many(string, 1), REQUIRED), "diffs": (many(record(_DIFF)), list)}
_DECISION: dict[str, Field] = {"decision": (text, REQUIRED), "why": (text, REQUIRED),
                               "rejected": (many(string), list)}
_RISK: dict[str, Field] = {"risk": (text, REQUIRED), "mitigation": (text, REQUIRED)}
_PLAN: dict[str, Field] = {
    "status": (one_of("draft", "approved"), "draft"), "request": (text, REQUIRED),
    "constraints": (many(string), list), "decisions": (many(record(_DECISION), 1), REQUIRED),
    "milestones": (many(record(_MILESTONE), 1), REQUIRED),
    "risks": (many(record(_RISK)), list), "invisible_knowledge": (many(string), list),
    "check": (string, ""), "approved_commands": (many(string), list),
    "approved_by": (string, "")}
#: The plan's fields, each checked as the model checks it (the rules across fields: plain_plan).
read_fields = record(_PLAN)


def _cyclic(plan: SimpleNamespace) -> bool:
    from .model import waves

    return sum(len(w) for w in waves(plan, set())) < len(plan.milestones)
