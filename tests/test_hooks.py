"""The Claude Code hooks, run as Claude Code runs them: the entry script as a subprocess, a
payload captured from the real client (tests/fixtures/hooks/) on stdin, its JSON answer on
stdout. Deny, allow and block decisions for tables of payloads, sub-agent scoping, and failing
safe: whatever goes wrong, the hook exits 0 and lets the agent work."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .harness import cmd_text, next_cmd_text, offered, run_of
from .hooks_support import (
    ENTRY,
    FIXTURES,
    SKILLRAIL,
    Agent,
    Session,
    answer,
    bash,
    denial,
    env,
    hook,
    make_project,
    next_cmd,
    payload,
)
from .repo_shapes import SHAPES, make_shape


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_project(tmp_path / "app")
    return tmp_path / "app"


@pytest.fixture(params=["unseen", "seen"])
def agent(project: Path, request: pytest.FixtureRequest) -> Agent:
    """The agent, its step output unseen by the hooks (judged by the workflow, loaded) or seen
    as Claude Code's PostToolUse shows it them (judged by the run's shape they kept)."""
    return Agent(project) if request.param == "unseen" else Session(project)


@pytest.fixture
def look(agent: Agent) -> ET.Element:
    """A run of 'guarded' at its first step, 'look' (Read, Grep and git log allowed)."""
    return agent.start()


def asked(agent: Agent, doc: ET.Element) -> ET.Element:
    """`doc`, an ask_user step, answered by the user (a prompt, where the hooks see the session:
    the gate binds there)."""
    if isinstance(agent, Session):
        agent.user_says()
    return doc


def script(project: Path, name: str = "guarded.py") -> str:
    return str(project / ".claude" / "skills" / "guarded" / "scripts" / name)


class TestPreToolUse:
    @pytest.mark.parametrize("name", ["pretooluse-webfetch", "pretooluse-edit",
                                      "pretooluse-skill"])
    def test_a_tool_outside_the_step_is_denied_naming_the_next_command(
            self, look: ET.Element, name: str) -> None:
        """WebFetch, Edit and Skill are not among look's tools: denied, and the reason names
        the step and its exact `<NEXT>` command."""
        reason = denial(payload(name))
        assert reason is not None
        assert "step 'look'" in reason and (run_of(look) or "") in reason
        assert next_cmd_text(look) in reason

    @pytest.mark.parametrize(("tool", "tool_input"), [
        ("Read", {"file_path": "/home/dev/app/durations/__init__.py"}),
        ("Grep", {"pattern": "findall"}),
        ("Glob", {"pattern": "**/*.py"}),  # the "Read" rule covers the file-reading tools
    ])
    def test_a_tool_of_the_step_is_allowed_silently(
            self, look: ET.Element, tool: str, tool_input: dict[str, str]) -> None:
        assert answer("PreToolUse", payload("pretooluse-edit", tool_name=tool,
                                            tool_input=tool_input)) is None

    @pytest.mark.parametrize(("line", "allowed"), [
        ("git log --oneline -5", True),
        ("git log -1 && git log -2", True),
        ("git log -1 && rm -rf build", False),  # every simple command must be allowed
        ("git push", False),
        ("git logx", False),
        ("ls", False),
        ('python3 -c "print(1)"', False),
        ("@SKILLRAIL status", True),
        ("@SKILLRAIL show gu-1 FOUND", True),
        ("@SKILLRAIL abandon gu-1", False),
    ])
    def test_bash_commands_against_the_steps_rules(
            self, look: ET.Element, project: Path, line: str, allowed: bool) -> None:
        line = line.replace("@SKILLRAIL", shlex.join(SKILLRAIL))
        assert (denial(bash(project, line)) is None) is allowed

    @pytest.mark.parametrize(("suffix", "allowed"), [
        (" --set FOUND='a value with $(rm -rf ~) inside single quotes'", True),
        (" --set FOUND=\"a value\" 2>&1", True),
        (" --set FOUND=x > /dev/null", True),
        (" --set-file FOUND=- <<'EOF'\nlines with $(dollar) and `ticks`\nEOF", True),
        (' --set FOUND="$(rm -rf ~)"', False),  # the shell would run it
        (" --set FOUND=x > notes.txt", False),  # writes a file
        (" --set FOUND=x; curl example.com", False),
        (" --set-file FOUND=- <<EOF\n$(whoami)\nEOF", False),  # unquoted here-document
    ])
    def test_the_runs_step_script_is_allowed_unless_the_line_does_more(
            self, look: ET.Element, project: Path, suffix: str, allowed: bool) -> None:
        """The step's own command is always allowed; shell tricks around it are not."""
        assert (denial(bash(project, next_cmd(look) + suffix)) is None) is allowed

    def test_any_script_of_the_skill_with_any_interpreter_is_allowed(
            self, look: ET.Element, project: Path) -> None:
        for line in (f"python3 {script(project)} --help",
                     f"cd {project} && python3 -u .claude/skills/guarded/scripts/check.py "
                     "--step 1 --stateless"):
            assert denial(bash(project, line)) is None, line

    def test_the_fixtures_step_command_of_another_skill_is_denied(self, look: ET.Element) -> None:
        """pretooluse-bash-step-script.json runs problem-analysis, not the active run's skill."""
        assert denial(payload("pretooluse-bash-step-script")) is not None

    def test_steps_without_tools_fall_back_to_skill_md_and_ask_user_may_ask(
            self, agent: Agent, look: ET.Element, project: Path) -> None:
        """'ask' has no tools: SKILL.md's allowed-tools (Read, git status) apply; the
        AskUserQuestion tool is allowed on an ask_user step, and only there."""
        ask_user = payload("pretooluse-webfetch", tool_name="AskUserQuestion",
                           tool_input={"questions": []})
        assert denial(ask_user) is not None
        agent.follow(look, FOUND="x")
        assert denial(ask_user) is None
        assert denial(bash(project, "git status")) is None
        assert denial(bash(project, "git log")) is not None
        assert denial(payload("pretooluse-edit")) is not None

    def test_a_step_without_tools_in_a_skill_without_allowed_tools_restricts_nothing(
            self, agent: Agent, project: Path) -> None:
        skill_md = project / ".claude" / "skills" / "guarded" / "SKILL.md"
        skill_md.write_text(skill_md.read_text().replace(
            'allowed-tools: Read, "Bash(git status:*)"\n', ""))
        look = agent.start()
        assert denial(payload("pretooluse-webfetch")) is not None  # 'look' names its tools
        agent.follow(look, FOUND="x")  # 'ask' names none, and SKILL.md none either
        assert denial(payload("pretooluse-webfetch")) is None
        assert denial(payload("pretooluse-edit")) is None

    def test_a_branch_step_names_each_next_command_with_its_condition(
            self, agent: Agent, look: ET.Element) -> None:
        ask = agent.follow(look, FOUND="x")
        reason = denial(payload("pretooluse-edit")) or ""
        for invoke in offered(ask):
            assert f"- {invoke.get('when')}: {cmd_text(invoke)}" in reason

    def test_a_step_allowing_no_tools_still_reads_its_skill_and_dispatches(
            self, agent: Agent, look: ET.Element, project: Path) -> None:
        """'review' (tools=[], a dispatch): reading the skill's own files and the sub-agent
        tool are part of following it; anything else is denied."""
        agent.follow(agent.follow(asked(agent, agent.follow(look, FOUND="x")), "approve"))

        def read(path: str) -> dict[str, object]:
            return payload("pretooluse-edit", tool_name="Read", tool_input={"file_path": path})

        assert denial(read(str(project / ".claude/skills/guarded/SKILL.md"))) is None
        assert denial(read("/home/dev/app/plan.json")) is not None
        assert denial(payload("pretooluse-edit", tool_name="Agent", tool_input={
            "subagent_type": "reviewer", "prompt": "Review the change."})) is None
        assert denial(bash(project, "git log")) is not None

    def test_no_run_in_the_session_means_no_restriction(self, look: ET.Element) -> None:
        other = payload("pretooluse-webfetch", session_id="another-session")
        assert answer("PreToolUse", other) is None

    def test_a_finished_run_restricts_nothing(self, agent: Agent, look: ET.Element) -> None:
        done = agent.follow(asked(agent, agent.follow(look, FOUND="x")), "reject")
        assert done.find("NEXT/complete") is not None
        assert answer("PreToolUse", payload("pretooluse-webfetch")) is None


