"""Render every shape a workflow's steps can take, for checking against the schema without an
agent: each step, with each decided outcome of a script-decided step, at the first pass and at
the last pass of every loop. Params and memory get example values; no handler runs."""

from __future__ import annotations

from collections.abc import Iterator

from ..base.errors import SkillrailError
from ..graph.model import StepContext, Workflow
from ..protocol import render
from ..step.render import build_view


def sample_states(workflow: Workflow) -> list[dict[str, int]]:
    """No loop taken yet, and every loop at its last pass."""
    last = {key: edge.rework.max_iterations - 1 for key, edge in workflow.reworks.items()
            if edge.rework is not None}
    return [{}, last] if last else [{}]


def render_samples(workflow: Workflow, fmt: str = "xml") -> Iterator[tuple[str, str]]:
    """(label, document) for each sample; a step whose text fails to render raises
    SkillrailError naming the step."""
    params = {p.name: p.sample or p.default or f"example {p.name}" for p in workflow.params}
    # Every key some step asks for, with an example value, so texts and dispatches that read
    # memory (templates, per-item dispatches) render as they would in a run.
    memory = {a.key: a.choices[0] if a.choices else f"example {a.key.lower()}"
              for step in workflow.steps for a in step.args}
    for counts in sample_states(workflow):
        for step in workflow.steps:
            outcomes = list(step.next) if step.decided_by == "script" else [None]
            for decided in outcomes:
                ctx = StepContext(workflow, step, params, memory, counts)
                label = f"{workflow.name}:{step.id}" + (f" ({decided})" if decided else "")
                try:
                    yield label, render(build_view(ctx, decided, fmt), fmt)
                except SkillrailError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a skill's dynamic text is its bug
                    raise SkillrailError(f"step text failed to render: {type(exc).__name__}: "
                                         f"{exc}", label, "Fix the step's text callable") from None
