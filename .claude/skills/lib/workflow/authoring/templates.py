"""Step text from jinja2 templates in a skill's `resources/` (prose lives in resources, structure
in code). A template renders to plain text that goes into an element, never to tags.

jinja2 is imported only when a template is rendered, so steps without templates stay on the
standard library. Undefined variables are errors (StrictUndefined), reported with the template
and line, never rendered as empty text.
"""

import os
from typing import Any

from ..base.errors import SkillrailError
from ..graph.model import StepContext, skill_folder


class Template:
    """A text rendered from a jinja2 template in the skill's folder, for prose too long to keep
    in the script: `Action(Template("resources/focus.md.j2"), out="FOCUS")`. It is a function
    of the `StepContext`, so it goes wherever a text may be computed at run time.

    The template sees `params` (the run's params), `memory` (the values this step may see),
    `step` (its id), `run` (the run id, empty without one) and `passes(edge)` (how often the
    rework edge `step:outcome` was taken). A variable it uses that is not defined is an error
    naming the template and line, never empty text; jinja2 is imported only when a template
    renders. `path` is relative to the skill folder."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"Template({self.path!r})"

    def __call__(self, ctx: StepContext) -> str:
        full = os.path.join(skill_folder(ctx.workflow.source), self.path)
        try:
            with open(full, encoding="utf-8") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise SkillrailError(f"cannot read template {full}: {exc}",
                                 f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'",
                                 "Reinstall the skill") from None
        return _render(source, full, _variables(ctx), ctx)


def _variables(ctx: StepContext) -> dict[str, Any]:
    return {"params": dict(ctx.params), "memory": dict(ctx.values), "step": ctx.step.id,
            "run": ctx.run or "", "passes": ctx.passes}


def _render(source: str, path: str, variables: dict[str, Any], ctx: StepContext) -> str:
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=False)
    try:
        return env.from_string(source).render(**variables).strip()
    except jinja2.TemplateSyntaxError as exc:
        raise SkillrailError(f"template {path} line {exc.lineno}: {exc.message}",
                             f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'",
                             "Fix the template") from None
    except jinja2.UndefinedError as exc:
        raise SkillrailError(f"template {path}: {exc.message}",
                             f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'",
                             "Give the value (params, memory) or guard it with "
                             "{% if ... is defined %}") from None