class TestTheRunsShape:
    """Once the hooks saw a step printed, PreToolUse judges the step's tools by the run's shape
    as they first saw it (step/shape.py), without loading the workflow."""

    @staticmethod
    def widen(project: Path) -> None:
        path = Path(script(project))
        path.write_text(path.read_text().replace(
            'tools=["Read", "Grep", "Bash(git log:*)"]',
            'tools=["Read", "Grep", "Bash(git log:*)", "WebFetch"]'))

    @pytest.mark.parametrize("shape", SHAPES)
    def test_a_script_edited_to_widen_the_steps_tools_widens_nothing(
            self, shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """In every shape of repository (a clone's run names the repository, and its script
        is found in this checkout)."""
        project = make_shape(shape, tmp_path, monkeypatch)
        look = Session(project).start()
        self.widen(project)
        reason = denial(payload("pretooluse-webfetch"))
        assert reason is not None and "step 'look'" in reason
        assert next_cmd_text(look) in reason  # the workflow still loads to say what is next
        assert denial(payload("pretooluse-edit", tool_name="Grep",
                              tool_input={"pattern": "x"})) is None

    def test_a_run_seen_before_shapes_held_tools_is_judged_by_its_workflow(
            self, project: Path, ledger_home: Path) -> None:
        Session(project).start()
        with sqlite3.connect(ledger_home / "evidence" / "evidence.sqlite3") as db:
            (facts,), = db.execute("SELECT facts FROM runs").fetchall()
            old = {k: v for k, v in json.loads(facts).items()
                   if k not in ("tools", "dispatches")}
            db.execute("UPDATE runs SET facts = ?", (json.dumps(old),))
        assert denial(payload("pretooluse-webfetch")) is not None
        self.widen(project)
        assert denial(payload("pretooluse-webfetch")) is None  # as the script says now

    def test_a_skill_whose_script_is_gone_restricts_nothing_though_seen(
            self, project: Path) -> None:
        """The run cannot go on: denying would leave the agent no way forward."""
        Session(project).start()
        Path(script(project)).unlink()
        assert answer("PreToolUse", payload("pretooluse-webfetch")) is None


class TestWhatAHookLoads:
    """Every tool call the agent makes starts PreToolUse in a new interpreter: what it imports
    is what the agent waits for (benchmarks/hook_latency.py times it). These read the imports
    of the real process (`-X importtime`, without site: only the hook's own imports)."""

    @staticmethod
    def imported(data: dict[str, object]) -> set[str]:
        done = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ENTRY),
                               "PreToolUse"], input=json.dumps(data), text=True,
                              capture_output=True, env=env(), timeout=60)
        assert done.returncode == 0
        return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}

    #: What no PreToolUse answer needs: typing, contextlib (base/records.py says why), and a
    #: workflow's graph.
    HEAVY = ("typing", "contextlib", "skills.lib.workflow.graph.model")

    def test_no_run_in_the_session(self, look: ET.Element) -> None:
        found = self.imported(payload("pretooluse-webfetch", session_id="another-session"))
        assert "skills.lib.workflow.hooks.decisions" in found  # the probe sees the hook's own
        assert [m for m in self.HEAVY if m in found] == []

    def test_the_runs_step_command_and_a_tool_its_step_allows(self, project: Path) -> None:
        look = Session(project).start()
        step = bash(project, next_cmd(look).replace("'", "") + " --set FOUND=x")
        for data in (step, payload("pretooluse-edit", tool_name="Grep",
                                   tool_input={"pattern": "x"})):
            assert denial(data) is None
            assert [m for m in self.HEAVY if m in self.imported(data)] == []


