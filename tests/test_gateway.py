"""The security gateway's policy layer: every case of the attack corpus is refused with the rule
that refused it; commands are read the way the program reads them (bundled short options,
abbreviations, `--`, counts, list-only subcommands); every path stays inside the workspace; a
project's policy file extends the defaults and a bad one is one clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow.authoring.skillmd import tool_list
from skills.lib.workflow.base.errors import GatewayRefusal, SkillrailError
from skills.lib.workflow.guard.argvgrammar import Grammar, parse
from skills.lib.workflow.guard.gatepolicy import load_policy
from skills.lib.workflow.guard.gateway import check

from .conftest import REPO
from .gateway_support import SKILL_MD, UNWRITABLE, World, attacks, expected_rules
from .harness import shell

ATTACKS = attacks() + list(UNWRITABLE)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    monkeypatch.chdir(made.workspace)
    return made


def checked(world: World, command: str) -> list[str]:
    """What the gateway would run for `command` (GatewayRefusal when it would not)."""
    return check(command, load_policy(str(world.skill), str(world.workspace))).launch


def test_the_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 120


def test_every_case_of_the_corpus_names_the_rule_that_must_refuse_it() -> None:
    """A case without its rule would pass refused by any rule, for any reason."""
    assert set(expected_rules()) == set(expected_rules(allowed_tools=True)) == set(attacks())


@pytest.mark.parametrize("narrowed", [True, False], ids=["allowed-tools", "policy-only"])
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a[:40])
def test_every_attack_is_refused_with_the_rule_that_refused_it(world: World, attack: str,
                                                               narrowed: bool) -> None:
    if not narrowed:  # without allowed-tools, the policy alone must hold
        world.unrestricted()
    command = attack.replace("CANARY", str(world.canary))
    with pytest.raises(GatewayRefusal) as refused:
        world.run(command)
    message = refused.value.summary()
    assert f"rule '{refused.value.rule}'" in message and "security gateway" in message
    expected = {**expected_rules(allowed_tools=narrowed), **UNWRITABLE}
    assert refused.value.rule == expected[attack]


class TestTheGrammar:
    """Arguments are read as the program reads them, against the allow-list."""

    @pytest.mark.parametrize("command, rule", [
        ("git grep -iOtouch -e x", "option"),  # -O hidden in a bundle
        ("git grep -inO cat -e x", "option"),
        ("git grep --open-files-in-pag=cat -e x", "option"),  # git would take the abbreviation
        ("git log --oneli", "option"),
        ("git log --oneline=yes", "option-value"),  # a flag given a value
        ("git log -n", "option-value"),  # a value missing
        ("git log -n 99999999999", "option-value"),  # a count too long
        ("git log -n five", "option-value"),
        ("git log -99999999999", "option-value"),
        ("git branch NEW", "operand"),  # would create a branch
        ("git tag v2", "operand"),
        ("git branch -v NEW", "operand"),
        ("git -C /tmp status", "subcommand"),
        ("git stash", "subcommand"),
    ])
    def test_a_word_the_grammar_does_not_allow_is_refused(self, world: World, command: str,
                                                          rule: str) -> None:
        with pytest.raises(GatewayRefusal) as refused:
            checked(world, command)
        assert refused.value.rule == rule

    @pytest.mark.parametrize("command, runs", [
        ("git log -n 3 --format=%s", ["log", "--no-ext-diff", "--no-textconv", "-n", "3",
                                      "--format=%s"]),
        ("git log -3 --oneline", ["log", "--no-ext-diff", "--no-textconv", "-3", "--oneline"]),
        ("git status -sb", ["status", "--ignore-submodules=dirty", "-sb"]),
        ("git status -uno --porcelain=v2", ["status", "--ignore-submodules=dirty", "-uno",
                                            "--porcelain=v2"]),
        ("git branch --list 'feat*' -v", ["branch", "--list", "feat*", "-v"]),
        ("git grep -n -e TODO -- README.md", ["grep", "-n", "-e", "TODO", "--", "README.md"]),
        ("git blame -L 1,2 README.md", ["blame", "--no-textconv", "-L", "1,2", "README.md"]),
        ("ls -la", ["-la"]),
        ("head -5 README.md", ["-5", "README.md"]),
    ])
    def test_an_allowed_command_runs_as_written_plus_the_policys_words(
            self, world: World, command: str, runs: list[str]) -> None:
        launch = checked(world, command)
        assert os.path.isabs(launch[0]) and launch[1:] == runs

    def test_words_after_a_double_dash_are_operands(self, world: World) -> None:
        """`--` ends the options: what follows is a path, confined like any."""
        assert checked(world, "git log -- --oneline")[-2:] == ["--", "--oneline"]
        with pytest.raises(GatewayRefusal, match="path-escape"):
            checked(world, "git log -- pw")

    @given(st.lists(st.text("abcdxyz", min_size=1, max_size=4), min_size=1, max_size=4))
    def test_a_bundle_is_allowed_exactly_when_every_letter_is_an_allowed_flag(
            self, bundles: list[str]) -> None:
        """The oracle: getopt's reading of `-abc` is `-a -b -c`."""
        grammar = Grammar({"-a": "flag", "-b": "flag", "-c": "flag", "-d": "flag"})
        words = ["-" + b for b in bundles]
        allowed = all(letter in "abcd" for b in bundles for letter in b)
        try:
            parse(words, grammar, "tool")
        except GatewayRefusal:
            assert not allowed
        else:
            assert allowed

    @given(st.text(min_size=1, max_size=20))
    def test_a_value_option_takes_the_rest_of_its_bundle(self, value: str) -> None:
        """In `-nVALUE`, everything after -n is its value, whatever it holds."""
        parsed = parse(["-an" + value], Grammar({"-a": "flag", "-n": "value"}), "tool")
        assert parsed.options == (("-a", None), ("-n", value))


