"""The real Gemini CLI in a teammate's clone (issue 29): a project set up with `skillrail init
--agents` and `hooks install --client gemini` and committed is cloned into a second folder with
another HOME. A scripted model runs problem-analysis from `.agents/skills` to `<complete>`,
cannot end its turn mid-run without the AfterAgent hook sending it back (whose words, which
Gemini hands back as a prompt, answer no question), cannot skip a step or answer the user's
question, is held to a step's tools, and cannot change the policy or the hooks' settings by a
command the hooks can read. Gemini has no sandbox here: what it cannot protect, the README's
table says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..hooks_support import make_project
from ..repo_shapes import git
from ..test_standing_approval import add_skill
from .gemini_support import GeminiProject, needs_gemini
from .test_gate_in_clones import FORGE

pytestmark = needs_gemini

SCRIPT = ".agents/skills/problem-analysis/scripts/problem-analysis.py"
START = {"tool": "Bash", "input": {"command": f"python3 {SCRIPT} --step 1"}}
ON = {"follow": {"prefer": "ok", "values": {"CONFIDENCE": "high"}, "default": "fake"}}
PROMPT = "Why does the login test fail? Use the problem-analysis skill."
#: The investigation loop, exhausted: the run is then at its question. (Gemini steps in when
#: one call repeats five times in a row; each of these calls differs: its run's position.)
LOOP = {"follow": {"prefer": "iterate", "values": {"CONFIDENCE": "low"}, "default": "fake"}}
TO_THE_QUESTION = [START] + [LOOP] * 5
ANSWER = {"follow": {"prefer": "ok", "values": {
    "USER_ANSWER": "go on (chosen by the agent, not the user)", "CONFIDENCE": "high"}}}
END = [{"text": "Ending."}, {"text": "Ending again."}]
HOOK = "Tool execution blocked: skillrail: refused"


def bash(command: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command}}


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gemini-origin")
    origin = root / "origin.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(origin))
    mine = GeminiProject(root / "mine", origin=str(origin))
    mine.skillrail("init", "--agents", "problem-analysis")
    mine.skillrail("hooks", "install", "--client", "gemini")
    mine.sh(["git", "add", "-A"])
    mine.sh(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "skillrail"])
    mine.sh(["git", "push", "-q", "origin", "HEAD:main"])
    return origin


@pytest.fixture
def theirs(tmp_path: Path, committed: Path) -> GeminiProject:
    return GeminiProject(tmp_path, clone_of=committed)


def the_run(project: GeminiProject) -> dict[str, str]:
    runs = project.runs()
    assert len(runs) == 1, runs
    return runs[0]


def test_gemini_runs_a_skill_to_complete_in_a_teammates_clone(theirs: GeminiProject) -> None:
    theirs.gemini("complete", [START, ON, ON, ON, {"text": "The root cause is X."}], PROMPT)
    run = the_run(theirs)
    assert run["status"] == "completed", (run, theirs.results_sent("complete"))
    assert git(theirs.app, "status", "--short") == ""


def test_gemini_cannot_end_its_turn_mid_run(theirs: GeminiProject) -> None:
    """The model stops after the first step: AfterAgent sends it back with the next command,
    and it goes on. Gemini hands that reason to BeforeAgent as a prompt: no user turn."""
    theirs.gemini("stop", [START, {"text": "I will stop here."}, ON,
                           {"text": "Stopping again."}, {"text": "Stopped."}], PROMPT)
    run = the_run(theirs)
    assert run["step"] == "investigate", theirs.results_sent("stop")
    sent = (theirs.logs / "stop.api.jsonl").read_text()
    assert "is not finished: it is at step 'frame'" in sent  # the hook's word to the model
    # The user's prompt came before the run began; the hook's reason, after, is not theirs.
    assert "user-turn" not in theirs.trace(run["id"])


def test_gemini_cannot_skip_a_step(theirs: GeminiProject) -> None:
    skip = {"follow": {"template": f"python3 {SCRIPT} --step root-cause --run {{run}} "
                                   "--set ROOT_CAUSE=guess"}}
    theirs.gemini("skip", [START, skip, *END], PROMPT)
    assert the_run(theirs)["step"] == "frame"
    refused = theirs.results_sent("skip")[1]
    assert "is at step 'frame'; 'root-cause' does not follow it here" in refused, refused


def test_gemini_cannot_answer_the_users_question(theirs: GeminiProject) -> None:
    theirs.gemini("answer", [*TO_THE_QUESTION, ANSWER, *END], PROMPT)
    assert the_run(theirs)["step"] == "escalate", theirs.results_sent("answer")
    assert "no user turn was recorded since step 'escalate'" in \
        theirs.results_sent("answer")[-1]


def test_the_users_prompt_approves_in_advance(theirs: GeminiProject) -> None:
    skill = add_skill(theirs.app)
    skill.rename(theirs.app / ".agents" / "skills" / "advance")
    start = bash("python3 .agents/skills/advance/scripts/advance.py --step 1")
    words = "Tidy the parser with the advance skill. --approve change"
    theirs.gemini("ahead", [start, {"follow": {"values": {"FOUND": "the parser is long"}}},
                            {"follow": {}}, {"follow": {"prefer": "delete"}}, *END], words)
    [run] = [r for r in theirs.runs() if r["id"].startswith("ad-")]
    assert (run["status"], run["step"]) == ("active", "wipe"), theirs.results_sent("ahead")
    assert "no user turn was recorded since step 'wipe'" in theirs.results_sent("ahead")[-1]
    assert "“" + words + "”" in theirs.trace(run["id"])


def test_a_step_outside_the_steps_tools_is_refused(theirs: GeminiProject) -> None:
    make_project(theirs.app)
    (theirs.app / ".claude" / "skills" / "guarded").rename(
        theirs.app / ".agents" / "skills" / "guarded")
    start = bash("python3 .agents/skills/guarded/scripts/guarded.py --step 1")
    theirs.gemini("tools", [start, bash("touch made-by-the-agent"), *END], PROMPT)
    assert not (theirs.app / "made-by-the-agent").exists()
    said = theirs.results_sent("tools")[1]
    assert "Tool execution blocked: skillrail: run " in said and "is at step 'look'" in said


@pytest.mark.parametrize("attempt", [
    "echo '{}' > .gemini/settings.json",
    "echo 'defaults: false' >> .claude/skillrail.yaml",
    "skillrail trust problem-analysis",
], ids=["settings", "policy", "trust"])
def test_the_users_decisions_are_refused_to_the_agent(theirs: GeminiProject,
                                                      attempt: str) -> None:
    before = git(theirs.app, "status", "--porcelain")
    theirs.gemini("reach", [START, bash(attempt), *END], PROMPT)
    assert git(theirs.app, "status", "--porcelain") == before
    assert HOOK in theirs.results_sent("reach")[1], theirs.results_sent("reach")


def test_a_ledger_rewritten_past_the_question_is_found_out(theirs: GeminiProject) -> None:
    theirs.gemini("forge", [*TO_THE_QUESTION, bash(FORGE), *END], PROMPT)
    run = the_run(theirs)
    assert run["step"] == "root-cause", theirs.results_sent("forge")
    assert "moved past step 'escalate'" in theirs.trace(run["id"])
    resumed = theirs.skillrail_call("resume", run["id"])
    assert resumed.returncode == 3 and "changed outside skillrail" in resumed.stderr
