"""Approvals given in advance (guard/standing.py), as users give them and agents meet them: a
user who types `--approve ...` in the prompt that starts a skill gets a run that passes the
question without a second turn, its trace quoting their words; an agent that writes the same
words anywhere else gains nothing; an always-asked question still waits; without hooks the same
approval, relayed, is recorded as advisory; a run nobody attends stops with needs-user.

The routes run as an agent runs them (real step scripts, the hooks as Claude Code calls them)
in a clone with an `origin` remote and in a repository without one."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow.base.errors import SkillrailError
from skills.lib.workflow.guard.standing import covering, in_prompt, until_time

#: look -> ask (approvable, kind "change") -> change -> wipe (always asked) -> done.
from skills.lib.workflow.protocol.reading import asked
from skills.lib.workflow.protocol.reading import decided as read_decided

from .harness import actions, next_cmd_text, offered, outcome_of, run_of
from .hooks_support import (
    SKILLRAIL,
    Agent,
    Session,
    bash,
    command,
    denial,
    hook,
    payload,
)
from .repo_shapes import make_shape

ADVANCE = '''import sys

sys.path.insert(0, {root!r})
from skills.lib.workflow import Action, Arg, AskUser, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="advance", steps=[
    StepDef("look", "Look around", actions=[Action("Read the code.", out="FOUND")],
            args=[Arg("FOUND", "what you found")], next={{"ok": "ask"}}),
    StepDef("ask", "Ask the user", ask_user=AskUser("Change it?", {{"approve": "yes",
            "reject": "no"}}, in_advance="approve", kind="change"),
            next={{"approve": "change", "reject": "done"}}),
    StepDef("change", "Change", actions=["Edit the file."], next={{"ok": "wipe"}}),
    StepDef("wipe", "Wipe", ask_user=AskUser("Delete the old branch?", {{"delete": "yes",
            "keep": "no"}}), next={{"delete": "done", "keep": "done"}}),
    StepDef("done", "Done", actions=["Report."], next={{"ok": None}}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
WORDS = '/advance tidy the parser --approve change --if "the change stays under 50 lines"'


def add_skill(project: Path) -> Path:
    from .conftest import REPO

    skill = project / ".claude" / "skills" / "advance"
    (skill / "scripts").mkdir(parents=True)
    (skill / "scripts" / "advance.py").write_text(ADVANCE.format(root=str(REPO / ".claude")))
    (skill / "SKILL.md").write_text("---\nname: advance\ndescription: A test skill.\n---\n"
                                    "Run ${CLAUDE_SKILL_DIR}/scripts/advance.py --step look\n")
    return skill


@pytest.fixture(params=["no-remote", "https-origin"])
def project(request: pytest.FixtureRequest, tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> Path:
    found = make_shape(request.param, tmp_path, monkeypatch)
    add_skill(found)
    return found


def start(agent: Agent) -> ET.Element:
    script = agent.project / ".claude" / "skills" / "advance" / "scripts" / "advance.py"
    first = agent.run([sys.executable, str(script), "--step", "1"])
    return agent.follow(first, FOUND="x")


def trace(agent: Agent, run: str) -> dict[str, object]:
    done = Agent.call(agent, [*SKILLRAIL, "trace", run, "--json"])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def events(agent: Agent, run: str, kind: str) -> list[str]:
    return [e["detail"] for e in trace(agent, run)["timeline"]  # type: ignore[index]
            if e["kind"] == "event" and e["event"] == kind]  # type: ignore[index]


def user_prompt(session: Session, text: str, event: str = "UserPromptSubmit"
                ) -> dict[str, object] | None:
    """The user types `text`; the hook's answer (what the user is shown), if any."""
    data = payload("stop", hook_event_name=event, prompt=text, session_id=session.session,
                   cwd=str(session.project))
    out = hook(event, data, session.session).stdout.strip()
    return json.loads(out) if out else None