class TestPaths:
    """Every word that is or could be a path stays inside the workspace."""

    @pytest.mark.parametrize("command, rule", [
        ("ls rootlink", "path-escape"), ("ls outlink", "path-escape"),
        ("wc -l pw", "path-escape"), ("cat pw", "path-escape"), ("head pw", "path-escape"),
        ("git blame pw", "path-escape"), ("git grep -f pw -e x", "path-escape"),
        ("git log -- outlink", "path-escape"), ("cat /etc/hostname", "path-escape"),
        ("ls /", "path-escape"), ("cat rootlink/etc/hostname", "path-escape"),
        ("ls -la ..", "dot-dot"), ("ls ../app", "dot-dot"),  # refused by spelling alone
        ("cat README.md/../pw", "dot-dot"), ("git diff --stat .. .", "dot-dot"),
    ])
    def test_a_path_leaving_the_workspace_is_refused_whatever_its_name(
            self, world: World, command: str, rule: str) -> None:
        """A `..` is refused as written; any other way out (a link, an absolute path) by
        where it leads."""
        with pytest.raises(GatewayRefusal) as refused:
            checked(world, command)
        assert refused.value.rule == rule

    def test_an_absolute_path_inside_the_workspace_or_skill_is_allowed(self, world: World) -> None:
        done = world.run(f"cat {world.workspace / 'README.md'} {world.skill / 'SKILL.md'}")
        assert done.status == "ok" and "# app" in done.head and "name: demo" in done.head

    def test_a_file_hard_linked_elsewhere_is_refused_with_its_fix(self, world: World) -> None:
        """A hard link has no target to resolve: `hl` is the secret outside, under a name
        inside. Any file with more than one link could be one."""
        with pytest.raises(GatewayRefusal, match=r"hard-link.*'hl' has 2 links.*Copy the file"):
            world.run("cat hl")
        assert world.run("cat README.md").head == "# app\n"

    def test_a_symlink_inside_the_workspace_to_the_workspace_is_fine(self, world: World) -> None:
        (world.workspace / "docs").symlink_to(world.workspace)
        assert world.run("cat docs/README.md").head == "# app\n"