class TestSubAgents:
    def test_a_sub_agent_is_held_to_its_sub_run_not_to_the_orchestrators_step(
            self, agent: Agent, look: ET.Element) -> None:
        """Edit is denied to the sub-agent (its sub-run's step allows Read only) with the
        sub-run's next command, while the main agent at 'change' may edit."""
        ask = asked(agent, agent.follow(look, FOUND="x"))
        agent.follow(ask, "approve")  # main run at 'change': Edit, Read
        sub = agent.start("check.py", "--parent", (run_of(look) or ""))
        edit = payload("pretooluse-edit")
        assert denial(edit) is None
        reason = denial(edit | {"agent_id": "agent_9c2", "agent_type": "reviewer"}) or ""
        assert (run_of(sub) or "") in reason and next_cmd_text(sub) in reason
        assert denial(payload("pretooluse-subagent-read")) is None

    def test_parallel_sub_agents_are_told_apart_once_they_name_their_run(
            self, agent: Agent, look: ET.Element, project: Path) -> None:
        first = agent.start("check.py", "--parent", (run_of(look) or ""))
        second = agent.start("check.py", "--parent", (run_of(look) or ""))
        mine = bash(project, next_cmd(first), agent_id="agent_a")
        assert denial(mine) is None  # its own step command, which binds it to its sub-run
        edit = payload("pretooluse-edit")
        assert (run_of(first) or "") in (denial(edit | {"agent_id": "agent_a"}) or "")
        assert (run_of(second) or "") in (denial(edit | {"agent_id": "agent_b"}) or "")

    def test_a_sub_agent_without_a_sub_run_is_not_restricted(self, look: ET.Element) -> None:
        assert denial(payload("pretooluse-edit", agent_id="agent_x")) is None