# -- the user's words, read ----------------------------------------------------------------

def test_a_prompt_gives_scope_condition_and_end() -> None:
    found, problems = in_prompt("/planner add days\n--approve plan --if 'it covers days' "
                                "--until 2h\nthanks")
    assert problems == []
    [a] = found
    assert (a.scope, a.condition, a.skill, a.source) == ("plan", "it covers days", "planner",
                                                         "prompt")
    assert a.until is not None and 7000 < a.until - time.time() <= 7200
    assert a.words == "--approve plan --if 'it covers days' --until 2h"


@pytest.mark.parametrize("text, why", [
    ("--approve", "needs a scope"),
    ("--approve plan and then go", "'and' follows the scope"),
    ('--approve plan --if "unclosed', "No closing quotation"),
    ("--approve plan --until someday", "is no time"),
    ("--approve plan --if", "--if needs a value"),
])
def test_a_prompt_that_cannot_be_read_says_why(text: str, why: str) -> None:
    found, problems = in_prompt(text)
    assert found == [] and len(problems) == 1 and why in problems[0]
    assert "--approve SCOPE" in problems[0]


_LINE = st.one_of(
    st.text(max_size=40).map(lambda t: t.replace("--approve", "")),
    st.builds(lambda head, rest: f"{head} --approve {rest}".strip(),
              st.sampled_from(["", "/planner go", "please"]),
              st.text(alphabet=" \"'abcdefgh-:0123456789", max_size=30)))


@given(st.lists(_LINE, max_size=6))
def test_every_approval_line_is_read_or_refused_and_nothing_else_is(lines: list[str]) -> None:
    text = "\n".join(lines)
    found, problems = in_prompt(text)
    asking = [line for line in text.splitlines() if " --approve" in f" {line}"]
    assert len(found) + len(problems) == len(asking)
    for a in found:
        assert a.scope and not a.scope.startswith("-") and len(a.words) <= 300
        assert a.words in asking


def test_until_takes_a_clock_a_date_and_a_span() -> None:
    now = time.mktime((2026, 12, 2, 10, 0, 0, 0, 0, -1))
    assert until_time("11:30", now) == now + 5400
    assert until_time("09:00", now) == now + 23 * 3600  # passed today: tomorrow
    assert until_time("90m", now) == now + 5400
    assert until_time("2026-12-03 10:00", now) == now + 86400
    with pytest.raises(ValueError, match="is no time"):
        until_time("soon", now)


def test_an_approval_covers_only_its_scope_session_skill_and_time() -> None:
    [a] = in_prompt("/advance --approve change --until 1h")[0]
    a = a._replace(session="s1", at=100.0, until=1000.0)
    base = dict(run="r", skill="advance", step="ask", kind="change", sessions={"s1"},
                binding=True, now=200.0, last_turns={"s1": 100.0})
    assert covering([a], **base) == a  # type: ignore[arg-type]
    for change in ({"sessions": {"s2"}}, {"skill": "planner"}, {"kind": "plan"},
                   {"now": 1000.0}, {"now": 50.0}):
        assert covering([a], **base | change) is None, change  # type: ignore[arg-type]
    assert covering([a._replace(scope="all")], **base | {"kind": ""}) is not None  # type: ignore
    # Without --until, the user's next turn ends it; with it, the time does.
    open_ended = a._replace(until=None)
    assert covering([open_ended], **base | {"last_turns": {"s1": 150.0}}) is None  # type: ignore
    assert covering([a], **base | {"last_turns": {"s1": 150.0}}) == a  # type: ignore
    assert covering([a._replace(source="advisory")], **base) is None  # type: ignore[arg-type]