class TestInterpreters:
    """Python runs only .py scripts under the skill's scripts/ folder, with -E -s."""

    @pytest.mark.parametrize("command, rule", [
        ("python3 ${SKILL_DIR}/notes.txt", "script-outside-skill"),
        ("python3 ${SKILL_DIR}/scripts/notes.txt", "not-a-script"),
        ("python3 ${SKILL_DIR}/scripts/../notes.txt", "dot-dot"),
        ("python3 ${SKILL_DIR}/scripts/link-to-outside.py", "path-escape"),
        ("python3 ${SKILL_DIR}/SKILL.md", "script-outside-skill"),
        ("python3 -m http.server", "interpreter-option"),
        ("python3 -c pass", "interpreter-option"),
        ("python3 -I ${SKILL_DIR}/scripts/echo.py", "interpreter-option"),
        ("python3 ${SKILL_DIR}/scripts/echo.py pw", "path-escape"),
        ("python3 ${SKILL_DIR}/scripts/missing.py", "script-missing"),
    ])
    def test_anything_but_a_script_of_the_skill_is_refused(self, world: World, command: str,
                                                           rule: str) -> None:
        world.unrestricted()
        with pytest.raises(GatewayRefusal) as refused:
            world.run(command)
        assert refused.value.rule == rule
        assert not world.canary.exists()

    def test_a_script_runs_with_this_interpreter_ignoring_pythonpath_and_user_site(
            self, world: World) -> None:
        world.script("which.py", "import sys; print(sys.executable, sys.flags.ignore_environment,"
                                 " sys.flags.no_user_site)")
        done = world.run("python3 ${SKILL_DIR}/scripts/which.py")
        assert done.head.split() == [sys.executable, "1", "1"]

    def test_a_substituted_value_is_one_argument_and_never_syntax(self, world: World) -> None:
        with pytest.raises(GatewayRefusal, match="shell-syntax"):
            world.run("git log $ARGUMENTS", arguments=f"x; touch {world.canary}")
        done = world.run("python3 ${SKILL_DIR}/scripts/echo.py $ARGUMENTS", arguments="a b  c")
        assert done.head.strip() == "args: a b  c"

    def test_a_policy_may_let_an_interpreter_run_the_projects_scripts_and_modules(
            self, world: World) -> None:
        (world.workspace / "tool.py").write_text("print('project tool')\n")
        world.unrestricted()
        with pytest.raises(GatewayRefusal, match=r"script-outside-skill.*interpreter: workspace"):
            world.run("python3 tool.py --help")
        world.policy_file("programs:\n  python3: {interpreter: workspace, modules: [json.tool]}\n")
        assert world.run("python3 tool.py --help").head.strip() == "project tool"
        (world.workspace / "data.json").write_text('{"a": 1}')
        assert '"a": 1' in world.run("python3 -m json.tool data.json").head
        with pytest.raises(GatewayRefusal, match="interpreter-option"):
            world.run("python3 -m http.server")
        with pytest.raises(GatewayRefusal, match="dot-dot"):
            world.run("python3 ../outside/evil.py")
        assert not world.canary.exists()


