"""What the security gateway allows: the shipped default policy (`gateway.yaml`), extended by a
project's `.claude/skillrail.yaml`, narrowed by a skill's `allowed-tools` (docs/gateway.md).

A project file has the defaults' shape (version 2). Its programs are added to the defaults; a
program both name is taken from the project, except that its subcommands are merged one by one,
so a project can add `git stash list` without restating git. `defaults: false` starts from
nothing. What bounds the commands the policy allows is not the project's to weaken: the file is
the agent's (and any pull request's) to write, so its `hide:` only adds to what the sandbox
hides, and its `sandbox:` may require the sandbox but not turn it off: `off` comes from the
user's own environment alone (SKILLRAIL_SANDBOX, see sandbox_mode).

The project file is validated by a pydantic model (gatemodel.py), with errors naming the file,
the key and the fix; a file in plain form is checked first by the standard library
(gatecheck.py), which gives the model's result without its import. The shipped defaults are
trusted (a test validates them), and read from their parsed form (gateway.json) while it was
made from the YAML as it is. So a step that injects `git status` pays no pydantic or yaml import.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a command imports this module.
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ..base.errors import SkillrailError, did_you_mean, first_line
from .argvgrammar import Grammar

PROJECT_FILE = os.path.join(".claude", "skillrail.yaml")
DEFAULT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gateway.yaml")
#: The defaults parsed, beside them: what a step reads instead of parsing the YAML (see
#: read_defaults; write_defaults makes it).
PARSED_FILE = os.path.join(os.path.dirname(DEFAULT_FILE), "gateway.json")
SANDBOX_MODES = ("auto", "required", "off")
#: The user's own choice of sandbox, from their environment: the only way to turn it off.
USER_SANDBOX = "SKILLRAIL_SANDBOX"


class Program(NamedTuple):
    """One program the gateway may run, and how."""

    name: str
    grammar: Grammar | None  # its options and operands, when it has no subcommands
    subcommands: Mapping[str, Grammar] | None  # the first word must be one of these
    interpreter: str = ""  # 'skill' / 'workspace': runs .py scripts only (see gateway.py)
    modules: tuple[str, ...] = ()  # an interpreter may also run `-m MODULE` for these
    timeout: float | None = None
    max_output: int | None = None
    writes: bool = False  # the sandbox gives it the workspace read-write
    local: bool = False  # may be found on PATH inside the workspace (a project's own tool)


#: Seconds the project's tests may run when the policy's `tests:` does not say.
TESTS_TIMEOUT = 600.0


class Tests(NamedTuple):
    """The project's own test command (the policy's `tests:`): what a check names as
    `${PROJECT_TESTS}`, run word for word with the workspace writable (gateway.py)."""

    argv: tuple[str, ...]
    timeout: float = TESTS_TIMEOUT
    #: Variables the command gets beside the gateway's fixed environment; a leading `~/` in a
    #: value is the user's own home (a toolchain's folders: CARGO_HOME, RUSTUP_HOME, GOPATH).
    env: tuple[tuple[str, str], ...] = ()


class Config(NamedTuple):
    """A policy: limits, the sandbox mode, the programs, and the project's test command."""

    timeout: float = 5.0
    max_output: int = 10_000
    max_arg_chars: int = 256
    max_args: int = 64
    sandbox: str = "auto"
    hide: tuple[str, ...] = ()  # more paths the sandbox hides, beside the built-in ones
    programs: Mapping[str, Program] = {}
    tests: Tests | None = None

    def program(self, name: str) -> Program | None:
        return self.programs.get(name)


class Policy(NamedTuple):
    """Everything one check needs: the config, the skill's Bash rules, and the two folders a
    command may touch."""

    config: Config
    source: str  # the policy's file(s), for messages
    skill_rules: tuple[str, ...] | None  # the skill's Bash(...) patterns; None: no restriction
    skill_dir: str
    workspace: str
    # Exact commands (their words, variables put in) the user approved for one run, beyond
    # the rules: run through the gateway all the same (clean environment, confinement of
    # their words, the sandbox, limits), with APPROVED_TIMEOUT.
    approved: frozenset[tuple[str, ...]] = frozenset()
    notice: str = ""  # what the policy asked and did not get (a project's `sandbox: off`)
    #: The interpreter of `interpreter:` programs; "" is this one, which printed the step
    #: (`skillrail gateway check` names the python3 a step runs with instead).
    python: str = ""


