"""The standard library's reading of a plan (planner/planlib/plain.py) vouches only for plans the
pydantic model accepts, and gives the same plan, so the steps that read a valid plan.json never
import pydantic."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from skills.planner.planlib.model import plan_model
from skills.planner.planlib.plain import plain_plan
from skills.planner.planlib.steps import sample_plan

from .strategies import plan_data


def as_data(value: Any) -> Any:
    """A plan read by the fast path as plain data, to compare with the model's dump."""
    if isinstance(value, SimpleNamespace):
        return {k: as_data(v) for k, v in vars(value).items()}
    return [as_data(v) for v in value] if isinstance(value, list) else value


def model_says(data: Any) -> dict[str, Any] | None:
    from pydantic import ValidationError

    try:
        return plan_model().model_validate(data).model_dump()
    except ValidationError:
        return None


@settings(max_examples=500, deadline=None)
@given(plan_data())
def test_what_the_fast_path_reads_the_model_reads_alike(data: dict[str, object]) -> None:
    """Every plan plain_plan returns is one the model accepts, with the same fields and
    defaults."""
    plan = plain_plan(data)
    if plan is not None:
        assert as_data(plan) == model_says(data)


def test_the_sample_plans_take_the_fast_path() -> None:
    """A plan written as plan-format.md says (the sample) needs no model."""
    for approved in (True, False):
        plan = plain_plan(sample_plan(approved))
        assert plan is not None and as_data(plan) == model_says(sample_plan(approved))


def test_a_plan_with_a_dependency_cycle_is_left_to_the_model() -> None:
    """The graph rules hold on the fast path too: the model words the problem."""
    data = sample_plan(approved=True)
    data["milestones"][0]["depends_on"] = ["M2"]  # type: ignore[index]
    assert plain_plan(data) is None and model_says(data) is None