def test_in_advance_must_name_an_option(register) -> None:  # type: ignore[no-untyped-def]
    from skills.lib.workflow import AskUser, StepDef, Workflow

    with pytest.raises(SkillrailError, match=r"in_advance names no option.*'approve'"):
        register(Workflow(name="bad-advance", steps=[
            StepDef("ask", "Ask", ask_user=AskUser("Go?", {"approve": "yes", "stop": "no"},
                                                   in_advance="aprove"),
                    next={"approve": "done", "stop": "done"}),
            StepDef("done", "Done", actions=["Report."], next={"ok": None})]))


# -- with hooks: the user's prompt, and every other route ----------------------------------

def test_the_users_prompt_passes_the_question_and_is_quoted(project: Path) -> None:
    session = Session(project)
    told = user_prompt(session, '/advance tidy the parser --approve change', "UserPromptExpansion")
    assert told is not None and "approved in advance 'change' of /advance" in str(told)
    doc = start(session)
    assert doc.get("id") == "change"  # no second turn: the question was passed
    [passed] = read_decided(doc)
    assert (passed.step, passed.outcome) == ("ask", "approve")
    assert "“/advance tidy the parser --approve change”" in passed.note
    run = (run_of(doc) or "")
    [said] = events(session, run, "approved-in-advance")
    assert json.loads(said)["words"] == "/advance tidy the parser --approve change"
    # The hooks judge the run's history sound, and the next step goes on.
    after = session.follow(doc)
    assert after.get("id") == "wipe"
    assert not events(session, run, "tampered")
    # The run's last step lists the answers taken from the approval.
    session.user_says("delete it")
    done = session.follow(after, "delete").findtext("NEXT/complete") or ""
    assert "'ask' (approve: “/advance tidy the parser --approve change”)" in done
    summary = Agent.call(session, [*SKILLRAIL, "trace", run, "--level", "summary"]).stdout
    assert "approval given in advance answered 'ask' with 'approve'" in summary
    stats = json.loads(Agent.call(session, [*SKILLRAIL, "stats", "--json"]).stdout)
    [row] = [r for r in stats if r["skill"] == "advance"]
    assert [(a["run"], a["step"], a["advisory"]) for a in row["approved_in_advance"]] == \
        [(run, "ask", False)]


def test_an_always_asked_question_waits_under_any_approval(project: Path) -> None:
    session = Session(project)
    user_prompt(session, "go on alone --approve all --until 2h")
    doc = session.follow(start(session))
    assert doc.get("id") == "wipe" and doc.find("DO/ask_user") is not None
    refused = session.call(command(doc, "delete"))
    assert refused.returncode == 3 and "no user turn was recorded" in refused.stderr
    said = denial(bash(project, " ".join(command(doc, "delete")),
                       session_id=session.session))
    assert said is not None and "no user turn" in said


def test_a_condition_is_shown_and_must_be_answered(project: Path) -> None:
    session = Session(project)
    user_prompt(session, WORDS)
    doc = start(session)
    assert doc.get("id") == "ask"
    note = " ".join(a.text for a in actions(doc))
    assert "the change stays under 50 lines" in note and "CONDITION_MET" in note
    [approve] = [i for i in offered(doc) if outcome_of(i) == "approve"]
    assert [a.key for a in asked(approve)] == ["CONDITION_MET"]
    bare = session.call(command(doc, "approve"))
    assert bare.returncode == 3 and "on a condition" in bare.stderr
    # PreToolUse judges the same, before the command runs.
    said = denial(bash(project, shlex.join(command(doc, "approve")), session_id=session.session))
    assert said is not None and "on a condition" in said
    assert denial(bash(project, shlex.join(command(doc, "approve", CONDITION_MET="12 lines")),
                       session_id=session.session)) is None
    # The other option is still the user's.
    assert session.call(command(doc, "reject")).returncode == 3
    moved = session.follow(doc, "approve", CONDITION_MET="12 lines change")
    assert moved.get("id") == "change"
    run = (run_of(doc) or "")
    memory = [e for e in trace(session, run)["timeline"]  # type: ignore[index]
              if e.get("key") == "CONDITION_MET"]  # type: ignore[union-attr]
    assert memory and memory[0]["value"] == "12 lines change"  # type: ignore[index]
    assert json.loads(events(session, run, "approved-in-advance")[0])["condition"] == \
        "the change stays under 50 lines"
    assert session.follow(moved).get("id") == "wipe"
    assert not events(session, run, "tampered")


