"""The plan the skill-runner's agent writes for an instructions-only skill: a JSON document
validated by pydantic, every problem named by step and field. The plan becomes a workflow
(build.py); its `verify` commands are checked against the security gateway before approval.

pydantic loads only when a plan is checked; building a workflow from a sealed plan needs json.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

#: A plan longer than this is refused unless the run was started with a larger --max-steps.
DEFAULT_MAX_STEPS = 12
DEFAULT_RETRIES = 3


@functools.cache
def plan_model() -> type[BaseModel]:
    """The schema, built on first use."""
    from pydantic import BaseModel, ConfigDict, Field, model_validator

    from skills.lib.workflow.authoring.execution import DEFAULT_ITERATIONS

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")

    class PlanStep(Strict):
        id: str = Field(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", max_length=30)
        title: str = Field(min_length=1, max_length=80)
        tool_call: str | None = Field(default=None, min_length=1)
        text_task: str | None = Field(default=None, min_length=1)
        optimizer: str = Field(min_length=1)
        evaluator: str = Field(min_length=1)
        key_outputs: list[str] = Field(default_factory=list)
        verify: str | None = Field(default=None, min_length=1)
        # The step passes when its check fails (the red phase of a test-first step).
        expect_failure: bool = False

        @model_validator(mode="after")
        def one_action(self) -> PlanStep:
            from skills.lib.runner.build import OWN_STEPS, PARTS

            if self.id in OWN_STEPS or self.id.endswith(PARTS):
                raise ValueError(f"the id '{self.id}' is the run's own: no step may be "
                                 f"{', '.join(OWN_STEPS)} or end with {', '.join(PARTS)}")
            if (self.tool_call is None) == (self.text_task is None):
                raise ValueError("give exactly one action: tool_call (one tool call) or "
                                 "text_task (one text-processing task), not both and not none")
            for key in self.key_outputs:
                if not key.replace("_", "").isalnum() or not key[:1].isupper() \
                        or key.upper() != key:
                    raise ValueError(f"key output '{key}' must be UPPER_SNAKE, e.g. RELEASE_TAG")
            return self

    class Plan(Strict):
        directive: str = Field(min_length=1, max_length=300)
        max_retries: int = Field(default=DEFAULT_RETRIES, ge=0, le=10)
        steps: list[PlanStep] = Field(min_length=1)
        skill: str = ""  # written by the seal step, with the status and the seal
        target: str = ""
        status: str = "draft"
        sealed: str = ""
        approved_commands: list[str] = Field(default_factory=list)  # the seal step's too
        approved_by: str = ""
        # A check of the whole directive: with the skill's early_termination, the run ends as
        # soon as it passes after a plan step.
        acceptance: str | None = Field(default=None, min_length=1)
        # The skill's settings, which the seal step writes (and seals) from its SKILL.md.
        budget: int = Field(default=DEFAULT_ITERATIONS, ge=2, le=100)
        timeout: float | None = Field(default=None, gt=0)
        early_termination: bool = False

        @model_validator(mode="after")
        def unique(self) -> Plan:
            ids = [s.id for s in self.steps]
            twice = sorted({i for i in ids if ids.count(i) > 1})
            if twice:
                raise ValueError(f"step ids must be unique; repeated: {', '.join(twice)}")
            keys = [k for s in self.steps for k in s.key_outputs]
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise ValueError(f"each key output belongs to one step; repeated: "
                                 f"{', '.join(twice)}")
            return self

    return Plan


def plan_problems(path: str, max_steps: int,
                  verify_problem: Callable[[str, set[str]], str | None],
                  budget: int | None = None) -> list[str]:
    """Every problem of the plan at `path`, each naming its step and field; [] when it is good.
    `verify_problem(command, names)` says what the gateway would refuse in a verify command
    that may use the key outputs `names` of the steps before it. `budget`: the attempts the
    skill allows a run in all (its max_iterations), which the plan's steps may not outnumber."""
    from pydantic import ValidationError

    data, problem = read_json(path)
    if problem:
        return [problem]
    problems = []
    try:
        plan_model().model_validate(data)
    except ValidationError as exc:
        problems += [_located(error, data) for error in exc.errors()]
    # The limits and the commands are checked on the raw data too, so every problem shows at
    # once, whatever else is wrong.
    steps = data.get("steps") if isinstance(data, dict) else None
    steps = steps if isinstance(steps, list) else []
    if len(steps) > max_steps:
        problems.append(f"the plan has {len(steps)} steps, more than the limit of "
                        f"{max_steps}: merge steps that belong together, or start the run "
                        "again with a larger --max-steps")
    elif budget is not None and len(steps) > budget:
        problems.append(f"the plan has {len(steps)} steps, but the skill allows a run "
                        f"{budget} attempts in all (its max_iterations), so it could never "
                        "finish: merge steps that belong together")
    earlier: set[str] = set()
    for n, step in enumerate(steps, 1):
        step = step if isinstance(step, dict) else {}
        command = step.get("verify")
        said = verify_problem(command, earlier) if isinstance(command, str) and command else None
        if said:
            problems.append(f"{_step_name(n - 1, data)}, field 'verify': {said}")
        outputs = step.get("key_outputs")
        if isinstance(outputs, list):
            earlier |= {k for k in outputs if isinstance(k, str)}
    accept = data.get("acceptance") if isinstance(data, dict) else None
    said = verify_problem(accept, earlier) if isinstance(accept, str) and accept else None
    if said:
        problems.append(f"field 'acceptance': {said}")
    return problems


def read_json(path: str) -> tuple[Any, str]:
    """(data, '') or (None, what is wrong with the file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle), ""
    except FileNotFoundError:
        return None, f"no plan file at {path}: write the plan there first"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read {path}: {exc}"
    except json.JSONDecodeError as exc:
        return None, f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column " \
                     f"{exc.colno}"


def _located(error: Any, data: Any) -> str:
    """'step 2 ('run-tests'), field 'evaluator': Field required' from a pydantic error."""
    loc = list(error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    if len(loc) >= 2 and loc[0] == "steps" and isinstance(loc[1], int):
        where = _step_name(loc[1], data)
        field = ".".join(map(str, loc[2:]))
        return f"{where}, field '{field}': {message}" if field else f"{where}: {message}"
    if not loc:
        return message
    return f"field '{'.'.join(map(str, loc))}': {message}"


def _step_name(index: int, data: Any) -> str:
    """'step 2 ('run-tests')' for the step at `index` of the raw plan."""
    steps = data.get("steps") if isinstance(data, dict) else None
    item = steps[index] if isinstance(steps, list) and index < len(steps) else None
    name = item.get("id") if isinstance(item, dict) else None
    return f"step {index + 1}" + (f" ('{name}')" if isinstance(name, str) and name else "")
