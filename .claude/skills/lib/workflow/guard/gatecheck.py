"""A project policy file's data checked with the standard library: the fast path that spares a
step that injects a command pydantic's import (~70 ms) when a project has `.claude/skillrail.yaml`.

It accepts only data already in the plain form a policy is written in (exact types, no
coercion, every key known, every bound and rule of gatemodel.py's model met) and returns what
that model would return for it (`model_dump(exclude_unset=True, exclude_none=True)`, key order
included). Anything else, it declines with None, and gatemodel.py decides: it accepts the lax
forms pydantic coerces, and words the errors. So the fast path can only say yes where the model
says the same yes; a property test holds the two to that, and its tables of fields and choices
are checked against the model's (tests/test_fastpath_fields.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

# The same primitives as the plain readers of JSON documents: one way to decline, one Literal.
from ..authoring.commandtext import check_syntax, words
from ..authoring.plaindoc import Declined, one_of
from ..base.errors import GatewayRefusal

_OPTION = re.compile(r"(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*)")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
#: The choices of the model's Literals, each checked by one check made once.
_OPTION_KIND = one_of("flag", "value", "optional", "path", "count")
_OPERANDS = one_of("none", "any", "paths")
_INTERPRETER = one_of("skill", "workspace")
_ROLE_SHOWN = one_of("full", "summary", "hidden")
_SANDBOX = {"auto": "auto", "required": "required", "off": "off", False: "off", True: "required"}
#: A role of `visibility.roles`, and a Claude Code tool rule of `visibility.sensitive_tools`
#: ('WebFetch', 'Bash(curl:*)', 'mcp__github'); gatemodel.py checks them with these too.
ROLE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
TOOL_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\([^()]+\))?")
#: A variable the project's test command gets (`tests.env`); PATH and HOME are the gateway's.
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
RESERVED_ENV = ("PATH", "HOME")


Check = Callable[[Any], Any]


def plain_policy(data: dict[str, Any]) -> dict[str, Any] | None:
    """The checked policy data, as gatemodel.validated returns it; None when the fast path
    cannot vouch for it (then gatemodel.validated must run)."""
    try:
        data = {k: v for k, v in data.items() if not _key(k).startswith("x-")}
        if "version" not in data:
            raise Declined
        return _fields(data, _POLICY)
    except Declined:
        return None


def unknown_keys(data: dict[str, Any]) -> list[str]:
    """The top-level keys of a policy's data that a policy does not have (`x-` keys aside)."""
    return [str(k) for k in data if str(k) not in _POLICY and not str(k).startswith("x-")]


def known_keys() -> list[str]:
    return list(_POLICY)


def _key(value: Any) -> str:
    if type(value) is not str:
        raise Declined
    return value


def _fields(data: Any, fields: dict[str, Check]) -> dict[str, Any]:
    """Each field given, checked, in the model's field order; a None is left out."""
    if type(data) is not dict or not set(map(_key, data)) <= set(fields):
        raise Declined
    checked = {name: check(data[name]) for name, check in fields.items() if name in data}
    return {name: value for name, value in checked.items() if value is not None}


def _exact(kind: type) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise Declined
        return value
    return check


def _strings(pattern: re.Pattern[str] | None = None) -> Check:
    def check(value: Any) -> list[str]:
        if type(value) is not list or any(type(v) is not str for v in value) or (
                pattern is not None and not all(pattern.fullmatch(v) for v in value)):
            raise Declined
        return list(value)
    return check


def _number(top: float, whole: bool) -> Check:
    """A bound number or None: an int for an int field; an int or a finite float for a float
    field, given as a float (as pydantic gives it)."""
    def check(value: Any) -> Any:
        if value is None:
            return None
        if type(value) is not int and (whole or type(value) is not float):
            raise Declined
        if (type(value) is float and not math.isfinite(value)) or not 0 < value <= top:
            raise Declined
        return value if whole else float(value)
    return check


def _sandbox(value: Any) -> str | None:
    if value is None:
        return None
    if type(value) not in (str, bool) or value not in _SANDBOX:
        raise Declined
    return _SANDBOX[value]


