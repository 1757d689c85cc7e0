"""The security gateway: every command the framework itself runs (`!`cmd`` context injection,
`verify=` checks) passes here first (docs/gateway.md).

A command is a template: it is split into words with `shlex` *before* variables are put in, so a
substituted value is always exactly one argument, and it never reaches a shell. The words are
then read against the policy's allow-list the way the program itself reads them (argvgrammar.py):
its subcommand, every option spelled in full, bundled short options split, operands sorted from
values. Every word that is or could be a path is confined to the workspace (confine.py), and a
git command's object names to the workspace's part of the repository (gitnames.py), which must
itself be the workspace's (gitrepo.py). What passes runs with an allow-listed environment
(cleanenv.py) inside bubblewrap where the machine has it (sandbox.py), and nothing it starts
outlives it (reaper.py). A refusal names the rule that refused, so an author knows what to
change; nothing runs unless every rule passes.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a command imports this module.
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..authoring.commandtext import check_syntax, words
from ..base.errors import GatewayRefusal, SkillrailError, missing_dependency, shortened
from ..base.paths import PACKAGE_PARENT, project_root

if TYPE_CHECKING:  # pydantic and subprocess load only when a command is checked or run
    from .execute import Completed
    from .gatepolicy import Policy, Program
    from .gitnames import GitWords

__all__ = ["PROJECT_TESTS", "Checked", "GatewayRefusal", "attempt", "check", "run_checked",
           "run_command"]

#: What a check writes for the project's own test command (the policy's `tests:`).
PROJECT_TESTS = "${PROJECT_TESTS}"

#: Programs a command most likely names to run the project's tests: their refusal says how.
_TEST_RUNNERS = frozenset({"python", "python3", "pytest", "tox", "nox", "uv", "poetry", "hatch",
                           "pdm", "npm", "pnpm", "yarn", "npx", "node", "cargo", "go", "make"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HERE = os.path.dirname(os.path.abspath(__file__))
#: How an interpreter runs a script: isolated (-I: no PYTHON* variable, no user site, no
#: current folder) and without `site` (-S), which pychild.py runs itself, minus the code a
#: workspace's .pth files and sitecustomize would run.
PYTHON_FLAGS = ("-I", "-S")
PYCHILD = os.path.join(_HERE, "pychild.py")
REAPER = os.path.join(_HERE, "reaper.py")


class Checked(NamedTuple):
    """A command that passed every rule: what it says, what runs, and with which limits."""

    argv: list[str]  # the words as written, variables put in
    launch: list[str]  # what runs: the program's full path, the words the policy adds
    program: str
    timeout: float
    max_output: int
    writes: bool  # the sandbox gives it the workspace read-write
    git: "GitWords | None" = None  # a git command's words that name things in the repository
    env: tuple[tuple[str, str], ...] = ()  # variables beside the fixed environment (tests:)


def check(template: str, policy: "Policy", substitute: Callable[[str], str] = str) -> Checked:
    """Split `template`, put variables into each word with `substitute`, and check the result;
    GatewayRefusal on the first rule it breaks."""
    if template.strip() == PROJECT_TESTS:
        return _project_tests(policy)
    argv = [substitute(word) for word in words(template)]
    for word in argv:
        check_syntax(word)
        if len(word) > policy.config.max_arg_chars:
            raise GatewayRefusal("argument-too-long", f"an argument has {len(word)} "
                                 f"characters, more than {policy.config.max_arg_chars}",
                                 f"Shorten it, or raise max_arg_chars in {policy.source}")
    return _check_command(argv, policy)


def _check_command(argv: list[str], policy: "Policy") -> Checked:
    from .gatepolicy import matches_skill_rule

    config, name = policy.config, argv[0]
    if tuple(argv) in policy.approved:
        return _approved(argv, policy)
    if policy.config.tests is not None and tuple(argv) == policy.config.tests.argv:
        return _project_tests(policy)
    if _ASSIGNMENT.match(name):
        raise GatewayRefusal("environment-assignment", f"'{shortened(name)}' sets an environment "
                             "variable", "Commands run with a fixed environment; drop it")
    if len(argv) > config.max_args:
        raise GatewayRefusal("too-many-arguments", f"{len(argv)} arguments, more than "
                             f"{config.max_args}", f"Raise max_args in {policy.source}")
    if "/" in name or name.startswith(("~", ".")):
        raise GatewayRefusal("executable-path", f"'{shortened(name)}' is a path", "Name a program "
                             "the policy lists (it is found on PATH), or run a script of the "
                             "skill with python3")
    program = config.program(name)
    if program is None:
        allowed = ", ".join(config.programs) or "none"
        tests = ("For the project's tests, write ${PROJECT_TESTS} (the policy's `tests:`, "
                 "which `skillrail init` fills); else add" if name in _TEST_RUNNERS else "Use "
                 "one of those, or add")
        raise GatewayRefusal("not-in-policy", f"'{name}' is not a program the policy allows "
                             f"(allowed: {allowed})", f"{tests} a rule for '{name}' to "
                             f".claude/skillrail.yaml ({policy.source})")
    if policy.skill_rules is not None and not any(
            matches_skill_rule(argv, r) for r in policy.skill_rules):
        raise GatewayRefusal("not-in-allowed-tools", f"'{shortened(' '.join(argv))}' matches no "
                             "Bash(...) entry of the skill's allowed-tools", "Add a matching "
                             "entry, e.g. Bash(" + name + ":*), to the SKILL.md frontmatter")
    launch, git = (_interpreter(argv, program, policy), None) if program.interpreter \
        else _ordinary(argv, program, policy)
    return Checked(argv, launch, name, program.timeout or config.timeout,
                   program.max_output or config.max_output, program.writes, git)


def _approved(argv: list[str], policy: "Policy") -> Checked:
    """A command the user approved word for word for this run: no rule of the policy is asked,
    but its words stay inside the workspace and the skill, and it runs as every command does."""
    from .confine import check_words
    from .gatepolicy import APPROVED_TIMEOUT, Program

    if "/" in argv[0] or argv[0].startswith(("~", ".")):
        raise GatewayRefusal("executable-path", f"'{shortened(argv[0])}' is a path", "Approve a "
                             "program found on PATH")
    check_words((), argv[1:], (policy.workspace, policy.skill_dir))
    found = _executable(Program(argv[0], None, None), policy)
    git = None
    if argv[0] == "git" and len(argv) > 1:
        from .gitnames import of_words

        git = of_words(argv[1], argv[2:])
    return Checked(argv, [found, *argv[1:]], argv[0], APPROVED_TIMEOUT,
                   policy.config.max_output, False, git)


def _project_tests(policy: "Policy") -> Checked:
    """The project's test command, as its policy's `tests:` writes it: the user wrote every
    word, so none is read against a grammar; it runs the project's code (its tests) with the
    workspace writable, in the sandbox like every command. Its program may be the project's
    own environment's (`.venv/bin/python`): the policy names it, a check cannot."""
    import shutil

    from .cleanenv import clean_path, user_path

    tests = policy.config.tests
    if tests is None:
        raise GatewayRefusal("no-project-tests", "the project's policy names no test command",
                             "Run `skillrail doctor` in the project: it finds how the project "
                             "runs its tests and says the `tests:` lines to add to "
                             f"{policy.source.rpartition(' + ')[2]}")
    name = tests.argv[0]
    if "/" in name or name.startswith("~"):
        found = os.path.join(policy.workspace, os.path.expanduser(name))
        if not (os.path.isfile(found) and os.access(found, os.X_OK)):
            raise GatewayRefusal("not-installed", f"the project's test command runs {name}, "
                                 f"and there is no program at {found}", "Create the project's "
                                 "environment (e.g. `uv sync`, `python3 -m venv .venv`), or "
                                 f"fix `tests.command` in {policy.source}")
    else:
        found = shutil.which(name, path=clean_path(user_path(), policy.workspace)) or ""
        if not found:
            raise GatewayRefusal("not-installed", f"the project's test command runs '{name}', "
                                 "which is not installed (not on PATH outside the workspace)",
                                 "Install it, or fix `tests.command` in " + policy.source)
    return Checked(list(tests.argv), [found, *tests.argv[1:]], name, tests.timeout,
                   policy.config.max_output, True, None, tests.env)


