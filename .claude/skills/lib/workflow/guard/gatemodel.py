"""The pydantic model of a gateway policy file (version 2), and the one error a bad file gets:
every problem at once, each as `key.path: what is wrong`, with the file named and the fix.

Loaded only for a project's own `.claude/skillrail.yaml` (and by the test that checks the
shipped defaults): pydantic is slow to import, and the defaults are trusted.
"""

from __future__ import annotations

from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ..base.errors import SkillrailError, did_you_mean
from .gatecheck import ENV_NAME, RESERVED_ENV, ROLE, TOOL_RULE, tests_command_problem

_OPTION = r"^(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*)$"
_NAME = r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"  # a bare program or subcommand name, never a path
OptionKind = Literal["flag", "value", "optional", "path", "count"]
OperandKind = Literal["none", "any", "paths"]


class GrammarModel(BaseModel):
    """What one command accepts: its options (each spelled in full) and its operands."""

    model_config = ConfigDict(extra="forbid")

    options: dict[str, OptionKind] = {}
    operands: OperandKind = "any"
    operands_with: list[str] = []
    numeric: bool = False
    always: list[str] = []

    @model_validator(mode="after")
    def _options_are_options(self) -> GrammarModel:
        import re

        bad = [o for o in self.options if not re.match(_OPTION, o)]
        if bad:
            raise ValueError(f"'{bad[0]}' is not an option name (write '-x' or '--long-name', "
                             "without '=' or a value)")
        missing = [o for o in self.operands_with if o not in self.options]
        if missing:
            raise ValueError(f"operands_with names '{missing[0]}', which is not in options")
        return self


class ProgramModel(GrammarModel):
    """A program: its own grammar, or subcommands each with one, or an interpreter."""

    subcommands: dict[str, GrammarModel] | None = None
    interpreter: Literal["skill", "workspace"] | None = None
    modules: list[str] = []
    timeout: float | None = Field(default=None, gt=0, le=3600)
    max_output: int | None = Field(default=None, gt=0, le=1_000_000)
    writes: bool = False
    local: bool = False

    @model_validator(mode="after")
    def _one_shape(self) -> ProgramModel:
        import re

        own = bool(self.options or self.always or self.operands_with or self.numeric)
        if self.subcommands is not None and own:
            raise ValueError("a program with subcommands lists options under each subcommand")
        if self.interpreter is not None and (own or self.subcommands is not None):
            raise ValueError("an interpreter takes no options or subcommands: it runs only "
                             "scripts (and the modules listed)")
        if self.modules and self.interpreter is None:
            raise ValueError("modules is for interpreters (interpreter: skill or workspace)")
        bad = [s for s in [*(self.subcommands or {}), *self.modules] if not re.match(_NAME, s)]
        if bad:
            raise ValueError(f"'{bad[0]}' is not a bare subcommand or module name")
        return self


class VisibilityModel(BaseModel):
    """How much of a run's history each role sees (`skillrail trace --role`), and the tools
    whose mentions are hidden from everyone."""

    model_config = ConfigDict(extra="forbid")

    roles: dict[str, Literal["full", "summary", "hidden"]] = {}
    sensitive_tools: list[str] = []

    @model_validator(mode="after")
    def _names(self) -> VisibilityModel:
        if "roles" in self.model_fields_set and not self.roles:
            raise ValueError("roles names no role: name at least one (e.g. end_user: summary), "
                             "or leave roles out for the defaults, end_user: summary and "
                             "developer: full")
        bad = [r for r in self.roles if not ROLE.fullmatch(r)]
        if bad:
            raise ValueError(f"roles: '{bad[0]}' is not a role name (a letter, then letters, "
                             "digits, '_' or '-')")
        bad = [t for t in self.sensitive_tools if not TOOL_RULE.fullmatch(t)]
        if bad:
            raise ValueError(f"sensitive_tools: '{bad[0]}' is not a tool rule (write it as "
                             "Claude Code's permissions do: WebFetch, Bash(curl:*))")
        return self


class TestsModel(BaseModel):
    """The project's own test command: run word for word, no shell, the workspace writable."""

    model_config = ConfigDict(extra="forbid")

    command: str
    timeout: float | None = Field(default=None, gt=0, le=3600)
    env: dict[str, str] = {}

    @model_validator(mode="after")
    def _runnable(self) -> TestsModel:
        problem = tests_command_problem(self.command)
        if problem:
            raise ValueError(f"command: {problem}")
        bad = [k for k in self.env if not ENV_NAME.fullmatch(k) or k in RESERVED_ENV]
        if bad:
            raise ValueError(f"env: '{bad[0]}' cannot be set here (a variable name in capitals; "
                             "PATH and HOME are the gateway's own)")
        return self


