"""The standard library's readers of documents vouch only for what the library they stand in for
accepts, and read it alike, so a step that reads such a document loads neither pydantic nor
yaml: JSON documents (authoring/plaindoc.py: the planner's plan in planner/planlib/plain.py, a
review report in authoring/qrreport.py) against their pydantic model, and a SKILL.md's plain
frontmatter (authoring/skillmd.py) against yaml."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from skills.lib.workflow.authoring.qrreport import plain_report, report_model
from skills.lib.workflow.authoring.skillmd import plain_frontmatter, split_frontmatter
from skills.planner.planlib.model import plan_model
from skills.planner.planlib.plain import plain_plan
from skills.planner.planlib.steps import sample_plan

from .conftest import SKILLS_ROOT
from .strategies import frontmatter_texts, plan_data, report_data


def as_data(value: Any) -> Any:
    """A plan read by the fast path as plain data, to compare with the model's dump."""
    if isinstance(value, SimpleNamespace):
        return {k: as_data(v) for k, v in vars(value).items()}
    return [as_data(v) for v in value] if isinstance(value, list) else value


def model_says(data: Any, model: Any = plan_model) -> dict[str, Any] | None:
    from pydantic import ValidationError

    try:
        return dict(model().model_validate(data).model_dump())
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


@settings(max_examples=300, deadline=None)
@given(report_data())
def test_what_the_fast_path_reads_of_a_report_the_model_reads_alike(data: object) -> None:
    """Every report plain_report returns is one the model accepts, defaults included."""
    report = plain_report(data)
    if report is not None:
        assert as_data(report) == model_says(data, report_model)


def test_a_report_in_the_documented_shape_takes_the_fast_path() -> None:
    data = {"items": [{"id": "F1", "severity": "MUST", "location": "a.py:3", "problem": "x"}]}
    assert as_data(plain_report(data)) == model_says(data, report_model) == {"items": [
        {"id": "F1", "severity": "MUST", "status": "open", "location": "a.py:3",
         "problem": "x", "fix": ""}]}


@settings(max_examples=500, deadline=None)
@given(frontmatter_texts())
def test_what_the_plain_frontmatter_reads_yaml_reads_alike(front: str) -> None:
    """Every frontmatter plain_frontmatter reads, yaml reads as the same mapping of strings."""
    import yaml

    found = plain_frontmatter(front)
    if found is not None:
        assert found == yaml.safe_load(front)


def test_every_shipped_skill_md_takes_the_plain_path() -> None:
    """The frontmatter of every shipped SKILL.md (and of skill-runner's example) is plain."""
    import yaml

    for path in sorted(SKILLS_ROOT.rglob("SKILL.md")):
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
        assert parts is not None, path
        assert plain_frontmatter(parts[0]) == yaml.safe_load(parts[0]), path