def _ordinary(argv: list[str], program: "Program",
              policy: "Policy") -> "tuple[list[str], GitWords | None]":
    """A program read against its grammar; what runs is its full path, the subcommand, the
    words the policy always adds (and, for git, the gateway's own), then the command's own
    words; for git, also what they name in the repository."""
    from .argvgrammar import parse
    from .confine import check_words

    rest, head, grammar, command = argv[1:], [_executable(program, policy)], program.grammar, \
        program.name
    if program.subcommands is not None:
        if not rest or rest[0] not in program.subcommands:
            got = f"'{shortened(rest[0])}'" if rest else "nothing"
            raise GatewayRefusal("subcommand", f"{program.name} allows the subcommands "
                                 f"{', '.join(program.subcommands)} first; got {got}",
                                 "Put an allowed subcommand first (no options before it)")
        grammar, command = program.subcommands[rest[0]], f"{program.name} {rest[0]}"
        head, rest = head + rest[:1], rest[1:]
    assert grammar is not None  # a program has a grammar, subcommands or an interpreter
    parsed = parse(rest, grammar, command)
    check_words(parsed.paths, parsed.values, (policy.workspace, policy.skill_dir))
    if program.name != "git" or program.subcommands is None:
        return head + list(grammar.always) + rest, None
    from .gitnames import review

    git, added = review(head[1], parsed)
    return head + list(added) + list(grammar.always) + rest, git