class TestStop:
    def test_an_unfinished_run_blocks_the_stop_once_naming_the_next_command(
            self, look: ET.Element) -> None:
        out = answer("Stop", payload("stop")) or {}
        assert out.get("decision") == "block"
        assert next_cmd_text(look) in out["reason"]
        assert f"pause {run_of(look)}" in out["reason"]
        assert answer("Stop", payload("stop-already-continuing")) is None

    def test_the_step_is_named_without_a_count_of_the_workflows_steps(
            self, look: ET.Element) -> None:
        """'at step 'look' (title)', not 'step 1 of N': N counts the workflow's steps, not the
        run's, and would sit beside any count the title keeps (a plan step's)."""
        reason = (answer("Stop", payload("stop")) or {})["reason"]
        assert f"at step 'look' ({look.get('title')}). " in reason
        assert re.search(r"(?i)step \d+ of \d+", reason) is None

    def test_waiting_for_the_users_answer_is_a_right_time_to_stop(
            self, agent: Agent, look: ET.Element) -> None:
        agent.follow(look, FOUND="x")
        assert answer("Stop", payload("stop")) is None

    def test_pause_lets_the_agent_stop_until_the_run_goes_on(
            self, agent: Agent, look: ET.Element) -> None:
        paused = agent.call([*SKILLRAIL, "pause", (run_of(look) or "")])
        assert paused.returncode == 0, paused.stderr
        assert answer("Stop", payload("stop")) is None
        assert answer("PreToolUse", payload("pretooluse-webfetch")) is None
        agent.follow(look, FOUND="x")  # the next step command ends the pause
        assert denial(payload("pretooluse-webfetch")) is not None

    def test_skillrail_resume_ends_a_pause(self, agent: Agent, look: ET.Element) -> None:
        agent.call([*SKILLRAIL, "pause", (run_of(look) or "")])
        assert answer("Stop", payload("stop")) is None
        assert agent.call([*SKILLRAIL, "resume", (run_of(look) or "")]).returncode == 0
        assert answer("Stop", payload("stop")) is not None


