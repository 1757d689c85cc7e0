"""A plan read with the standard library: the fast path of the plan check (model.py), so that the
executor's and the planner's steps that read a valid plan.json never import pydantic.

It accepts only a plan that certainly passes the model (exact JSON types, every key known,
every length, pattern and dependency rule of the model met) and returns it with the model's
defaults filled in, as attributes, like the model's object. Anything else it declines with
None, and the pydantic model decides and words the problems. A property test holds the two to
the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

_MILESTONE_ID = re.compile(r"M[0-9]+")


class _Declined(Exception):
    """Not certainly valid: the model decides."""


Field = tuple[Callable[[Any], Any], Any]  # (check, default: _REQUIRED when the key must be given)
_REQUIRED = object()


def plain_plan(data: Any) -> SimpleNamespace | None:
    """The plan, when the model would accept `data` as it is; else None."""
    try:
        plan = _record(data, _PLAN)
    except _Declined:
        return None
    ids = [m.id for m in plan.milestones]
    if len(set(ids)) != len(ids) or any(d not in ids for m in plan.milestones
                                        for d in m.depends_on) or _cyclic(plan):
        return None
    return plan


def _record(data: Any, fields: dict[str, Field]) -> SimpleNamespace:
    if type(data) is not dict or not all(type(k) is str and k in fields for k in data):
        raise _Declined
    values = {}
    for name, (check, default) in fields.items():
        if name in data:
            values[name] = check(data[name])
        elif default is _REQUIRED:
            raise _Declined
        else:
            values[name] = default() if callable(default) else default
    return SimpleNamespace(**values)


def _text(value: Any) -> str:
    if type(value) is not str or not value:
        raise _Declined
    return value


def _string(value: Any) -> str:
    if type(value) is not str:
        raise _Declined
    return value


def _texts(value: Any) -> list[str]:
    return _many(_string)(value)


def _some(check: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    """A list of at least one item, each checked."""
    def checked(value: Any) -> list[Any]:
        items = _many(check)(value)
        if not items:
            raise _Declined
        return items
    return checked


def _many(check: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def checked(value: Any) -> list[Any]:
        if type(value) is not list:
            raise _Declined
        return [check(v) for v in value]
    return checked


def _of(fields: dict[str, Field]) -> Callable[[Any], SimpleNamespace]:
    return lambda value: _record(value, fields)


def _milestone_id(value: Any) -> str:
    if type(value) is not str or not _MILESTONE_ID.fullmatch(value):
        raise _Declined
    return value


def _status(value: Any) -> str:
    if value not in ("draft", "approved") or type(value) is not str:
        raise _Declined
    return str(value)


_DIFF: dict[str, Field] = {"file": (_text, _REQUIRED), "diff": (_text, _REQUIRED)}
_MILESTONE: dict[str, Field] = {
    "id": (_milestone_id, _REQUIRED), "title": (_text, _REQUIRED), "goal": (_text, _REQUIRED),
    "files": (_some(_string), _REQUIRED), "depends_on": (_texts, list),
    "acceptance": (_some(_string), _REQUIRED),
    "diffs": (_many(_of(_DIFF)), list)}
_DECISION: dict[str, Field] = {"decision": (_text, _REQUIRED), "why": (_text, _REQUIRED),
                               "rejected": (_texts, list)}
_RISK: dict[str, Field] = {"risk": (_text, _REQUIRED), "mitigation": (_text, _REQUIRED)}
_PLAN: dict[str, Field] = {
    "status": (_status, "draft"), "request": (_text, _REQUIRED), "constraints": (_texts, list),
    "decisions": (_some(_of(_DECISION)), _REQUIRED),
    "milestones": (_some(_of(_MILESTONE)), _REQUIRED), "risks": (_many(_of(_RISK)), list),
    "invisible_knowledge": (_texts, list)}


def _cyclic(plan: SimpleNamespace) -> bool:
    from .model import waves

    return sum(len(w) for w in waves(plan, set())) < len(plan.milestones)