def _options(value: Any) -> dict[str, str]:
    if type(value) is not dict or not all(_OPTION.fullmatch(_key(k)) for k in value):
        raise Declined
    return {k: _OPTION_KIND(v) for k, v in value.items()}


_GRAMMAR: dict[str, Check] = {
    "options": _options, "operands": _OPERANDS, "operands_with": _strings(),
    "numeric": _exact(bool), "always": _strings()}


def _grammar(value: Any, fields: dict[str, Check] = _GRAMMAR) -> dict[str, Any]:
    """A command's grammar (or a program's, with `fields`): operands_with names options."""
    checked = _fields(value, fields)
    if any(o not in checked.get("options", {}) for o in checked.get("operands_with", [])):
        raise Declined
    return checked


def _subcommands(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if type(value) is not dict or not all(_NAME.fullmatch(_key(k)) for k in value):
        raise Declined
    return {name: _grammar(rule) for name, rule in value.items()}


def _interpreter(value: Any) -> str | None:
    return None if value is None else _INTERPRETER(value)


_PROGRAM: dict[str, Check] = {
    **_GRAMMAR, "subcommands": _subcommands, "interpreter": _interpreter,
    "modules": _strings(_NAME), "timeout": _number(3600, whole=False),
    "max_output": _number(1_000_000, whole=True), "writes": _exact(bool),
    "local": _exact(bool)}


def _program(value: Any) -> dict[str, Any]:
    """One program, with the model's rule that it has one shape."""
    checked = _grammar(value, _PROGRAM)
    own = any(checked.get(k) for k in ("options", "always", "operands_with", "numeric"))
    if (own and "subcommands" in checked) or ("interpreter" in checked and (
            own or "subcommands" in checked)) or (checked.get("modules") and
                                                   "interpreter" not in checked):
        raise Declined
    return checked


def _programs(value: Any) -> dict[str, Any]:
    if type(value) is not dict or not all(_NAME.fullmatch(_key(k)) for k in value):
        raise Declined
    return {name: _program(rule) for name, rule in value.items()}


def _ledger(value: Any) -> str | None:
    """The team ledger's URL, checked by base/paths.ledger_url (gatemodel.py says why)."""
    if value is None:
        return None
    if type(value) is not str:
        raise Declined
    return value


def _version(value: Any) -> int:
    if type(value) is not int or value != 2:
        raise Declined
    return value


def _roles(value: Any) -> dict[str, str]:
    if type(value) is not dict or not value or not all(ROLE.fullmatch(_key(k)) for k in value):
        raise Declined
    return {k: _ROLE_SHOWN(v) for k, v in value.items()}


_VISIBILITY: dict[str, Check] = {"roles": _roles, "sensitive_tools": _strings(TOOL_RULE)}


def _visibility(value: Any) -> dict[str, Any] | None:
    return None if value is None else _fields(value, _VISIBILITY)


def tests_command_problem(command: str) -> str | None:
    """What keeps `command` from being the project's test command, or None: it is run word for
    word, so it holds no variable and no shell syntax."""
    if not command.strip():
        return "it is empty"
    try:
        for word in words(command):
            check_syntax(word)
    except GatewayRefusal as exc:
        return f"{exc.what} (it runs word for word, without a shell)"
    return None


def _command(value: Any) -> str:
    if type(value) is not str or tests_command_problem(value):
        raise Declined
    return value


def _env(value: Any) -> dict[str, str]:
    if type(value) is not dict or not all(
            ENV_NAME.fullmatch(_key(k)) and k not in RESERVED_ENV and type(v) is str
            for k, v in value.items()):
        raise Declined
    return dict(value)


_TESTS: dict[str, Check] = {"command": _command, "timeout": _number(3600, whole=False),
                            "env": _env}


def _tests(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    checked = _fields(value, _TESTS)
    if "command" not in checked:
        raise Declined
    return checked


_POLICY: dict[str, Check] = {
    "version": _version, "defaults": _exact(bool), "timeout": _number(3600, whole=False),
    "max_output": _number(1_000_000, whole=True),
    "max_arg_chars": _number(100_000, whole=True), "max_args": _number(10_000, whole=True),
    "sandbox": _sandbox, "hide": _strings(), "programs": _programs, "tests": _tests,
    "visibility": _visibility,
    "ledger": _ledger}