def _interpreter(argv: list[str], program: "Program", policy: "Policy") -> list[str]:
    """An interpreter runs one .py script of the skill (or of the workspace, when the policy
    says so) or a module the policy lists, with this very interpreter; nothing else."""
    from .confine import check_words

    rest, flags = argv[1:], list(PYTHON_FLAGS)
    if rest[:1] == ["-m"] and len(rest) > 1 and rest[1] in program.modules:
        target, args = ["-m", rest[1]], rest[2:]
    elif rest[:1] == ["-m"] and len(rest) > 1:
        allowed = f" (it lists {', '.join(program.modules)})" if program.modules else ""
        raise GatewayRefusal("interpreter-option", f"{program.name} may run -m {rest[1]} only "
                             f"when its rule lists the module{allowed}", "For the project's "
                             "tests, write ${PROJECT_TESTS} (the policy's `tests:`, which "
                             "`skillrail init` fills); else add the module to the rule in "
                             f"{policy.source.rpartition(' + ')[2]}: `programs: "
                             f"{{{program.name}: {{interpreter: {program.interpreter}, "
                             f"modules: [{rest[1]}]}}}}`")
    elif not rest or rest[0].startswith("-"):
        allowed = f" or -m {'/'.join(program.modules)}" if program.modules else ""
        raise GatewayRefusal("interpreter-option", f"{program.name} may only run a script "
                             f"file{allowed} (no -c or other options)", "Put the code in a "
                             "script under the skill's scripts/ folder and run that")
    else:
        # -B: a skill's script writes no bytecode into the copy it runs from (trust.py)
        flags.append("-B")
        target, args = ["-", _script(rest[0], program, policy)], rest[1:]
    check_words((), args, (policy.workspace, policy.skill_dir))
    # pychild.py starts the script or module: the path site would give, no workspace code
    return [policy.python or sys.executable, *flags, PYCHILD, policy.workspace, PACKAGE_PARENT,
            *target, *args]


def _script(given: str, program: "Program", policy: "Policy") -> str:
    from .confine import check_words, inside

    check_words((), [given], (policy.workspace, policy.skill_dir))
    path = os.path.realpath(os.path.join(policy.workspace, given))
    scripts = os.path.join(policy.skill_dir, "scripts")
    if not (inside(path, scripts) or (program.interpreter == "workspace"
                                      and inside(path, policy.workspace))):
        where = "the skill's scripts/ folder" + (" or the workspace"
                                                 if program.interpreter == "workspace" else "")
        raise GatewayRefusal("script-outside-skill", f"'{shortened(given)}' resolves to {path}, "
                             f"outside {where}", "Run a .py script under the skill's scripts/ "
                             "folder (symlinks are followed), or let the policy run the "
                             f"project's scripts (interpreter: workspace) in {policy.source}")
    if not path.endswith(".py"):
        raise GatewayRefusal("not-a-script", f"'{shortened(given)}' is not a .py file",
                             "Run a Python script")
    if not os.path.isfile(path):
        raise GatewayRefusal("script-missing", f"no script at {path}", "Check the path")
    return path


def _executable(program: "Program", policy: "Policy") -> str:
    """The program's full path, from PATH's absolute folders outside the workspace (a file
    checked out there could stand in for it), unless the policy marks it `local`."""
    import shutil

    from .cleanenv import clean_path, user_path

    path = user_path()
    search = path if program.local else clean_path(path, policy.workspace)
    found = shutil.which(program.name, path=search)
    if found is None:
        local = shutil.which(program.name, path=path) if not program.local else None
        why = (f" outside the workspace (it is at {local}, inside it; mark the program "
               f"`local: true` in {policy.source} to run the project's own copy)" if local
               else " (not on PATH)")
        raise GatewayRefusal("not-installed", f"'{program.name}' is not installed{why}",
                             "Install it, or use another command")
    return found




