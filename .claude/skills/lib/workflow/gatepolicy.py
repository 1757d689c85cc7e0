"""What the security gateway allows: the project's policy file (YAML, validated by a pydantic
model) and a skill's `allowed-tools`, which narrows it (DESIGN.md section 6).

The policy of a workspace is its `.claude/skillrail.yaml` when it has one, else the defaults
shipped beside this module (`gateway.yaml`). A project file replaces the defaults rather than
merging with them, so what runs is exactly what the file says.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal, NamedTuple

from .errors import SkillrailError

PROJECT_FILE = os.path.join(".claude", "skillrail.yaml")
DEFAULT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gateway.yaml")
#: What an argument may hold unless a rule says more: anything but a stray quote (quotes that
#: survive word splitting are nested quoting, never needed by a plain command).
DEFAULT_PARAMS = r"[^'\"]*"

# The policy is checked with pydantic (models below) when it is a project's file; the shipped
# defaults are checked by a test instead, so a step that injects `git status` under the
# defaults does not pay pydantic's import. Checks read these plain tuples either way.


class Rule(NamedTuple):
    """One executable the gateway may run."""

    executable: str
    subcommands: tuple[str, ...] | None = None  # when set, the first argument is one of these
    params: str = DEFAULT_PARAMS  # every other argument must match this regex in full
    # An interpreter: runs only a script file, inside the skill's folder ("skill") or anywhere
    # in the workspace or the skill's folder ("workspace", e.g. a project's CLI); "" for none.
    scripts: str = ""
    timeout: float | None = None
    max_output: int | None = None


class Config(NamedTuple):
    """The policy file: defaults, the allowed commands and the blocked patterns."""

    timeout: float = 5.0
    max_output: int = 10_000
    max_arg_chars: int = 256
    max_args: int = 64
    commands: tuple[Rule, ...] = ()
    blocked: tuple[str, ...] = ()

    def rule(self, executable: str) -> Rule | None:
        return next((r for r in self.commands if r.executable == executable), None)


def config_of(data: dict[str, Any]) -> Config:
    """The plain config of a policy mapping that passed validation."""
    def scripts(value: object) -> str:
        return "skill" if value is True else (value if isinstance(value, str) else "")

    rules = tuple(Rule(r["executable"], tuple(r["subcommands"]) if r.get("subcommands")
                       is not None else None, r.get("params", DEFAULT_PARAMS),
                       scripts(r.get("scripts", False)), r.get("timeout"), r.get("max_output"))
                  for r in data.get("commands", []))
    plain = {k: data[k] for k in ("timeout", "max_output", "max_arg_chars", "max_args")
             if k in data}
    return Config(**plain, commands=rules, blocked=tuple(data.get("blocked", [])))


def policy_model() -> type[Any]:
    """The pydantic model of a policy file (built on first use: pydantic is slow to import)."""
    from pydantic import BaseModel, ConfigDict, Field, field_validator

    def compiles(value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"'{value}' is not a valid regular expression: {exc}") from None
        return value

    class CommandRule(BaseModel):
        model_config = ConfigDict(extra="forbid")

        executable: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")  # a bare name
        subcommands: list[str] | None = None
        params: str = DEFAULT_PARAMS
        scripts: bool | Literal["skill", "workspace"] = False
        timeout: float | None = Field(default=None, gt=0, le=600)
        max_output: int | None = Field(default=None, gt=0, le=1_000_000)

        @field_validator("params")
        @classmethod
        def _compiles(cls, value: str) -> str:
            return compiles(value)

    class GatewayConfig(BaseModel):
        model_config = ConfigDict(extra="forbid")

        version: int = Field(default=1, ge=1, le=1)
        timeout: float = Field(default=5.0, gt=0, le=600)
        max_output: int = Field(default=10_000, gt=0, le=1_000_000)
        max_arg_chars: int = Field(default=256, gt=0, le=100_000)
        max_args: int = Field(default=64, gt=0, le=10_000)
        commands: list[CommandRule] = []
        blocked: list[str] = []

        @field_validator("blocked")
        @classmethod
        def _all_compile(cls, values: list[str]) -> list[str]:
            return [compiles(v) for v in values]

    return GatewayConfig


class Policy(NamedTuple):
    """Everything one check needs: the config, the skill's Bash rules, and the two folders a
    command may touch."""

    config: Config
    source: str  # the policy file, for messages
    skill_rules: tuple[str, ...] | None  # the skill's Bash(...) patterns; None: no restriction
    skill_dir: str
    workspace: str


def load_policy(skill_dir: str, workspace: str) -> Policy:
    """The policy for commands of the skill in `skill_dir` run from `workspace`."""
    project = os.path.join(workspace, PROJECT_FILE)
    source = project if os.path.isfile(project) else DEFAULT_FILE
    return Policy(load_config(source), source, skill_bash_rules(skill_dir),
                  os.path.realpath(skill_dir), os.path.realpath(workspace))


def load_config(path: str) -> Config:
    """Parse and validate a policy file; every problem in one error naming the file. The
    shipped defaults are trusted (a test validates them)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SkillrailError(f"cannot read the gateway policy {path}: {_first_line(exc)}",
                             "security gateway", "Fix the file's YAML") from None
    if path == DEFAULT_FILE:
        return config_of(data)
    from pydantic import ValidationError

    try:
        checked = policy_model().model_validate(data if data is not None else {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'the file'}: {e['msg']}"
                             for e in exc.errors())
        raise SkillrailError(f"the gateway policy {path} is invalid: {problems}",
                             "security gateway", "Fix those entries; the defaults in "
                             f"{DEFAULT_FILE} show the shape") from None
    return config_of(checked.model_dump())


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def skill_bash_rules(skill_dir: str) -> tuple[str, ...] | None:
    """The `Bash(...)` patterns of the skill's `allowed-tools`, with ${CLAUDE_SKILL_DIR} and
    ${SKILL_DIR} resolved; None when the skill declares no `allowed-tools` (no restriction).
    A bare `Bash` allows every command, written here as the pattern '*'."""
    from .skillmd import read_frontmatter, tool_list

    front = read_frontmatter(Path(skill_dir) / "SKILL.md")
    if front is None or "allowed-tools" not in front:
        return None
    folder = os.path.realpath(skill_dir)
    rules = []
    for tool in tool_list(front["allowed-tools"]):
        if tool == "Bash":
            rules.append("*")
        elif tool.startswith("Bash(") and tool.endswith(")"):
            pattern = tool[5:-1].replace("${CLAUDE_SKILL_DIR}", folder)
            rules.append(pattern.replace("${SKILL_DIR}", folder))
    return tuple(rules)


def matches_skill_rule(argv: list[str], rule: str) -> bool:
    """Whether a skill's `Bash(rule)` allows the command, read as Claude Code reads it (the
    hooks' matcher: 'git diff:*' is a prefix, another '*' a wildcard, else the exact text)."""
    from .hooks.rules import bash_matches

    return bash_matches(rule, " ".join(argv))