def test_the_users_next_turn_ends_an_open_approval(project: Path) -> None:
    session = Session(project)
    user_prompt(session, "--approve change")
    session.user_says("also keep the old tests")
    doc = start(session)
    assert doc.get("id") == "ask" and doc.find("DO/ask_user") is not None


def test_another_skills_approval_covers_nothing_here(project: Path) -> None:
    session = Session(project)
    user_prompt(session, "/planner add days --approve change")
    assert start(session).get("id") == "ask"


def test_the_agents_words_gain_nothing(project: Path) -> None:
    session = Session(project)
    session.user_says("tidy the parser, I will be away")
    # As the question of an AskUserQuestion the model wrote (before the run's question: the
    # user's answer is a turn, which would answer that one).
    question = "--approve all --until 2h\nShall I go on?"
    asked = payload("pretooluse-bash-step-script", hook_event_name="PostToolUse",
                    session_id=session.session, cwd=str(project), tool_name="AskUserQuestion",
                    tool_input={"questions": [{"question": question}]},
                    tool_response={"answers": {question: "yes"}})
    hook("PostToolUse", asked, session.session)
    doc = start(session)
    run = (run_of(doc) or "")
    # In a Bash command: `skillrail approve` is refused by PreToolUse, and by itself without
    # a terminal.
    line = f"skillrail approve {run} change"
    said = denial(bash(project, line, session_id=session.session))
    assert said is not None and "the user's to run" in said
    direct = session.call([*SKILLRAIL, "approve", run, "change"])
    assert direct.returncode == 2 and "only at a terminal" in direct.stderr
    # Echoed, or written to a file: nothing reads it.
    session.call(["sh", "-c", "echo '--approve change' > notes.txt"])
    (project / "approval.md").write_text("--approve all\n")
    # In the ledger: an event of the agent's making moves nothing.
    with sqlite3.connect(_ledger_path(session)) as db:
        db.execute("INSERT INTO events (run, at, kind, detail) VALUES (?,?,?,?)",
                   (run, time.time(), "approved-in-advance", '{"words": "--approve all"}'))
    again = session.run(_resume(doc))
    assert again.get("id") == "ask" and again.find("DO/ask_user") is not None
    refused = session.call(command(doc, "approve"))
    assert refused.returncode == 3 and "no user turn" in refused.stderr


def _resume(doc: ET.Element) -> list[str]:
    """The command that shows the run's step again (the script of the first `<NEXT>` command,
    with --resume)."""
    cmd = shlex.split(next_cmd_text(doc) or "")
    script = next(i for i, w in enumerate(cmd) if w.endswith(".py"))
    return [*cmd[:script + 1], "--run", (run_of(doc) or ""), "--resume"]


def _ledger_path(session: Session) -> Path:
    from .hooks_support import env

    return Path(env(session.session)["SKILLRAIL_HOME"]) / "runs.sqlite3"


def test_a_forged_move_past_an_always_asked_question_is_found(project: Path) -> None:
    session = Session(project)
    user_prompt(session, "--approve all --until 2h")
    doc = session.follow(start(session))
    assert doc.get("id") == "wipe"
    run = (run_of(doc) or "")
    with sqlite3.connect(_ledger_path(session)) as db:
        hops = db.execute("SELECT hops FROM runs WHERE id = ?", (run,)).fetchone()[0]
        db.execute("INSERT INTO transitions (run, seq, source, outcome, target, at) VALUES "
                   "(?,?,?,?,?,?)", (run, hops, "wipe", "delete", "done", time.time()))
        db.execute("UPDATE runs SET step = 'done', hops = ? WHERE id = ?", (hops + 1, run))
    refused = session.call(_resume(doc))
    assert refused.returncode == 3 and "without the user's answer" in refused.stderr


