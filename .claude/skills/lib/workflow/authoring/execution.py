"""How a skill asks to be run autonomously: the settings its SKILL.md frontmatter may give
skill-runner (a skillrail profile beside the Agent Skills keys, README "SKILL.md"), validated
when the skill loads, every problem with its file, line, key and fix.

    execution_mode: autonomous | simple   plan, approve and check; or the steps once, in order
    max_iterations: 15                     plan steps plus retries a run may take in all
    max_retries_per_tool: 3                retries of one step before its approach must change
    timeout_per_iteration: 30s             a limit for each check and injected command
    early_termination: false               the run may end once the plan's acceptance check passes
    context: fork, agent: Explore, model: haiku   run the plan in a sub-agent (Claude Code's keys)

pydantic is the authority (`settings_model`), loaded only when a frontmatter sets one of these
keys: a skill that sets none gets the defaults without it."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pydantic import BaseModel

#: The keys of the profile, and Claude Code's keys skill-runner also reads.
PROFILE_KEYS = frozenset({"execution_mode", "max_iterations", "max_retries_per_tool",
                          "timeout_per_iteration", "early_termination"})
FORK_KEYS = frozenset({"context", "agent", "model"})
#: The attempts a skill's run may make in all (plan steps plus retries) when its SKILL.md sets
#: no max_iterations: the settings' default, and the plan's budget when it names none.
DEFAULT_ITERATIONS = 15
#: The built-in sub-agent types; any other name is a custom agent of the project's.
AGENTS = ("Explore", "Plan", "general-purpose")
#: What each key takes, as the fix of a value refused.
FIXES = {
    "execution_mode": "Write execution_mode: autonomous (planned, approved, checked) or simple "
                      "(the skill's steps once, in order)",
    "max_iterations": "Write a whole number from 2 to 100, e.g. max_iterations: "
                      f"{DEFAULT_ITERATIONS}",
    "max_retries_per_tool": "Write a whole number from 0 to 10, e.g. max_retries_per_tool: 3",
    "timeout_per_iteration": "Write a duration: a number with a unit, e.g. 30s, 5m, 1h or 1m30s",
    "early_termination": "Write early_termination: true or false",
    "context": "Write context: fork (the only value), or leave the key out",
    "agent": f"Name a sub-agent ({', '.join(AGENTS)}, or a custom agent's name) and set "
             "context: fork",
    "model": "Name a model, e.g. haiku, sonnet or opus",
}
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?"
                       r"(?:(\d+)ms)?")


class Settings(NamedTuple):
    """The settings as skill-runner uses them (the defaults when the skill sets none)."""

    mode: str = "autonomous"
    max_iterations: int = DEFAULT_ITERATIONS
    max_retries: int = 3
    timeout: float | None = None  # seconds
    early_termination: bool = False
    fork: bool = False
    agent: str | None = None
    model: str | None = None


class Problem(NamedTuple):
    key: str
    line: int
    message: str
    fix: str

    def text(self, path: str) -> str:
        return f"{path}:{self.line}: {self.message}. {self.fix}"


def seconds(value: object) -> float:
    """A duration in seconds: a number (seconds), or '30s', '5m', '1h', '1m30s', '500ms'."""
    if isinstance(value, bool):
        raise ValueError("a duration, not true or false")
    if isinstance(value, int | float):
        total = float(value)
    else:
        text = str(value).strip().replace(" ", "")
        match = _DURATION.fullmatch(text) if text else None
        if match is None or not any(match.groups()):
            raise ValueError(f"'{str(value)[:40]}' is not a duration")
        hours, minutes, secs, millis = (float(g) if g else 0.0 for g in match.groups())
        total = hours * 3600 + minutes * 60 + secs + millis / 1000
    if not 0 < total <= 24 * 3600:
        raise ValueError("a duration must be more than 0 and at most 24h")
    return total


@functools.cache
def settings_model() -> type[BaseModel]:
    """The profile's schema (pydantic, built on first use)."""
    from typing import Literal

    from pydantic import (
        BaseModel,
        ConfigDict,
        Field,
        StrictBool,
        StrictInt,
        field_validator,
        model_validator,
    )

    class ExecutionSettings(BaseModel):
        model_config = ConfigDict(extra="ignore")  # the other keys are lint's to judge

        execution_mode: Literal["autonomous", "simple"] = "autonomous"
        max_iterations: StrictInt = Field(DEFAULT_ITERATIONS, ge=2, le=100)
        max_retries_per_tool: StrictInt = Field(3, ge=0, le=10)
        timeout_per_iteration: float | None = None
        early_termination: StrictBool = False
        context: Literal["fork"] | None = None
        agent: str | None = Field(None, min_length=1, max_length=64, pattern=r"^[\w.:-]+$")
        model: str | None = Field(None, min_length=1, max_length=100, pattern=r"^[\w.:\[\]-]+$")

        @field_validator("timeout_per_iteration", mode="before")
        @classmethod
        def duration(cls, value: object) -> float | None:
            return None if value is None else seconds(value)

        @model_validator(mode="after")
        def agent_forks(self) -> ExecutionSettings:
            if self.agent is not None and self.context != "fork":
                raise ValueError("it names the sub-agent of a forked run, but context is "
                                 "not fork")
            return self

    return ExecutionSettings


def read_settings(front: Mapping[str, Any], lines: Mapping[str, int],
                  known: frozenset[str] = frozenset()) -> tuple[Settings, list[Problem]]:
    """The settings `front` (a frontmatter mapping) gives, and every problem of them: a bad
    value, or an unknown key close to one of the profile's (`known`: the other keys accepted,
    which are no misspelling). `lines` gives each key's line in the file."""
    from ..base.errors import did_you_mean

    problems = [Problem(str(key), lines.get(str(key), 1), f"unknown frontmatter key '{key}'",
                        "Remove it, or fix its name." + hint)
                for key in front if key not in PROFILE_KEYS | FORK_KEYS | known
                and (hint := did_you_mean(str(key), PROFILE_KEYS))]
    given = {k: v for k, v in front.items() if k in PROFILE_KEYS | FORK_KEYS}
    if not given.keys() & (PROFILE_KEYS | {"context", "agent"}):
        return Settings(), problems  # nothing of the profile: no pydantic to load
    from pydantic import ValidationError

    try:
        made = settings_model().model_validate(given)
    except ValidationError as exc:
        for error in exc.errors():
            key = str(error["loc"][0]) if error["loc"] else "agent"
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(Problem(key, lines.get(key, 1), f"{key}: {message}",
                                    FIXES.get(key, "Fix the value")))
        return Settings(), problems
    got: dict[str, Any] = made.model_dump()
    return Settings(got["execution_mode"], got["max_iterations"], got["max_retries_per_tool"],
                    got["timeout_per_iteration"], got["early_termination"],
                    got["context"] == "fork", got["agent"], got["model"]), problems


def key_lines(front: str, first: int = 2) -> dict[str, int]:
    """The line of each top-level key of frontmatter text `front` (which starts at line `first`
    of its file)."""
    found: dict[str, int] = {}
    for number, line in enumerate(front.splitlines(), first):
        match = re.match(r"([A-Za-z_][\w-]*)\s*:", line)
        if match:
            found.setdefault(match.group(1), number)
    return found
