"""The security gateway: the attack corpus is refused (and a canary proves nothing ran), allowed
commands run without a shell, timeouts and output caps hold, a skill's allowed-tools narrows the
policy, and a bad policy file is one clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from skills.lib.workflow.context import Substituter, variables
from skills.lib.workflow.errors import SkillrailError
from skills.lib.workflow.gatepolicy import load_policy
from skills.lib.workflow.gateway import GatewayRefusal, check, run_command
from skills.lib.workflow.skillmd import tool_list

from .conftest import REPO

ATTACKS = [line for line in (REPO / "tests" / "fixtures" / "gateway-attacks.txt")
           .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
#: Cases a text file cannot hold.
ATTACKS += ["git status\x00touch CANARY", "git status\ntouch CANARY", "git status\rtouch CANARY",
            "git log " + "a" * 5_000]

SKILL_MD = """---
name: demo
description: A demo skill for the gateway's tests.
allowed-tools: Read, Grep, Bash(git:*), Bash(ls:*), Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/*)
---
# demo
"""


class World:
    """A workspace with a skill folder, a canary path, and an evil script outside both."""

    def __init__(self, root: Path) -> None:
        self.workspace = root / "app"
        self.skill = self.workspace / ".claude" / "skills" / "demo"
        (self.skill / "scripts").mkdir(parents=True)
        (self.skill / "SKILL.md").write_text(SKILL_MD)
        self.canary = self.workspace / "CANARY"
        outside = root / "outside"
        outside.mkdir()
        evil = outside / "evil.py"
        evil.write_text(f"open({str(self.canary)!r}, 'w').write('ran')\n")
        (self.skill / "scripts" / "link-to-outside.py").symlink_to(evil)
        self.script("echo.py", "import sys; print('args:', *sys.argv[1:])")

    def script(self, name: str, code: str) -> Path:
        path = self.skill / "scripts" / name
        path.write_text(code + "\n")
        return path

    def policy_file(self, text: str) -> None:
        (self.workspace / ".claude" / "skillrail.yaml").write_text(text)

    def run(self, command: str, arguments: str = "") -> object:
        policy = load_policy(str(self.skill), str(self.workspace))
        values = variables(str(self.skill), "de-123456", arguments, str(self.workspace))
        return run_command(command, policy, Substituter(values, "test"))


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    monkeypatch.chdir(made.workspace)
    return made


def test_the_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 50


@pytest.mark.parametrize("narrowed", [True, False], ids=["allowed-tools", "policy-only"])
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a[:40])
def test_every_attack_is_refused_with_the_rule_that_refused_it(world: World, attack: str,
                                                               narrowed: bool) -> None:
    if not narrowed:  # without allowed-tools, the project policy alone must hold
        (world.skill / "SKILL.md").write_text(SKILL_MD.replace("allowed-tools", "x-unused"))
    command = attack.replace("CANARY", str(world.canary))
    with pytest.raises(GatewayRefusal) as refused:
        world.run(command)
    message = refused.value.summary()
    assert f"rule '{refused.value.rule}'" in message and "security gateway" in message
    assert not world.canary.exists()


def test_a_substituted_value_is_one_argument_and_never_syntax(world: World) -> None:
    # The value holds a command list; split first, substitute after: it stays one word and is
    # refused as shell syntax rather than run.
    with pytest.raises(GatewayRefusal, match="shell-syntax"):
        world.run("git log $ARGUMENTS", arguments=f"x; touch {world.canary}")
    done = world.run("python3 ${SKILL_DIR}/scripts/echo.py $ARGUMENTS", arguments="a b  c")
    assert done.head.strip() == "args: a b  c"  # type: ignore[attr-defined]
    assert not world.canary.exists()


def test_an_allowed_command_runs_from_the_workspace_without_a_shell(world: World) -> None:
    world.script("where.py", "import os; print(os.getcwd())")
    done = world.run("python3 ${SKILL_DIR}/scripts/where.py")
    assert done.status == "ok" and done.head.strip() == str(world.workspace)  # type: ignore
    os.system(f"git init -q {world.workspace}")
    assert world.run("git status --short").status == "ok"  # type: ignore[attr-defined]


def test_the_environment_cannot_smuggle_in_a_pager_or_preload(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.script("env.py", "import os; print(sorted(k for k in os.environ "
                           "if k.startswith(('LD_', 'GIT_EXTERNAL', 'PAGER', 'BASH_ENV'))))")
    monkeypatch.setenv("LD_PRELOAD", "/tmp/evil.so")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch {world.canary}")
    monkeypatch.setenv("BASH_ENV", "/tmp/evil.sh")
    done = world.run("python3 ${SKILL_DIR}/scripts/env.py")
    assert done.head.strip() == "['PAGER']"  # type: ignore[attr-defined]  # PAGER=cat, ours


def test_a_sleeping_command_is_stopped_at_its_timeout(world: World) -> None:
    world.policy_file("commands:\n  - executable: python3\n    scripts: true\n    timeout: 1\n")
    world.script("sleep.py", "import time; print('started', flush=True); time.sleep(60)")
    done = world.run("python3 ${SKILL_DIR}/scripts/sleep.py")
    assert done.status == "timeout" and done.seconds < 10  # type: ignore[attr-defined]
    assert done.head.strip() == "started"  # type: ignore[attr-defined]


def test_a_flooding_command_is_capped_and_its_exit_status_still_known(world: World) -> None:
    world.script("flood.py", "import sys\nfor _ in range(2000): sys.stdout.write('x' * 10_000)"
                             "\nsys.stdout.write('THE END'); sys.exit(4)")
    done = world.run("python3 ${SKILL_DIR}/scripts/flood.py")
    assert done.status == "failed" and done.exit_code == 4  # type: ignore[attr-defined]
    assert len(done.head) == 10_000 and done.truncated  # type: ignore[attr-defined]
    assert done.tail.endswith("THE END")  # type: ignore[attr-defined]


def test_the_skills_allowed_tools_narrow_the_policy(world: World) -> None:
    (world.skill / "SKILL.md").write_text(SKILL_MD.replace(
        "Bash(git:*), Bash(ls:*)", "Bash(git status:*)"))
    with pytest.raises(GatewayRefusal, match="not-in-allowed-tools"):
        world.run("git log")
    with pytest.raises(GatewayRefusal, match="not-in-allowed-tools"):
        world.run("ls")


def test_the_project_policy_replaces_the_defaults(world: World) -> None:
    world.policy_file("commands:\n  - executable: ls\n")
    with pytest.raises(GatewayRefusal, match=r"not-in-policy.*allowed: ls"):
        world.run("git status")


@pytest.mark.parametrize("text, expected", [
    ("commands: [\n", "cannot read the gateway policy"),
    ("timeout: -1\n", "timeout: Input should be greater than 0"),
    ("commands:\n  - executable: git\n    colour: red\n", "commands.0.colour"),
    ("blocked: ['(']\n", "not a valid regular expression"),
    ("commands:\n  - executable: /bin/sh\n", "commands.0.executable"),
])
def test_a_bad_policy_file_is_one_error_naming_the_entry(world: World, text: str,
                                                          expected: str) -> None:
    world.policy_file(text)
    with pytest.raises(SkillrailError) as failed:
        world.run("git status")
    assert expected in str(failed.value) and "skillrail.yaml" in str(failed.value)


def test_check_refuses_before_anything_could_run(world: World) -> None:
    policy = load_policy(str(world.skill), str(world.workspace))
    checked = check("git log --oneline -n 3", policy)
    assert checked.argv == ["git", "log", "--oneline", "-n", "3"] and checked.timeout == 5


@pytest.mark.parametrize("value, expected", [
    ("Read, Grep, Bash(git diff:*)", ["Read", "Grep", "Bash(git diff:*)"]),
    (["Read", "Bash(npm run test:*)"], ["Read", "Bash(npm run test:*)"]),
    ("Bash(python3 x.py, y) Edit", ["Bash(python3 x.py, y)", "Edit"]),
    (None, []),
])
def test_allowed_tools_in_either_form(value: object, expected: list[str]) -> None:
    assert tool_list(value) == expected


def test_the_interpreter_of_a_skill_script_is_this_one(world: World) -> None:
    world.script("which.py", "import sys; print(sys.executable)")
    done = world.run("python3 ${SKILL_DIR}/scripts/which.py")
    assert done.head.strip() == sys.executable  # type: ignore[attr-defined]


def skillrail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO / ".claude")})


def test_skillrail_gateway_check_says_allowed_or_names_the_rule(world: World) -> None:
    allowed = skillrail("gateway", "check", "demo", "python3 ${SKILL_DIR}/scripts/echo.py hi",
                        "--run", cwd=world.workspace)
    assert allowed.returncode == 0, allowed.stderr
    assert "limits: 60 s" in allowed.stdout and "args: hi" in allowed.stdout
    refused = skillrail("gateway", "check", "demo", "git log | head", cwd=world.workspace)
    assert refused.returncode == 1 and "rule 'shell-syntax'" in refused.stdout
    missing = skillrail("gateway", "check", "nope", "ls", cwd=world.workspace)
    assert missing.returncode == 2 and "no skill 'nope'" in missing.stderr


def test_skillrail_gateway_policy_says_which_file_rules(world: World) -> None:
    assert "the defaults" in skillrail("gateway", "policy", cwd=world.workspace).stdout
    world.policy_file("commands:\n  - executable: ls\n")
    shown = skillrail("gateway", "policy", cwd=world.workspace).stdout
    assert "the project's" in shown and "executable: ls" in shown


def test_a_rule_may_let_an_interpreter_run_the_projects_scripts(world: World) -> None:
    (world.workspace / "tool.py").write_text("print('project tool')\n")
    (world.skill / "SKILL.md").write_text(SKILL_MD.replace("allowed-tools", "x-unused"))
    with pytest.raises(GatewayRefusal, match=r"script-outside-skill.*scripts: workspace"):
        world.run("python3 tool.py --help")
    world.policy_file("commands:\n  - executable: python3\n    scripts: workspace\n")
    assert world.run("python3 tool.py --help").head.strip() == "project tool"  # type: ignore
    with pytest.raises(GatewayRefusal, match="script-outside-workspace"):
        world.run("python3 ../outside/evil.py")
    assert not world.canary.exists()


def test_the_shipped_defaults_pass_the_policy_model() -> None:
    """Under the defaults no pydantic runs (a step pays no import for it), so this is where
    they are checked, against the same model a project's file meets."""
    import yaml
    from skills.lib.workflow.gatepolicy import DEFAULT_FILE, config_of, load_config, policy_model

    data = yaml.safe_load(Path(DEFAULT_FILE).read_text(encoding="utf-8"))
    checked = policy_model().model_validate(data)
    assert config_of(checked.model_dump()) == load_config(DEFAULT_FILE)
