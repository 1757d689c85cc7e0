"""The security gateway: every command the framework itself runs (`!`cmd`` context injection,
`verify=` checks, scripts) passes here first (DESIGN.md section 6).

A command is a template: it is split into words with `shlex` *before* variables are put in, so a
substituted value is always exactly one argument, and it never reaches a shell. Each word is
then checked against the policy (gatepolicy.py). A refusal names the rule that refused, so an
author knows what to change; nothing runs unless every rule passes.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from .errors import SkillrailError

if TYPE_CHECKING:  # pydantic and subprocess load only when a command is checked or run
    from .execute import Completed
    from .gatepolicy import Policy

#: Characters with a meaning to a shell. Without a shell they would be passed on literally,
#: which is never what an author who wrote them meant, and they are how injections look.
SHELL_SYNTAX = re.compile(r"[;&|<>`$(){}\\]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
MAX_COMMAND_CHARS = 2_000
#: Inherited variables that change what a program runs or loads; dropped before every command.
_UNSAFE_ENV = re.compile(r"^(LD_|DYLD_|GIT_|BASH_ENV$|ENV$|PAGER$|PYTHONSTARTUP$|PYTHONINSPECT$"
                         r"|PERL5OPT$|RUBYOPT$|NODE_OPTIONS$|PROMPT_COMMAND$|IFS$)")


class GatewayRefusal(SkillrailError):
    """A command the policy does not allow; `rule` names the rule that refused it."""

    def __init__(self, rule: str, what: str, fix: str) -> None:
        super().__init__(f"refused by the gateway's rule '{rule}': {what}", "security gateway",
                         fix)
        self.rule = rule


class Checked(NamedTuple):
    """A command that passed every rule: what to run and with which limits."""

    argv: list[str]
    timeout: float
    max_output: int


def check(template: str, policy: Policy, substitute: Callable[[str], str] = str) -> Checked:
    """Split `template`, put variables into each word with `substitute`, and check the result;
    GatewayRefusal on the first rule it breaks."""
    argv = [substitute(word) for word in _words(template)]
    for word in argv:
        _check_syntax(word)
        if len(word) > policy.config.max_arg_chars:
            raise GatewayRefusal("argument-too-long", f"an argument has {len(word)} "
                                 f"characters, more than {policy.config.max_arg_chars}",
                                 f"Shorten it, or raise max_arg_chars in {policy.source}")
    return _check_command(argv, policy)


def static_problem(template: str) -> str | None:
    """What the gateway would refuse in `template` whatever the policy and the variables'
    values (for validation at registration), or None."""
    from .context import VARIABLE

    try:
        for word in _words(template):
            _check_syntax(re.sub(VARIABLE, "x", word))
    except GatewayRefusal as exc:
        return exc.what
    return None


def _words(template: str) -> list[str]:
    if _CONTROL.search(template):
        raise GatewayRefusal("control-character", "the command holds a line break, NUL or other "
                             "control character", "Write one command on one line")
    if len(template) > MAX_COMMAND_CHARS:
        raise GatewayRefusal("too-long", f"the command has {len(template)} characters, more "
                             f"than {MAX_COMMAND_CHARS}", "Shorten it")
    try:
        words = shlex.split(template, comments=False, posix=True)
    except ValueError as exc:
        raise GatewayRefusal("unparsable", f"the command cannot be split into words ({exc})",
                             "Balance its quotes") from None
    if not words:
        raise GatewayRefusal("empty", "the command is empty", "Name a command to run")
    return words


def _check_syntax(word: str) -> None:
    unknown = re.search(r"\$\{(\w+)\}", word)
    if unknown:  # left as written by the substitution: no value exists for it here
        raise GatewayRefusal("unknown-variable", f"${{{unknown.group(1)}}} has no value here",
                             "Use a variable that is known when the command runs: SKILL_DIR, "
                             "WORKSPACE, SESSION_ID, DATE, USER, ARGUMENTS, a param, or a "
                             "memory value an earlier step recorded")
    if _CONTROL.search(word):
        raise GatewayRefusal("control-character", "an argument holds a line break, NUL or "
                             "other control character", "Pass one-line values")
    found = SHELL_SYNTAX.search(word)
    if found:
        raise GatewayRefusal("shell-syntax", f"'{found.group()}' in '{_short(word)}': commands "
                             "run without a shell, so pipes, redirections, substitutions and "
                             "command lists are refused", "Run one plain command; move any "
                             "logic into a script inside the skill folder")


def _check_command(argv: list[str], policy: Policy) -> Checked:
    from .gatepolicy import matches_skill_rule

    config = policy.config
    name = argv[0]
    if _ASSIGNMENT.match(name):
        raise GatewayRefusal("environment-assignment", f"'{_short(name)}' sets an environment "
                             "variable", "Commands run with a fixed environment; drop it")
    if len(argv) > config.max_args:
        raise GatewayRefusal("too-many-arguments", f"{len(argv)} arguments, more than "
                             f"{config.max_args}", f"Raise max_args in {policy.source}")
    if "/" in name or name.startswith(("~", ".")):
        raise GatewayRefusal("executable-path", f"'{_short(name)}' is a path", "Name an "
                             "executable the policy lists (found on PATH), or run a script of "
                             "the skill with python3")
    rule = config.rule(name)
    if rule is None:
        allowed = ", ".join(r.executable for r in config.commands) or "none"
        raise GatewayRefusal("not-in-policy", f"'{name}' is not an allowed executable in "
                             f"{policy.source} (allowed: {allowed})", "Use one of those, or add "
                             f"a rule for '{name}' to {policy.source}")
    if policy.skill_rules is not None and not any(
            matches_skill_rule(argv, r) for r in policy.skill_rules):
        raise GatewayRefusal("not-in-allowed-tools", f"'{_short(' '.join(argv))}' matches no "
                             "Bash(...) entry of the skill's allowed-tools", "Add a matching "
                             "entry, e.g. Bash(" + name + ":*), to the SKILL.md frontmatter")
    rest = argv[1:]
    if rule.scripts:
        _check_script(rest, policy, anywhere=rule.scripts == "workspace")
        rest = rest[1:]
    elif rule.subcommands is not None:
        if not rest or rest[0] not in rule.subcommands:
            got = f"'{_short(rest[0])}'" if rest else "nothing"
            raise GatewayRefusal("subcommand", f"{name} allows the subcommands "
                                 f"{', '.join(rule.subcommands)} first; got {got}",
                                 "Put an allowed subcommand first (no options before it)")
        rest = rest[1:]
    for word in rest:
        _check_argument(word, rule.params, policy)
    return Checked(argv, rule.timeout or config.timeout, rule.max_output or config.max_output)


def _check_script(rest: list[str], policy: Policy, anywhere: bool = False) -> None:
    """An interpreter runs a script file, resolved with symlinks, and nothing else: one of the
    skill's, or (`anywhere`) one of the workspace's."""
    if not rest or rest[0].startswith("-"):
        raise GatewayRefusal("interpreter-option", "an interpreter may only run a script file "
                             "(no -c, -m or other options before it)", "Put the code in a "
                             "script inside the skill folder and run that")
    path = os.path.realpath(os.path.join(policy.workspace, rest[0]))
    if anywhere and not (_inside(path, policy.workspace) or _inside(path, policy.skill_dir)):
        raise GatewayRefusal("script-outside-workspace", f"'{_short(rest[0])}' resolves to "
                             f"{path}, outside the workspace {policy.workspace}",
                             "Run a script of the project (symlinks are followed)")
    if not anywhere and not _inside(path, policy.skill_dir):
        raise GatewayRefusal("script-outside-skill", f"'{_short(rest[0])}' resolves to {path}, "
                             f"outside the skill folder {policy.skill_dir}", "Run a script that "
                             "lives inside the skill folder (symlinks are followed), or let the "
                             f"rule run the project's scripts (scripts: workspace) in "
                             f"{policy.source}")
    if not os.path.isfile(path):
        raise GatewayRefusal("script-missing", f"no script at {path}", "Check the path")


def _check_argument(word: str, params: str, policy: Policy) -> None:
    for pattern in policy.config.blocked:
        if re.search(pattern, word):
            raise GatewayRefusal("blocked-pattern", f"'{_short(word)}' matches the blocked "
                                 f"pattern '{pattern}' of {policy.source}", "Drop that option")
    if not re.fullmatch(params, word):
        raise GatewayRefusal("parameter", f"'{_short(word)}' does not match the parameter "
                             f"pattern '{params}'", "Pass a plain value, or widen the rule's "
                             f"params in {policy.source}")
    _, _, value = word.partition("=") if word.startswith("-") else ("", "", word)
    if "/" in value or value.startswith("~"):
        path = os.path.realpath(os.path.join(policy.workspace, os.path.expanduser(value)))
        if not (_inside(path, policy.workspace) or _inside(path, policy.skill_dir)):
            raise GatewayRefusal("path-escape", f"'{_short(value)}' resolves to {path}, "
                                 "outside the workspace and the skill folder",
                                 "Use paths inside the project")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def safe_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every command gets: the inherited one without variables that change what
    programs run or load, and git told never to prompt or page."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not _UNSAFE_ENV.match(k)}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat", GIT_CONFIG_NOSYSTEM="1")
    return env


def run_checked(checked: Checked, policy: Policy) -> Completed:
    """Run a command that passed `check`: no shell, from the workspace, bounded in time and
    output. A script of the skill runs with this very interpreter, so it imports the same way."""
    import shutil
    import sys

    from .execute import run_bounded

    argv = list(checked.argv)
    rule = policy.config.rule(argv[0])
    if rule is not None and rule.scripts:
        argv[0] = sys.executable
    else:
        found = shutil.which(argv[0])
        if found is None:
            raise GatewayRefusal("not-installed", f"'{argv[0]}' is not installed (not on PATH)",
                                 "Install it, or use another command")
        argv[0] = found
    return run_bounded(argv, policy.workspace, safe_environment(), checked.timeout,
                       checked.max_output)


def run_command(template: str, policy: Policy,
                substitute: Callable[[str], str] = str) -> Completed:
    """check, then run_checked: the one way the framework runs a command."""
    return run_checked(check(template, policy, substitute), policy)


def attempt(template: str, skill_dir: str, substitute: Callable[[str], str] = str) -> Completed:
    """run_command for a skill's command from the current workspace, never raising: a refusal,
    a bad policy or a missing dependency comes back as status 'refused' or 'error', with the
    reason as the output (what a step shows, and why a check fails)."""
    from .cli import missing_dependency
    from .execute import Completed

    def failed(status: str, why: str) -> Completed:
        return Completed(status, None, f"not run: {why}", f"not run: {why}", False, 0.0)

    try:
        from .gatepolicy import load_policy

        return run_command(template, load_policy(skill_dir, os.path.realpath(os.getcwd())),
                           substitute)
    except GatewayRefusal as exc:
        return failed("refused", exc.summary())
    except SkillrailError as exc:
        return failed("error", exc.summary())
    except ModuleNotFoundError as exc:  # a bare checkout without the dependencies
        return failed("error", missing_dependency(exc, "security gateway"))