def test_the_users_terminal_approves_a_run(project: Path) -> None:
    session = Session(project)
    session.user_says("tidy the parser")
    doc = start(session)
    run = (run_of(doc) or "")
    user = Agent(project, session.session, terminal=True)
    done = user.call([*SKILLRAIL, "approve", run, "change", "--if", "tests pass"])
    assert done.returncode == 0, done.stderr
    assert f"run {run}: question 'ask' approved in advance, until the run ends" in done.stdout
    listed = user.call([*SKILLRAIL, "approve", run, "--list"]).stdout
    assert "with skillrail approve" in listed and "tests pass" in listed
    moved = session.follow(doc, "approve", CONDITION_MET="they do")
    assert moved.get("id") == "change"
    wrong = user.call([*SKILLRAIL, "approve", run, "wipe"])
    assert wrong.returncode == 2 and "always asked" in wrong.stderr


# -- without hooks: relayed, advisory ------------------------------------------------------

def test_without_hooks_a_relayed_approval_is_advisory(project: Path) -> None:
    agent = Agent(project)
    doc = start(agent)
    note = " ".join(a.text for a in actions(doc))
    assert "No hook here checks" in note and "USER_SAID quoting their --approve words" in note
    [approve] = [i for i in offered(doc) if outcome_of(i) == "approve"]
    assert [a.key for a in asked(approve)] == ["USER_SAID", "CONDITION_MET"]
    # Words that approve another question, or set a condition the command leaves unanswered,
    # are refused, and the run stays where it is.
    other = agent.call(command(doc, "approve", USER_SAID="--approve plan"))
    assert other.returncode == 2 and "it approves 'plan', not this question" in other.stderr
    unmet = agent.call(command(doc, "approve", USER_SAID="--approve all --if 'it is small'"))
    assert unmet.returncode == 2 and "CONDITION_MET" in unmet.stderr
    moved = agent.follow(doc, "approve", USER_SAID="--approve change")
    assert moved.get("id") == "change"
    run = (run_of(doc) or "")
    [said] = events(agent, run, "approved-in-advance")
    assert json.loads(said) == {"step": "ask", "outcome": "approve", "words": "--approve change",
                                "condition": "", "source": "advisory"}
    assert "“--approve change” (advisory" in Agent.call(agent, [*SKILLRAIL, "trace", run]).stdout
    # Answered without relaying anything, the question is the agent's word: nothing recorded.
    second = start(agent)
    agent.follow(second, "approve")
    assert events(agent, (run_of(second) or ""), "approved-in-advance") == []


def test_without_hooks_an_approval_from_the_terminal_passes_the_question(project: Path) -> None:
    agent = Agent(project)
    first = agent.run([sys.executable, str(project / ".claude" / "skills" / "advance" /
                                           "scripts" / "advance.py"), "--step", "1"])
    run = (run_of(first) or "")
    done = Agent(project, terminal=True).call([*SKILLRAIL, "approve", run, "change"])
    assert done.returncode == 0, done.stderr
    assert "Recorded as advisory" in done.stdout
    doc = agent.follow(first, FOUND="x")
    assert doc.get("id") == "change"
    [passed] = doc.findall("decided")
    assert f"“skillrail approve {run} change” (advisory" in (passed.text or "")


# -- nobody there ----------------------------------------------------------------------------

