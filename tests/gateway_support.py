"""A workspace for the gateway's tests: a git repository with a skill, a canary path no command
may create, a secret outside the workspace no command may read, and the links and files the
attack corpus aims at."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from skills.lib.workflow.authoring.substitution import Substituter, variables
from skills.lib.workflow.guard.execute import Completed
from skills.lib.workflow.guard.gatepolicy import load_policy
from skills.lib.workflow.guard.gateway import run_command

from .conftest import REPO
from .harness import shell

SKILL_MD = """---
name: demo
description: A demo skill for the gateway's tests.
allowed-tools:
  - Read
  - Grep
  - Bash(git:*)
  - Bash(ls:*)
  - Bash(wc:*)
  - Bash(head:*)
  - Bash(cat:*)
  - Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/*)
---
# demo
"""
#: Marks the secret outside the workspace: it must never appear in what a command printed.
SECRET_MARK = "SECRET-a9f3e1-outside-the-workspace"
ATTACKS_FILE = REPO / "tests" / "fixtures" / "gateway-attacks.txt"
HAS_BWRAP = shutil.which("bwrap") is not None


#: A step script whose step runs one command, read from the file $CASE_FILE (outside the skill,
#: so one trust serves every command): as a `` !`cmd` `` when that can hold it, else as its
#: `verify=`. What an agent meets, run as it runs it.
STEP_SCRIPT = f"""import os, sys
sys.path.insert(0, {str(REPO / ".claude")!r})
from skills.lib.workflow import StepDef, Workflow, main, register_workflow
with open(os.environ["CASE_FILE"], encoding="utf-8") as case:
    CASE = case.read()
INJECTABLE = "`" not in CASE and not any(c in CASE for c in "\\n\\r\\x00")
STEP = (StepDef("look", "Look", actions=["Look: !`" + CASE + "`"], next={{"ok": None}})
        if INJECTABLE else
        StepDef("look", "Check", verify=CASE, next={{"ok": None, "fail": None}}))
WORKFLOW = register_workflow(Workflow("attack", [STEP]))
if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
"""


#: How a corpus line names the rule that must refuse it: `cat hl  # expect: hard-link`.
EXPECT = "  # expect: "
#: What follows the rule when the skill's allowed-tools refuse the case first.
NARROWED = "; with allowed-tools: "
#: Cases the corpus file cannot hold, with the rule that must refuse each.
UNWRITABLE = {"git status\x00touch CANARY": "control-character",
              "git status\ntouch CANARY": "control-character",
              "git status\rtouch CANARY": "control-character",
              "git log " + "a" * 5_000: "too-long"}


def attacks() -> list[str]:
    """The attack corpus: one command per line (blank lines and # comments skipped)."""
    lines = ATTACKS_FILE.read_text(encoding="utf-8").splitlines()
    return [line.split(EXPECT, 1)[0] for line in lines
            if line.strip() and not line.startswith("#")]


def expected_rules(allowed_tools: bool = False) -> dict[str, str]:
    """The rule that must refuse each corpus case, by case: under the policy alone, or (with
    `allowed_tools`) where the demo skill's allowed-tools narrow it, which may refuse a case
    before the policy's own rule reads it (`  # expect: RULE; with allowed-tools: RULE`)."""
    lines = ATTACKS_FILE.read_text(encoding="utf-8").splitlines()
    found = {}
    for line in lines:
        if EXPECT not in line or line.startswith("#"):
            continue
        case, said = line.split(EXPECT, 1)
        policy, _, narrowed = said.partition(NARROWED)
        found[case] = narrowed if allowed_tools and narrowed else policy
    return found


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env=env).stdout


_TEMPLATE: list[Path] = []


def _template_git() -> Path:
    """The .git of a repository made once per test process: a README.md committed on `main`,
    a branch `victim`, a tag `v1`, and an `origin` remote, as the clones most projects are.
    Removed when the process ends."""
    if not _TEMPLATE:
        made = Path(tempfile.mkdtemp(prefix="skillrail-world-"))
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        (made / "README.md").write_text("# app\n")
        git("init", "-q", "-b", "main", cwd=made)
        git("add", "README.md", cwd=made)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first", cwd=made)
        git("branch", "victim", cwd=made)
        git("tag", "v1", cwd=made)
        git("remote", "add", "origin", "https://github.com/example/app.git", cwd=made)
        _TEMPLATE.append(made / ".git")
    return _TEMPLATE[0]


class World:
    """A workspace (a clone's git repository: a commit, branches `main` and `victim`, a tag
    `v1`, an `origin` remote) holding the skill `demo`; beside it, outside, a secret and an
    evil script; inside, a hard link to that secret (`hl`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home: str | None = None  # SKILLRAIL_HOME for steps, when not the test's own
        self.user_env: dict[str, str] = {}  # the user's own variables, for steps
        self.workspace = root / "app"
        self.skill = self.workspace / ".claude" / "skills" / "demo"
        (self.skill / "scripts").mkdir(parents=True)
        (self.skill / "SKILL.md").write_text(SKILL_MD)
        (self.skill / "notes.txt").write_text("print('notes ran')\n")
        (self.skill / "scripts" / "notes.txt").write_text("print('notes ran')\n")
        self.canary = self.workspace / "CANARY"
        outside = root / "outside"
        outside.mkdir()
        self.secret = outside / "secret.txt"
        self.secret.write_text(SECRET_MARK + "\n")
        evil = outside / "evil.py"
        evil.write_text(f"open({str(self.canary)!r}, 'w').write('ran')\n")
        (self.skill / "scripts" / "link-to-outside.py").symlink_to(evil)
        (self.workspace / "pw").symlink_to(self.secret)
        (self.workspace / "rootlink").symlink_to("/")
        (self.workspace / "outlink").symlink_to(outside)
        (self.workspace / "F").write_text(str(self.secret) + "\0")
        os.link(self.secret, self.workspace / "hl")
        (self.workspace / "README.md").write_text("# app\n")
        self.script("echo.py", "import sys; print('args:', *sys.argv[1:])")
        self._repository()

    def _repository(self) -> None:
        """The repository, copied from the one this process made first: the same commit,
        branches and tag, without five git processes for each test's world."""
        shutil.copytree(_template_git(), self.workspace / ".git", symlinks=True)

    def refs(self) -> str:
        """Every ref (loose and packed), HEAD and the repository's config, as their files hold
        them: what a write would change."""
        git_dir = self.workspace / ".git"
        files = [git_dir / "HEAD", git_dir / "config", git_dir / "packed-refs",
                 *sorted((git_dir / "refs").rglob("*"))]
        return "".join(f"{f.relative_to(git_dir)}: {f.read_text()}\n" for f in files
                       if f.is_file())

    def script(self, name: str, code: str) -> Path:
        path = self.skill / "scripts" / name
        path.write_text(code + "\n")
        return path

    def policy_file(self, text: str) -> None:
        """A project policy (version 2 is added when the text does not say)."""
        if not text.startswith("version:"):
            text = "version: 2\n" + text
        (self.workspace / ".claude" / "skillrail.yaml").write_text(text)

    def unrestricted(self) -> None:
        """The skill without allowed-tools: the policy alone decides."""
        (self.skill / "SKILL.md").write_text(SKILL_MD.replace("allowed-tools", "x-unused"))

    def trust(self, **env: str) -> None:
        """`skillrail trust` the skill as it is now (its commands run only then; any later
        change to its files needs this again); `env`: variables to set (SKILLRAIL_HOME). The
        link to a script outside (the path-escape case) goes first: no skill holding a link
        out of its folder can be trusted."""
        (self.skill / "scripts" / "link-to-outside.py").unlink(missing_ok=True)
        done = shell(["skillrail", "trust", str(self.skill)], env={**os.environ, **env})
        assert done.returncode == 0 and "trusted" in done.stdout, done.stderr

    def step(self, command: str, env: dict[str, str] | None = None,
             process: bool = False) -> subprocess.CompletedProcess[str]:
        """Run a real step whose command is `command` (CANARY replaced), as an agent would,
        with `env` (default: this process's); the skill must hold STEP_SCRIPT as attack.py. The
        step script runs in this process (harness.agent), the command it runs through the
        gateway in its own; with `process`, the step script too, in a new interpreter."""
        case = self.root / "case.txt"
        case.write_text(command.replace("CANARY", str(self.canary)), encoding="utf-8")
        extra = {"CASE_FILE": str(case), **self.user_env} | (
            {"SKILLRAIL_HOME": self.home} if self.home else {})
        argv = [sys.executable, str(self.skill / "scripts" / "attack.py"), "--step", "1",
                "--stateless"]
        environment = {**(os.environ if env is None else env), **extra}
        return shell(argv, cwd=self.workspace, env=environment, process=process)

    def run(self, command: str, arguments: str = "") -> Completed:
        policy = load_policy(str(self.skill), str(self.workspace))
        values = variables(str(self.skill), "de-123456", arguments, str(self.workspace))
        return run_command(command, policy, Substituter(values, "test"))

    def sandbox(self, mode: str, monkeypatch: pytest.MonkeyPatch | None = None,
                policy: str = "") -> None:
        """Run commands under the policy layer alone ('off': the user's SKILLRAIL_SANDBOX,
        for steps and, given `monkeypatch`, in this process) or inside bubblewrap ('required':
        the project's policy), with `policy` as the rest of the project's policy file."""
        if mode == "off":
            self.user_env["SKILLRAIL_SANDBOX"] = "off"
            if monkeypatch is not None:
                monkeypatch.setenv("SKILLRAIL_SANDBOX", "off")
            self.policy_file(policy)
        else:
            self.policy_file(f"sandbox: {mode}\n{policy}")

    def leaked(self, *texts: str) -> bool:
        """Whether any text shows the secret kept outside the workspace."""
        return any(SECRET_MARK in text for text in texts)


def env_without_skillrail() -> dict[str, str]:
    """This process's environment, for a control run of a program outside the gateway."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
