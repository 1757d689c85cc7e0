"""`skillrail gateway check SKILL COMMAND`: would the security gateway run this command for
this skill, and under which limits (or which rule refuses it)? `--run` also runs it, through the
gateway, as a step's `` !`cmd` `` or `verify=` would. `skillrail gateway policy` shows the
policy in effect for the workspace."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..errors import UsageError

HELP = "check (or run) a command against the security gateway's policy, or show the policy"


def add_parser(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    check = sub.add_parser("check", help="say whether a skill's command would run, and why not",
                           description="Say whether a skill's command would pass the gateway.")
    check.add_argument("skill", help="the skill's name (under .claude/skills) or its folder")
    check.add_argument("text", metavar="COMMAND",
                       help="the command, as written after !` or in verify=")
    check.add_argument("--run", action="store_true", help="also run it and print its output")
    check.add_argument("--arguments", default="", help="the value of $ARGUMENTS")
    policy = sub.add_parser("policy", help="print the policy in effect for this workspace",
                            description="Print the gateway policy in effect for this workspace.")
    for each in (check, policy):
        each.add_argument("--workspace", default=".", help="the project folder (default: .)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    from ..gatepolicy import DEFAULT_FILE, PROJECT_FILE

    workspace = os.path.realpath(ns.workspace)
    if ns.action == "policy":
        project = os.path.join(workspace, PROJECT_FILE)
        source = project if os.path.isfile(project) else DEFAULT_FILE
        why = "the project's" if source == project else f"the defaults (no {PROJECT_FILE})"
        return 0, f"# {source}: {why}\n" + Path(source).read_text(encoding="utf-8")
    return _check(ns, workspace)


def _check(ns: argparse.Namespace, workspace: str) -> tuple[int, str]:
    from ..context import Substituter, variables
    from ..gatepolicy import load_policy
    from ..gateway import GatewayRefusal, check, run_checked

    folder = _skill_folder(ns.skill, workspace)
    policy = load_policy(folder, workspace)
    substitute = Substituter(variables(folder, None, ns.arguments, workspace), "gateway check")
    try:
        checked = check(ns.text, policy, substitute)
    except GatewayRefusal as exc:
        return 1, exc.summary() + "\n"
    lines = [f"allowed by {policy.source}: {' '.join(checked.argv)}",
             f"limits: {checked.timeout:g} s, {checked.max_output} characters of output"]
    if ns.run:
        done = run_checked(checked, policy)
        lines += [f"ran: {done.summary()} in {done.seconds:.2f} s", done.head.rstrip()]
        return (0 if done.status == "ok" else 1), "\n".join(lines) + "\n"
    return 0, "\n".join(lines) + "\n"


def _skill_folder(skill: str, workspace: str) -> str:
    candidates = [skill, os.path.join(workspace, ".claude", "skills", skill)]
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "SKILL.md")):
            return os.path.realpath(candidate)
    raise UsageError(f"no skill '{skill}': neither {candidates[0]} nor {candidates[1]} holds a "
                     "SKILL.md", fix="Give the skill's name or its folder")