@pytest.mark.parametrize("variable", ["CI", "SKILLRAIL_UNATTENDED"])
def test_an_unattended_run_stops_with_needs_user(project: Path, variable: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from .hooks_support import env

    base = env()
    script = project / ".claude" / "skills" / "advance" / "scripts" / "advance.py"

    def step(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, capture_output=True, text=True, cwd=project,
                              env=base | {variable: "true"}, timeout=60)

    first = ET.fromstring(step([sys.executable, str(script), "--step", "1"]).stdout)
    out = step(command(first, FOUND="x"))
    assert out.returncode == 0, out.stderr
    doc = ET.fromstring(out.stdout)
    assert doc.get("id") == "ask" and not offered(doc)
    done = doc.findtext("NEXT/complete") or ""
    assert done.startswith("needs-user: run ") and "--resume" in done
    run = (run_of(doc) or "")
    assert events(Agent(project), run, "needs-user")
    listed = json.loads(Agent(project).call([*SKILLRAIL, "runs", "--json"]).stdout)["runs"]
    assert [r["needs_user"] for r in listed if r["run"] == run] == [True]
    # With an approval from the user's terminal, the same unattended run goes on.
    given = Agent(project, terminal=True).call([*SKILLRAIL, "approve", run, "change"])
    assert given.returncode == 0, given.stderr
    resumed = step(shlex.split(done.partition("starting from: ")[2]))
    assert ET.fromstring(resumed.stdout).get("id") == "change"


# -- the planner, as its SKILL.md tells the user ---------------------------------------------

class HookedPlanner:
    """The planner's agent (test_planner.Agent) in a Claude Code session with skillrail's
    hooks: each step command is followed by PostToolUse, as the client does."""

    def __init__(self, repo: Path) -> None:
        from .test_planner import Agent as PlannerAgent

        self.session = Session(repo)
        self.repo, self.inner = repo, PlannerAgent(repo)

    def run(self, argv: list[str]) -> ET.Element:
        proc = self.session.call(argv)
        assert proc.returncode == 0, proc.stderr
        return ET.fromstring(proc.stdout)

    def follow(self, doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
        return self.run(command(doc, outcome, **values))


@pytest.fixture(params=["no-remote", "https-origin"])
def sample(request: pytest.FixtureRequest, tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_shape(request.param, tmp_path, monkeypatch)
    (repo / "greet.py").write_text("")
    return repo


def test_the_planner_passes_its_approval_on_the_users_words(sample: Path) -> None:
    from .test_planner import plan_to_approval

    agent = HookedPlanner(sample)
    words = '/planner Add a greet function --approve plan --if "it adds greet(name)"'
    user_prompt(agent.session, words, "UserPromptExpansion")
    ask = plan_to_approval(agent, ahead=True)  # type: ignore[arg-type]
    assert ask.get("id") == "approve"  # a condition: the agent says how it holds
    assert "it adds greet(name)" in " ".join(a.text for a in actions(ask))
    sealed = agent.follow(ask, "approve", CONDITION_MET="M1 adds greet(name) in greet.py")
    assert sealed.get("id") == "seal"
    run = (run_of(ask) or "")
    [said] = events(agent.session, run, "approved-in-advance")
    assert json.loads(said)["words"] == words
    text = Agent.call(agent.session, [*SKILLRAIL, "trace", run]).stdout
    assert "approval given in advance answered 'approve'" in text
    assert "it adds greet(name)" in text


def test_the_planner_asks_when_the_plan_needs_a_command_the_policy_refuses(
        sample: Path) -> None:
    from .test_planner import plan_to_approval

    agent = HookedPlanner(sample)
    user_prompt(agent.session, "/planner Add a greet function --approve plan")
    ask = plan_to_approval(agent, check="make test", ahead=True)  # type: ignore[arg-type]
    # The plan itself was approved in advance; allowing its command is always asked.
    assert ask.get("id") == "allow-check" and ask.find("DO/ask_user") is not None
    assert [d.step for d in read_decided(ask)][-2:] == ["approve", "check"]
    assert "`make test`" in ask.findtext("DO/ask_user/question", "")
    refused = agent.session.call(command(ask, "allow"))
    assert refused.returncode == 3 and "no user turn" in refused.stderr