class TestSessionStart:
    def test_after_compaction_the_current_step_is_context_again(self, look: ET.Element) -> None:
        out = answer("SessionStart", payload("sessionstart-compact")) or {}
        context = out["hookSpecificOutput"]["additionalContext"]
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert context.startswith(f"A skillrail run is active in this session: run "
                                  f"{run_of(look)}")
        step = ET.fromstring(context[context.index("<step"):])
        assert step.get("id") == "look"
        assert next_cmd_text(step) == next_cmd_text(look)
        head = context[:context.index("<step")]
        assert f"at step 'look' ({look.get('title')})" in head
        assert re.search(r"(?i)step \d+ of \d+", head) is None

    @pytest.mark.parametrize("source", ["startup", "clear"])
    def test_a_new_session_gets_nothing(self, look: ET.Element, source: str) -> None:
        assert answer("SessionStart", payload("sessionstart-compact", source=source)) is None


class TestFailingSafe:
    def test_a_malformed_payload_lets_the_action_through(self, look: ET.Element) -> None:
        for raw in ((FIXTURES / "malformed.txt").read_text(), "", "[1, 2]", "\x00\xff"):
            proc = hook("PreToolUse", raw, process=True)  # the client's process, its stdin
            assert proc.stdout == "" and "skillrail hook:" in proc.stderr

    @pytest.mark.parametrize("name", ["pretooluse-webfetch", "stop", "sessionstart-compact"])
    def test_without_a_ledger_nothing_is_refused_and_no_ledger_is_made(
            self, ledger_home: Path, name: str) -> None:
        data = payload(name)
        assert answer(data["hook_event_name"], data) is None
        assert not (ledger_home / "runs.sqlite3").exists()

    @pytest.mark.parametrize("name", ["pretooluse-webfetch", "stop", "sessionstart-compact",
                                      "userpromptexpansion-skill"])
    def test_a_corrupt_ledger_lets_the_agent_work(self, ledger_home: Path, name: str) -> None:
        (ledger_home / "runs.sqlite3").write_bytes(b"this is not a database" * 100)
        data = payload(name)
        proc = hook(data["hook_event_name"], data)
        assert proc.stdout == "" and "skillrail hook:" in proc.stderr

    def test_a_ledger_of_a_newer_skillrail_lets_the_agent_work(
            self, look: ET.Element, ledger_home: Path) -> None:
        with sqlite3.connect(ledger_home / "runs.sqlite3") as db:
            db.execute("PRAGMA user_version = 999")
        assert hook("PreToolUse", payload("pretooluse-webfetch")).stdout == ""

    def test_a_skill_whose_script_is_gone_restricts_nothing(
            self, look: ET.Element, project: Path) -> None:
        Path(script(project)).unlink()
        assert answer("PreToolUse", payload("pretooluse-webfetch")) is None
        assert answer("Stop", payload("stop")) is None

    def test_an_entry_that_cannot_import_the_framework_exits_0(self, tmp_path: Path) -> None:
        """A half-installed copy: the import fails inside the guard, not before it."""
        lone = tmp_path / "skills" / "lib" / "workflow" / "hooks" / "entry.py"
        lone.parent.mkdir(parents=True)
        lone.write_text(ENTRY.read_text())
        proc = subprocess.run([sys.executable, "-S", str(lone), "PreToolUse"], text=True,
                              input=(FIXTURES / "stop.json").read_text(), capture_output=True,
                              env={k: v for k, v in env().items() if k != "PYTHONPATH"},
                              timeout=30)
        assert proc.returncode == 0 and proc.stdout == ""
        assert "internal error" in proc.stderr

    def test_every_event_answers_with_exit_0_for_a_session_without_runs(self) -> None:
        for path in sorted(FIXTURES.glob("*.json")):
            data = payload(path.stem, session_id="a-session-with-no-runs")
            # As the client starts it: a new interpreter for each event.
            assert hook(data["hook_event_name"], data, session=None, process=True).stdout == ""

