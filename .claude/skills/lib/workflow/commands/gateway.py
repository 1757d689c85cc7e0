"""`skillrail gateway check SKILL COMMAND`: would the security gateway run this command for
this skill, and under which limits (or which rule refuses it)? `--run` also runs it exactly as a
step's `` !`cmd` `` or `verify=` would: the skill's trust asked first, the same program and
interpreter (the `python3` a step runs with, not this command's), environment, private HOME,
sandbox and time limit. `skillrail gateway policy` shows the policy in effect for the
workspace."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess

import yaml

from ..authoring.commandtext import words
from ..authoring.substitution import Substituter, variables
from ..base.errors import UsageError
from ..guard.cleanenv import command_path
from ..guard.gatemodel import validated
from ..guard.gatepolicy import (
    DEFAULT_FILE,
    PROJECT_FILE,
    config_of,
    load_policy,
    merged,
    read_policy_file,
    sandbox_mode,
)
from ..guard.gateway import GatewayRefusal, check, run_checked
from ..guard.sandbox import describe
from ..guard.trust import untrusted
from ..step.discovery import SKILL_PLACES, find_skill

HELP = "check (or run) a command against the security gateway's policy, or show the policy"


def add_parser(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    check = sub.add_parser("check", help="say whether a skill's command would run, and why not",
                           description="Say whether a skill's command would pass the gateway.")
    check.add_argument("skill", help="the skill's name (under .claude/skills) or its folder")
    check.add_argument("text", metavar="COMMAND",
                       help="the command, as written after !` or in verify=")
    check.add_argument("--run", action="store_true",
                       help="also run it as a step's check would, and print what it did")
    check.add_argument("--approved", action="store_true",
                       help="as a command the user approved word for word for one run (a "
                            "plan's check outside the policy): what it would run once approved")
    check.add_argument("--python", metavar="PATH",
                       help="the interpreter a step runs with, which runs the skill's scripts "
                            "(default: the python3 on PATH, as SKILL.md's commands run)")
    check.add_argument("--arguments", default="", help="the value of $ARGUMENTS")
    policy = sub.add_parser("policy", help="print the policy in effect for this workspace",
                            description="Print the gateway policy in effect for this workspace.")
    policy.add_argument("program", nargs="?", help="show only this program's rules (e.g. git)")
    for each in (check, policy):
        each.add_argument("--workspace", default=".", help="the project folder (default: .)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    workspace = os.path.realpath(ns.workspace)
    if ns.action == "policy":
        return 0, _policy(workspace, ns.program)
    return _check(ns, workspace)


def _policy(workspace: str, program: str | None) -> str:
    """The policy in force, as one YAML document (the defaults with the project's file merged
    in), headed by where it comes from and which sandbox commands run in."""
    project = os.path.join(workspace, PROJECT_FILE)
    data = read_policy_file(DEFAULT_FILE)
    if os.path.isfile(project):
        data = merged(data, validated(read_policy_file(project), project, DEFAULT_FILE))
        why = f"# the defaults ({DEFAULT_FILE}) extended by {project}"
    else:
        why = f"# the defaults ({DEFAULT_FILE}); no {PROJECT_FILE} in this workspace"
    shown = {k: v for k, v in data.items() if not str(k).startswith("x-")}
    if program is not None:
        if program not in shown.get("programs", {}):
            raise UsageError(f"the policy has no program '{program}'", fix="Run `skillrail "
                             "gateway policy` for all of them: " + ", ".join(shown["programs"]))
        shown = {"programs": {program: shown["programs"][program]}}
    mode, notice = sandbox_mode(config_of(data).sandbox)

    class Plain(yaml.SafeDumper):  # shared option lists are written out, not as &anchors
        def ignore_aliases(self, data: object) -> bool:
            return True

    body = yaml.dump(shown, Dumper=Plain, sort_keys=False, default_flow_style=None, width=100)
    said = f"# {notice}\n" if notice else ""
    return f"{why}\n# {_sandbox(mode, workspace)}\n{said}{body}"


def _sandbox(mode: str, workspace: str) -> str:
    """Which sandbox commands run in, bwrap looked up as the gateway looks it up."""
    return describe(mode, command_path(workspace))


def _check(ns: argparse.Namespace, workspace: str) -> tuple[int, str]:
    folder = _skill_folder(ns.skill, workspace)
    python = _step_python(ns.python)
    policy = load_policy(folder, workspace)._replace(python=python)
    substitute = Substituter(variables(folder, None, ns.arguments, workspace), "gateway check")
    if ns.approved:
        policy = policy._replace(approved=frozenset({tuple(substitute(w)
                                                           for w in words(ns.text))}))
    try:
        checked = check(ns.text, policy, substitute)
    except GatewayRefusal as exc:
        return 1, exc.summary() + "\n"
    added = "".join(f"; and {k}={v}" for k, v in checked.env)
    allowed = ("approved for one run (--approved), beside " if ns.approved and
               tuple(checked.argv) in policy.approved else "allowed by ")
    lines = [f"{allowed}{policy.source}: {' '.join(checked.argv)}",
             f"runs: {' '.join(checked.launch)}",
             f"limits: {checked.timeout:g} s, {checked.max_output} characters of output"
             + (", the workspace writable" if checked.writes else ""),
             "environment: PATH without the workspace's folders, an empty private HOME, LANG, "
             f"LC_* and TZ; nothing else{added}",
             _sandbox(policy.config.sandbox, workspace)]
    if checked.launch[0] == python:
        lines.append(f"python3 scripts run with {python}, the python3 a step runs with "
                     "(--python names another)")
    if policy.notice:
        lines.append(policy.notice)
    trust = untrusted(folder)
    if trust is not None:
        lines.append(f"not trusted here, so a step would not run it: {trust}")
        if ns.run:
            return 1, "\n".join(lines) + "\n"
    if ns.run:
        done = run_checked(checked, policy)
        lines += [f"ran: {done.summary()} in {done.seconds:.2f} s", done.head.rstrip()]
        return (0 if done.status == "ok" else 1), "\n".join(lines) + "\n"
    return 0, "\n".join(lines) + "\n"


def _step_python(given: str | None) -> str:
    """The interpreter a skill's step runs with: the python3 on PATH, which SKILL.md's commands
    name, unless --python names another."""
    found = shutil.which(given or "python3")
    try:  # what it is, past a launcher (pyenv's shims are shell scripts)
        done = subprocess.run([found, "-c", "import sys; print(sys.executable)"] if found
                              else ["false"], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        done = None
    if found is None or done is None or done.returncode != 0 or not done.stdout.strip():
        raise UsageError(f"no working interpreter {given or 'python3'} on PATH",
                         fix="Name the interpreter a step runs with: --python PATH")
    return done.stdout.strip()


def _skill_folder(skill: str, workspace: str) -> str:
    found = find_skill(skill, workspace)
    if found is None:
        raise UsageError(f"no skill '{skill}': no SKILL.md in that folder, nor in a skill of "
                         f"that name under {', '.join(SKILL_PLACES)}",
                         fix="Give the skill's name or its folder")
    return found