#: Seconds an approved command may run: a project's test suite, not a quick read.
APPROVED_TIMEOUT = 300.0


def load_policy(skill_dir: str, workspace: str) -> Policy:
    """The policy for commands of the skill in `skill_dir` run from `workspace`."""
    project = os.path.join(workspace, PROJECT_FILE)
    has_project = os.path.isfile(project)
    config = load_config(project if has_project else None)
    mode, notice = sandbox_mode(config.sandbox)
    source = f"{DEFAULT_FILE} + {project}" if has_project else DEFAULT_FILE
    return Policy(config._replace(sandbox=mode), source, skill_bash_rules(skill_dir),
                  os.path.realpath(skill_dir), os.path.realpath(workspace), notice=notice)


def project_tests(workspace: str) -> Tests | None:
    """The project's test command, as the policy of the project at `workspace` names it."""
    project = os.path.join(workspace, PROJECT_FILE)
    return load_config(project if os.path.isfile(project) else None).tests


def sandbox_mode(asked: str, environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The sandbox mode commands run in, given the policy's `sandbox:` (`asked`) and the
    user's SKILLRAIL_SANDBOX, and a notice when the policy asked for what it may not have.
    `required` from either side wins; `off` only from the user: a project's file may make the
    sandbox stricter, never turn it off."""
    user = (os.environ if environ is None else environ).get(USER_SANDBOX) or "auto"
    if user not in SANDBOX_MODES:
        raise SkillrailError(f"{USER_SANDBOX}='{user}' is not a sandbox mode",
                             "security gateway", f"Set {USER_SANDBOX} to auto, required or "
                             "off, or unset it")
    if "required" in (asked, user):
        return "required", ""
    notice = "" if asked != "off" or user == "off" else (
        f"the project's `sandbox: off` ({PROJECT_FILE}) is ignored: a project's file may "
        f"require the sandbox, not turn it off; to run without it, set {USER_SANDBOX}=off in "
        "your own environment")
    return user, notice


def load_config(project: str | None) -> Config:
    """The defaults, extended by the project file at `project` (validated) when given."""
    data = read_defaults()
    if project is not None:
        data = merged(data, checked_project(read_policy_file(project), project))
    return config_of(data)


def read_defaults() -> dict[str, Any]:
    """The shipped defaults' data: from gateway.json when it was made from gateway.yaml as the
    YAML is now (it holds the text it was made from), which spares a step yaml's import and
    parse; else, say after an edit of the YAML, from the YAML itself."""
    import json

    try:
        with open(DEFAULT_FILE, encoding="utf-8") as source, \
                open(PARSED_FILE, encoding="utf-8") as parsed_file:
            text, parsed = source.read(), json.load(parsed_file)
        if parsed.get("from") == text and isinstance(parsed.get("policy"), dict):
            return dict(parsed["policy"])
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        pass  # missing or damaged: the YAML is the source
    return read_policy_file(DEFAULT_FILE)


def write_defaults() -> None:
    """Make gateway.json from gateway.yaml (after an edit of the YAML; a test says when)."""
    import json

    text = Path(DEFAULT_FILE).read_text(encoding="utf-8")
    Path(PARSED_FILE).write_text(json.dumps({
        "made-by": "skills.lib.workflow.guard.gatepolicy.write_defaults, from gateway.yaml",
        "from": text, "policy": read_policy_file(DEFAULT_FILE)}, indent=1) + "\n",
                                 encoding="utf-8")


def checked_project(data: dict[str, Any], project: str) -> dict[str, Any]:
    """A project file's data, validated: by the standard library when it is in the plain form
    a policy is written in (gatecheck.py), else by the pydantic model, which accepts what
    pydantic coerces and words every problem (gatemodel.py). Both give the same data."""
    from .gatecheck import plain_policy

    plain = plain_policy(data)
    if plain is not None:
        return plain
    try:
        from .gatemodel import validated
    except ModuleNotFoundError as exc:  # the model words the problem; this Python lacks it
        if exc.name != "pydantic":
            raise
        from .gatecheck import known_keys, unknown_keys

        unknown = unknown_keys(data)
        if unknown:
            raise SkillrailError(
                f"the gateway policy {project} has the key '{unknown[0]}', which a policy does "
                "not have", fix=f"Keys a policy has: {', '.join(known_keys())}."
                + did_you_mean(unknown[0], known_keys())) from None
        raise SkillrailError(
            f"the gateway policy {project} holds something other than a policy's plain form "
            "(a key it does not know, a value of another kind, a bound not met), and "
            f"{sys.executable} lacks pydantic, which names the problem",
            fix="Run `skillrail gateway policy` where skillrail is installed: it names the "
                "problem and its line") from None
    return validated(data, project, DEFAULT_FILE)


def merged(defaults: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """A project's policy data over the defaults' (see the module docstring)."""
    base = defaults if project.get("defaults", True) else {}
    out = {**{k: v for k, v in base.items() if k != "programs"},
           **{k: v for k, v in project.items() if k not in ("programs", "hide", "defaults")}}
    out["hide"] = [*base.get("hide", []), *project.get("hide", [])]
    programs = dict(base.get("programs", {}))
    for name, rule in project.get("programs", {}).items():
        old = programs.get(name)
        if old and old.get("subcommands") and rule.get("subcommands"):
            rule = {**rule, "subcommands": {**old["subcommands"], **rule["subcommands"]}}
        programs[name] = rule
    out["programs"] = programs
    return out


def config_of(data: Mapping[str, Any]) -> Config:
    """The plain config of policy data that passed validation (or the trusted defaults)."""
    programs = {name: _program(name, rule or {})
                for name, rule in (data.get("programs") or {}).items()}
    plain = {k: data[k] for k in ("timeout", "max_output", "max_arg_chars", "max_args",
                                  "sandbox") if data.get(k) is not None}
    tests = data.get("tests")
    return Config(**plain, hide=tuple(data.get("hide") or ()), programs=programs,
                  tests=None if not tests else _tests(tests))


def _tests(rule: Mapping[str, Any]) -> Tests:
    from ..authoring.commandtext import words

    return Tests(tuple(words(rule["command"])), rule.get("timeout") or TESTS_TIMEOUT,
                 tuple((rule.get("env") or {}).items()))


def _program(name: str, rule: Mapping[str, Any]) -> Program:
    subs = rule.get("subcommands")
    interpreter = rule.get("interpreter") or ""
    grammar = None if subs is not None or interpreter else _grammar(rule)
    return Program(name, grammar, None if subs is None else
                   {sub: _grammar(g or {}) for sub, g in subs.items()}, interpreter,
                   tuple(rule.get("modules") or ()), rule.get("timeout"),
                   rule.get("max_output"), bool(rule.get("writes", False)),
                   bool(rule.get("local", False)))


def _grammar(rule: Mapping[str, Any]) -> Grammar:
    return Grammar(dict(rule.get("options") or {}), rule.get("operands") or "any",
                   tuple(rule.get("operands_with") or ()), bool(rule.get("numeric", False)),
                   tuple(rule.get("always") or ()))


def read_policy_file(path: str) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader is ~10x faster
    try:
        data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SkillrailError(f"cannot read the gateway policy {path}: {first_line(exc)}",
                             "security gateway", "Fix the file's YAML") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SkillrailError(f"the gateway policy {path} is not a mapping of keys to values",
                             "security gateway", "Start from `skillrail gateway policy`'s "
                             "output")
    return data


def skill_bash_rules(skill_dir: str) -> tuple[str, ...] | None:
    """The `Bash(...)` patterns of the skill's `allowed-tools`, with ${CLAUDE_SKILL_DIR} and
    ${SKILL_DIR} resolved; None when the skill declares no `allowed-tools` (no restriction).
    A bare `Bash` allows every command, written here as the pattern '*'."""
    from ..authoring.skillmd import read_frontmatter, tool_list

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
    from .rules import bash_matches

    return bash_matches(rule, " ".join(argv))