def run_checked(checked: Checked, policy: "Policy") -> "Completed":
    """Run a command that passed `check`: no shell, no stdin, from the workspace, with the
    allow-listed environment, in the sandbox where there is one, bounded in time and output,
    and nothing it started left running after it."""
    import tempfile

    from .cleanenv import command_path, environment
    from .execute import run_bounded
    from .sandbox import HOME, for_policy, own_pids, wrap

    box = for_policy(policy.config.sandbox, command_path(policy.workspace))
    with tempfile.TemporaryDirectory(prefix="skillrail-home-") as private:
        env = environment(HOME if box else private, policy.workspace)
        env.update((k, os.path.expanduser(v) if v.startswith("~/") else v)
                   for k, v in checked.env)
        # reads: the folders of a git repository the sandbox must show beside the workspace
        argv, reads = (_git(checked, env, policy) if checked.program == "git"
                       else (list(checked.launch), ()))
        if box is not None:
            argv = wrap(box, argv, policy.workspace, policy.skill_dir, checked.writes,
                        policy.config.hide, reads)
        supervised = not own_pids(box) and sys.platform.startswith("linux")
        if supervised:
            argv = [sys.executable, *PYTHON_FLAGS, REAPER, str(os.getpid()), *argv]
        return run_bounded(argv, policy.workspace, env, checked.timeout, checked.max_output,
                           supervised)


def _git(checked: Checked, env: dict[str, str],
         policy: "Policy") -> tuple[list[str], tuple[str, ...]]:
    """A git command pinned to the workspace's repository, checked (gitrepo.py), its
    config's programs switched off, its object names kept inside the workspace (gitnames.py);
    and the repository's folders the sandbox must show."""
    from .cleanenv import git_overrides
    from .gitnames import confine
    from .gitrepo import find

    argv, bare = list(checked.launch), git_overrides((), env["PATH"])
    repo = find(argv[0], policy.workspace, {**env, **bare})
    if repo is None:  # not in a repository: git says so itself
        env.update(bare)
        return argv, ()
    env.update(repo.environment(env["PATH"]))
    if checked.git is not None:
        argv += confine(checked.git, argv, repo.prefix)
    return argv, repo.folders()


def run_command(template: str, policy: "Policy", substitute: Callable[[str], str] = str,
                timeout: float | None = None) -> "Completed":
    """check, then run_checked: the one way the framework runs a command. `timeout` may
    shorten the policy's limit for the command, never lengthen it."""
    checked = check(template, policy, substitute)
    if timeout is not None and timeout < checked.timeout:
        checked = checked._replace(timeout=timeout)
    return run_checked(checked, policy)


_SAID: set[str] = set()


def _say_once(notice: str) -> None:
    """A notice about the policy, on stderr, once per process (a step may run several)."""
    if notice and notice not in _SAID:
        _SAID.add(notice)
        print(f"skillrail: security gateway: {notice}", file=sys.stderr)


def attempt(template: str, skill_dir: str, substitute: Callable[[str], str] = str,
            approved: Sequence[str] = (), timeout: float | None = None) -> "Completed":
    """run_command for a skill's command from the current workspace, never raising: a skill the
    user does not trust (trust.py), a refusal, a bad policy or a missing dependency comes back
    as status 'untrusted', 'refused' or 'error', with the reason as the output (what a step
    shows, and why a check fails)."""
    from .execute import Completed
    from .trust import admit

    def failed(status: str, why: str) -> "Completed":
        return Completed(status, None, f"not run: {why}", f"not run: {why}", False, 0.0)

    admitted = admit(skill_dir)
    if isinstance(admitted, str):
        return failed("untrusted", admitted)
    try:
        from .gatepolicy import load_policy

        # trust.py: the command runs from a copy of the very bytes trust just hashed.
        with admitted.running(template, substitute) as (folder, moved):
            policy = load_policy(folder, project_root())
            _say_once(policy.notice)
            if approved:  # the run's approved commands, their variables put in as the check's
                policy = policy._replace(approved=frozenset(
                    tuple(moved(w) for w in words(a)) for a in approved))
            return run_command(template, policy, moved, timeout)
    except GatewayRefusal as exc:
        return failed("refused", exc.summary())
    except SkillrailError as exc:
        return failed("error", exc.summary())
    except ModuleNotFoundError as exc:  # a bare checkout without the dependencies
        return failed("error", missing_dependency(exc, "security gateway"))
