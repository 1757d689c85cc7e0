"""`skillrail init [SKILL...]`: set skillrail up in a project (the git repository here, else this
folder). The chosen skills (default: all of skillrail's) and the framework they import are
copied into `.claude/skills` (with `--agents`, `.agents/skills`, for Codex, Gemini CLI and the
other Agent Skills clients, each SKILL.md naming its scripts from the repository root), so
`python3 .claude/skills/<skill>/scripts/<skill>.py` runs with any Python 3.11 and no virtual
environment; `.claude/skillrail.yaml` gets the default command
policy and the project's own test command, as found (tools/projecttests.py);
`.claude/skills/.gitignore` keeps Python's caches untracked; and it says what to commit.
`--update` replaces what an older skillrail put there, leaving the project's own skills
alone."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..base.errors import UsageError, did_you_mean
from ..base.paths import SKILLS_DIR, project_root
from ..base.version import VERSION
from ..tools.placement import read_mark, shipped_skills
from ..tools.projecttests import Found, detect, policy_lines
from .install import run as install

HELP = ("set skillrail up in this project: copy the skills and the framework into "
        ".claude/skills (--agents: .agents/skills)")

#: The project's command policy as init writes it: the shipped defaults, and where to add more.
POLICY = """\
# skillrail's command policy for this project (docs/gateway.md in skillrail): which commands
# a skill's checks and context lines may run. The shipped read-only defaults apply (git status,
# log, diff, show and grep; ls, wc, head, cat; python3 for a skill's own scripts); `skillrail
# gateway policy` prints the policy in force.
version: 2
sandbox: auto
"""
#: .claude/skills/.gitignore: the bytecode Python writes beside the framework and the skills'
#: scripts when a step runs, which would otherwise show (and be shown to the agent, in a
#: step's `git status`) as untracked files.
IGNORE = """\
# Written by skillrail init: Python's caches of the framework and the skills' scripts.
__pycache__/
"""
#: The `tests:` part: the project's own test command, which a check runs as ${PROJECT_TESTS}.
TESTS = """# The project's own tests, found by skillrail init: {why}.
# A skill's check or a plan runs them as ${{PROJECT_TESTS}}: word for word, the workspace
# writable, in the sandbox (no network, an empty HOME). `skillrail doctor` checks they start.
{lines}"""
NO_TESTS = """# The project's own tests: none found ({why}).
# {fix}; a check runs them as ${{PROJECT_TESTS}}, e.g.
#   tests: {{command: ".venv/bin/python -m pytest -q"}}
"""


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL",
                        help="skillrail's skills to copy (default: all)")
    parser.add_argument("--agents", action="store_true",
                        help="set up .agents/skills, for Codex, Gemini CLI and the other Agent "
                             "Skills clients, instead of Claude Code's .claude/skills (run both "
                             "to serve both)")
    parser.add_argument("--update", action="store_true",
                        help="replace the framework and the skills an older skillrail copied "
                             "here with this version's (your own skills are left alone)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    found = shipped_skills()
    for name in ns.skills:
        if name not in found:
            raise UsageError(f"skillrail has no skill '{name}'", fix="Use some of: "
                             f"{', '.join(found)}." + did_you_mean(name, found))
    root = Path(project_root())
    targets = ["agents"] if ns.agents else ["claude"]
    if ns.update and not ns.agents:  # every place set up, Claude Code's and the others'
        targets = [t for t in ("claude", "agents")
                   if read_mark(root / f".{t}" / "skills" / "lib") is not None] or targets
    done: list[str] = []
    for target in targets:
        done += _set_up(root, target, ns, list(found))
    policy = root / ".claude" / "skillrail.yaml"
    policy = root / ".claude" / "skillrail.yaml"
    if not policy.exists():
        tests = detect(root)
        policy.parent.mkdir(exist_ok=True)
        policy.write_text(POLICY + (
            TESTS.format(why=tests.why, lines=policy_lines(tests)) if isinstance(tests, Found)
            else NO_TESTS.format(why=tests.why, fix=tests.fix)), encoding="utf-8")
        done.append(f"wrote {policy} (the command policy)")
        done.append(f"the project's tests: `{tests.command}` ({tests.why})"
                    if isinstance(tests, Found) else
                    f"the project's tests: none found ({tests.why}). {tests.fix}.")
    return 0, "\n".join([*done, "", *_next(root, f".{targets[-1]}/skills")]) + "\n"


def _set_up(root: Path, target: str, ns: argparse.Namespace, shipped: list[str]) -> list[str]:
    """Copy the skills and the framework into the project's `.<target>/skills` (its
    `.gitignore` too); say what was done."""
    dest = root / f".{target}" / "skills"
    mark = read_mark(dest / "lib")
    if mark is not None and not ns.update:
        flag = " --agents" if target == "agents" else ""
        raise UsageError(f"skillrail {mark.version or '(an older one)'} is set up in {dest} "
                         "already", fix=f"`skillrail init{flag} --update` replaces it with "
                                        f"{VERSION}; `skillrail doctor` checks it")
    dest.mkdir(parents=True, exist_ok=True)
    names = ns.skills or ([] if ns.update else shipped)
    done = install(argparse.Namespace(
        skills=names, target=target, copy=True, dest=dest, source=Path(SKILLS_DIR),
        force=False, update=ns.update))[1].splitlines()
    ignore = dest / ".gitignore"
    if not ignore.exists():
        ignore.write_text(IGNORE, encoding="utf-8")
        done.append(f"wrote {ignore} (Python's caches of the skills' scripts stay untracked)")
    return done


def _next(root: Path, skills: str) -> list[str]:
    """What to commit, and what to run next."""
    git = (root / ".git").exists()
    return [
        f"skillrail {VERSION} is set up in {root / skills}.",
        (f"Commit it: git add {skills} .claude/skillrail.yaml && git commit -m 'Add "
         "skillrail skills'" if git else
         f"This folder is not a git repository: keep {skills} and .claude/skillrail.yaml "
         "with the project."),
        "Skills write their working files in .planner/, .skill-runner/ and the like: commit "
        "them or add them to .gitignore, as the team prefers.",
        "Next: `skillrail doctor` checks the setup; `skillrail hooks install"
        + (" --client codex` makes the workflow binding in Codex" if skills.startswith(".agents")
           else "` makes the workflow binding in Claude Code")
        + f"; a skill runs with: python3 {skills}/problem-analysis/scripts/problem-analysis.py "
        "--step 1",
    ]