class TestExecutables:
    def test_a_program_is_found_outside_the_workspace_only(self, world: World,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
        """A `git` checked out into a folder on PATH cannot stand in for the real one."""
        fake = world.workspace / "bin" / "git"
        fake.parent.mkdir()
        fake.write_text(f"#!/bin/sh\ntouch {world.canary}\n")
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", f"{fake.parent}:.:{os.environ['PATH']}")
        launch = checked(world, "git status")
        assert launch[0] != str(fake) and os.path.isabs(launch[0])
        assert world.run("git status").status == "ok" and not world.canary.exists()

    def test_a_local_program_of_the_project_runs_when_the_policy_says_so(
            self, world: World, monkeypatch: pytest.MonkeyPatch) -> None:
        tool = world.workspace / "bin" / "tool"
        tool.parent.mkdir()
        tool.write_text("#!/bin/sh\necho tool help\n")
        tool.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
        world.unrestricted()
        world.policy_file("programs:\n  tool: {options: {--help: flag}}\n")
        with pytest.raises(GatewayRefusal, match="inside it; mark the program `local: true`"):
            world.run("tool --help")
        world.policy_file("programs:\n  tool: {options: {--help: flag}, local: true}\n")
        assert world.run("tool --help").head == "tool help\n"
        # A script the gateway runs has no workspace folder on its PATH; the gateway it runs
        # in its turn still finds the local program where the rule says.
        world.script("nested.py", f"import sys; sys.path.insert(0, {str(REPO / '.claude')!r})\n"
                                  "from skills.lib.workflow.guard.gatepolicy import load_policy\n"
                                  "from skills.lib.workflow.guard.gateway import run_command\n"
                                  "policy = load_policy(sys.argv[1], sys.argv[2])\n"
                                  "print(run_command('tool --help', policy).head, end='')")
        done = world.run(f"python3 ${{SKILL_DIR}}/scripts/nested.py {world.skill} "
                         f"{world.workspace}")
        assert done.head == "tool help\n", done.head


class TestPolicyFile:
    def test_the_project_policy_extends_the_defaults(self, world: World) -> None:
        world.unrestricted()
        world.policy_file("programs:\n  git:\n    subcommands:\n      count-objects:\n"
                          "        options: {-v: flag}\n        operands: none\n"
                          "  printf: {operands: any}\n")
        assert world.run("git count-objects -v").status == "ok"  # added
        assert world.run("git log --oneline").status == "ok"  # kept
        assert world.run("printf hello").head == "hello"
        with pytest.raises(GatewayRefusal, match="'git count-objects' takes no operands"):
            world.run("git count-objects x")

    def test_defaults_false_starts_from_nothing(self, world: World) -> None:
        world.policy_file("defaults: false\nprograms:\n  ls: {operands: paths}\n")
        with pytest.raises(GatewayRefusal, match=r"not-in-policy.*allowed: ls\)"):
            world.run("git status")

    @pytest.mark.parametrize("text, expected", [
        ("version: 2\nprograms: [\n", "cannot read the gateway policy"),
        ("version: 2\ntimeout: -1\n", "timeout (line 2): Input should be greater than 0"),
        ("version: 2\nprograms:\n  git:\n    colour: red\n",
         "programs.git.colour (line 4): not a key here"),
        ("version: 2\nprograms:\n  git:\n    subcomands: {}\n",
         "programs.git.subcomands (line 4): not a key here (did you mean 'subcommands'?)"),
        ("version: 2\nprograms:\n  git: {options: {--x: maybe}}\n",
         "programs.git.options.--x (line 3): Input should be 'flag', 'value', 'optional', "
         "'path' or 'count'"),
        ("version: 2\nprograms:\n  /bin/sh: {}\n", "'/bin/sh' is not a bare program name"),
        ("version: 2\nprograms:\n  ls: {options: {-la=x: flag}}\n", "'-la=x' is not an option"),
        ("version: 2\nprograms:\n  py: {interpreter: skill, options: {-c: flag}}\n",
         "an interpreter takes no options"),
        ("programs: {}\n", "version: Field required"),
        ("- a list\n", "is not a mapping"),
        ("commands:\n  - executable: git\nblocked: ['^-O']\n", "is a version 1 policy"),
    ])
    def test_a_bad_policy_file_is_one_error_naming_the_file_and_key(
            self, world: World, text: str, expected: str) -> None:
        (world.workspace / ".claude" / "skillrail.yaml").write_text(text)
        with pytest.raises(SkillrailError) as failed:
            world.run("git status")
        assert expected in str(failed.value) and "skillrail.yaml" in str(failed.value)

    def test_the_shipped_defaults_pass_the_policy_model(self) -> None:
        """Under the defaults no pydantic runs (a step pays no import for it), so this is
        where they are checked, against the model a project's file meets."""
        from skills.lib.workflow.guard.gatemodel import validated
        from skills.lib.workflow.guard.gatepolicy import (
            DEFAULT_FILE,
            config_of,
            load_config,
            read_policy_file,
        )

        data = read_policy_file(DEFAULT_FILE)
        assert config_of(validated(data, DEFAULT_FILE, DEFAULT_FILE)) == load_config(None)

    def test_the_example_in_the_docs_is_a_valid_policy(self, world: World) -> None:
        text = (REPO / "docs" / "gateway.md").read_text(encoding="utf-8")
        example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
        world.policy_file(example)
        assert world.run("git count-objects -v").status == "ok"

    def test_every_default_option_is_one_its_program_knows(self, world: World) -> None:
        """A misspelt option in the defaults would refuse what the author meant to allow:
        git itself must accept each git option of the policy (an unknown one makes it say
        'unknown option', 'unknown switch' or 'unrecognized argument')."""
        from skills.lib.workflow.guard.gatepolicy import load_config

        git = load_config(None).program("git")
        assert git is not None and git.subcommands is not None
        extra = {"grep": ["-e", "x"], "blame": ["README.md"]}
        unknown = []
        for sub, grammar in git.subcommands.items():
            for option, kind in grammar.options.items():
                value = "README.md" if kind == "path" else "1"
                form = option if kind in ("flag", "optional") else (
                    f"{option}={value}" if option.startswith("--") else option + value)
                done = subprocess.run(["git", sub, form, *extra.get(sub, [])],
                                      cwd=world.workspace, capture_output=True, text=True,
                                      stdin=subprocess.DEVNULL, timeout=30)
                if any(s in done.stderr for s in ("unknown option", "unknown switch",
                                                  "unrecognized argument")):
                    unknown.append(f"git {sub} {form}")
        assert unknown == []


@pytest.mark.parametrize("value, expected", [
    ("Read, Grep, Bash(git diff:*)", ["Read", "Grep", "Bash(git diff:*)"]),
    (["Read", "Bash(npm run test:*)"], ["Read", "Bash(npm run test:*)"]),
    ("Bash(python3 x.py, y) Edit", ["Bash(python3 x.py, y)", "Edit"]),
    (None, []),
])
def test_allowed_tools_in_either_form(value: object, expected: list[str]) -> None:
    assert tool_list(value) == expected


def test_the_skills_allowed_tools_narrow_the_policy(world: World) -> None:
    (world.skill / "SKILL.md").write_text(SKILL_MD.replace(
        "Bash(git:*)\n  - Bash(ls:*)", "Bash(git status:*)"))
    with pytest.raises(GatewayRefusal, match="not-in-allowed-tools"):
        world.run("git log")
    with pytest.raises(GatewayRefusal, match="not-in-allowed-tools"):
        world.run("ls")


def test_a_sleeping_command_is_stopped_at_its_timeout(world: World) -> None:
    """The program's own timeout (1 s), not the policy's (5 s): stopped before the line it
    would print after 3 s, its output until then kept."""
    world.policy_file("programs:\n  python3: {interpreter: skill, timeout: 1}\n")
    world.script("sleep.py", "import time\nprint('started', flush=True)\ntime.sleep(3)\n"
                             "print('still running after 3 s', flush=True)\ntime.sleep(60)")
    done = world.run("python3 ${SKILL_DIR}/scripts/sleep.py")
    assert (done.status, done.exit_code, done.head) == ("timeout", None, "started\n")


def test_a_flooding_command_is_capped_and_its_exit_status_still_known(world: World) -> None:
    world.script("flood.py", "import sys\nfor _ in range(2000): sys.stdout.write('x' * 10_000)"
                             "\nsys.stdout.write('THE END'); sys.exit(4)")
    done = world.run("python3 ${SKILL_DIR}/scripts/flood.py")
    assert done.status == "failed" and done.exit_code == 4
    assert len(done.head) == 10_000 and done.truncated
    assert done.tail.endswith("THE END")


def skillrail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return shell([sys.executable, "-m", "skills.lib.workflow.commands", *args], cwd=cwd,
                 env={**os.environ, "PYTHONPATH": str(REPO / ".claude")})


def test_skillrail_gateway_check_says_allowed_or_names_the_rule(world: World) -> None:
    command = ("gateway", "check", "demo", "python3 ${SKILL_DIR}/scripts/echo.py hi", "--run",
               "--python", sys.executable)
    untrusted = skillrail(*command, cwd=world.workspace)
    assert untrusted.returncode == 1 and "not trusted here, so a step would not run it" in \
        untrusted.stdout and "ran:" not in untrusted.stdout
    world.trust()
    allowed = skillrail(*command, cwd=world.workspace)
    assert allowed.returncode == 0, allowed.stderr
    lines = allowed.stdout.splitlines()
    child = REPO / ".claude" / "skills" / "lib" / "workflow" / "guard" / "pychild.py"
    assert lines[1] == (f"runs: {sys.executable} -I -S -B {child} {world.workspace} "
                        f"{REPO / '.claude'} - {world.skill}/scripts/echo.py hi")
    assert "limits: 60 s" in allowed.stdout and "args: hi" in allowed.stdout
    assert f"python3 scripts run with {sys.executable}, the python3 a step runs" in allowed.stdout
    assert "an empty private HOME" in allowed.stdout
    assert any(line.startswith("sandbox: ") for line in lines)
    refused = skillrail("gateway", "check", "demo", "git log | head", cwd=world.workspace)
    assert refused.returncode == 1 and "rule 'shell-syntax'" in refused.stdout
    missing = skillrail("gateway", "check", "nope", "ls", cwd=world.workspace)
    assert missing.returncode == 2 and "no skill 'nope'" in missing.stderr


def test_skillrail_gateway_policy_shows_the_policy_in_force(world: World) -> None:
    shown = skillrail("gateway", "policy", cwd=world.workspace).stdout
    assert "# the defaults" in shown and "\n# sandbox: " in shown and "--open-files" not in shown
    world.policy_file("programs:\n  printf: {operands: any}\n")
    shown = skillrail("gateway", "policy", "printf", cwd=world.workspace).stdout
    assert "extended by" in shown and shown.endswith("programs:\n  printf: {operands: any}\n")
    bad = skillrail("gateway", "policy", "nope", cwd=world.workspace)
    assert bad.returncode == 2 and "no program 'nope'" in bad.stderr