class PolicyModel(BaseModel):
    """The policy file."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[2]
    defaults: bool = True
    timeout: float | None = Field(default=None, gt=0, le=3600)
    max_output: int | None = Field(default=None, gt=0, le=1_000_000)
    max_arg_chars: int | None = Field(default=None, gt=0, le=100_000)
    max_args: int | None = Field(default=None, gt=0, le=10_000)
    sandbox: Literal["auto", "required", "off"] | None = None
    hide: list[str] = []
    programs: dict[str, ProgramModel] = {}
    tests: TestsModel | None = None
    visibility: VisibilityModel | None = None
    #: The team's run ledger. base/paths.ledger_url reads and checks it on every step, without
    #: this model, and a bad one is the ledger's error: it must not make the gateway's policy
    #: invalid, which would stop every command of every skill for a mistyped URL.
    ledger: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _extensions(cls, data: Any) -> Any:
        """Top-level `x-...` keys hold YAML anchors (shared option lists), nothing else."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if not str(k).startswith("x-")}
        return data

    @field_validator("sandbox", mode="before")
    @classmethod
    def _yaml_booleans(cls, value: Any) -> Any:
        """YAML reads a bare `off` as false and `on` as true."""
        return {False: "off", True: "required"}.get(value, value) if isinstance(value, bool) \
            else value

    @model_validator(mode="after")
    def _program_names(self) -> PolicyModel:
        import re

        bad = [p for p in self.programs if not re.match(_NAME, p)]
        if bad:
            raise ValueError(f"programs: '{bad[0]}' is not a bare program name (the gateway "
                             "finds it on PATH; a path is never allowed)")
        return self


#: The model a key's value is checked with, by the key (where the path goes down a level).
_MODEL_OF: dict[str, Any] = {}


def validated(data: dict[str, Any], path: str, defaults: str) -> dict[str, Any]:
    """`data` read from `path` as checked policy data; SkillrailError listing every problem."""
    if "commands" in data or "blocked" in data or data.get("version") == 1:
        raise SkillrailError(
            f"the gateway policy {path} is a version 1 policy (commands/blocked), which is no "
            "longer read: version 2 lists each program's subcommands and options",
            "security gateway", "Rewrite it as `version: 2` with `programs:`, in the shape of "
            f"the defaults ({defaults}; `skillrail gateway policy` prints them). It extends "
            "the defaults: list only what your project adds")
    try:
        checked = PolicyModel.model_validate(data)
    except ValidationError as exc:
        lines = _key_lines(path)
        problems = "; ".join(_problem(e, lines) for e in exc.errors())
        raise SkillrailError(f"the gateway policy {path} is invalid: {problems}",
                             "security gateway", f"Fix those keys; the defaults ({defaults}) "
                             "show the shape a project's file extends") from None
    return checked.model_dump(exclude_unset=True, exclude_none=True)


def _problem(error: Any, lines: dict[tuple[str, ...], int]) -> str:
    loc = tuple(str(p) for p in error["loc"] if not str(p).startswith(("function-after",
                                                                       "function-before")))
    message = str(error["msg"]).removeprefix("Value error, ")
    if error.get("type") == "extra_forbidden":
        message = "not a key here" + _close_key(loc)
    line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
    return f"{'.'.join(loc) or 'the file'}{f' (line {line})' if line else ''}: {message}"


def _close_key(loc: tuple[str, ...]) -> str:
    """' (did you mean ...?)' for a mistyped key: the known keys where it stands."""
    model: Any = PolicyModel
    for part in loc[:-1]:  # down to the model that holds the key (a name in a mapping of
        if part in model.model_fields:  # programs or subcommands keeps the model it has)
            model = _MODEL_OF.get(part, model)
    known = list(getattr(model, "model_fields", {}))
    hint = did_you_mean(loc[-1], known).strip()
    return f" ({hint[0].lower()}{hint[1:-1]}?)" if hint else ""


def _key_lines(path: str) -> dict[tuple[str, ...], int]:
    """The line of each key of the YAML file at `path`, by its path of keys (none when the
    file cannot be read again)."""
    try:
        with open(path, encoding="utf-8") as handle:
            root = yaml.compose(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    found: dict[tuple[str, ...], int] = {}

    def walk(node: Any, at: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*at, str(key.value))
                found[here] = key.start_mark.line + 1
                walk(value, here)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*at, str(i)))

    walk(root, ())
    return found


_MODEL_OF.update(programs=ProgramModel, subcommands=GrammarModel, tests=TestsModel,
                 visibility=VisibilityModel)
