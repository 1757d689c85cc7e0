"""The real Codex CLI in a teammate's clone (issue 29): a project set up with `skillrail init`
and `init --agents` and committed (`.claude/skills`, `.agents/skills`, the hooks in
`.codex/hooks.json`) is cloned into a second folder with another HOME, where the teammate
trusts the hooks at their terminal (`skillrail hooks install --client codex`). A scripted
model then runs problem-analysis from `.agents/skills` to `<complete>` under Codex's own
sandbox, cannot end its turn mid-run without the Stop hook sending it back, and cannot skip a
step; Claude Code runs the same skill from the same clone's `.claude/skills`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..hooks_support import make_project
from ..repo_shapes import git
from ..test_standing_approval import add_skill
from .codex_support import CodexProject, needs_codex
from .support import ClaudeProject, needs_client, tool_results
from .test_gate_in_clones import FORGE

SCRIPT = ".agents/skills/problem-analysis/scripts/problem-analysis.py"
START = {"tool": "Bash", "input": {"command": f"python3 {SCRIPT} --step 1"}}
#: The values that take problem-analysis straight through: frame, one pass of
#: investigate with high confidence, root-cause.
ON = {"follow": {"prefer": "ok", "values": {"CONFIDENCE": "high"}, "default": "fake"}}
TO_COMPLETE = [START, ON, ON, ON]
PROMPT = "Why does the login test fail? Use the problem-analysis skill."


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as its first user committed it, in a bare repository: skillrail set up for
    Claude Code and for Codex, and Codex's hooks."""
    root = tmp_path_factory.mktemp("codex-origin")
    origin = root / "origin.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(origin))
    mine = CodexProject(root / "mine", origin=str(origin))
    mine.skillrail("init", "problem-analysis")
    mine.skillrail("init", "--agents", "problem-analysis")
    mine.skillrail("hooks", "install", "--client", "codex")
    mine.sh(["git", "add", "-A"])
    mine.sh(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "skillrail"])
    mine.sh(["git", "push", "-q", "origin", "HEAD:main"])
    return origin


@pytest.fixture
def theirs(tmp_path: Path, committed: Path) -> CodexProject:
    """A teammate's clone, another HOME and state folder, the hooks trusted by them."""
    project = CodexProject(tmp_path, clone_of=committed)
    said = project.skillrail("hooks", "install", "--client", "codex")
    assert "recorded your trust of them" in said
    return project


def the_run(project: CodexProject) -> dict[str, str]:
    runs = project.runs()
    assert len(runs) == 1, runs
    return runs[0]


def hook_prompts(project: CodexProject, name: str) -> list[str]:
    """What the Stop hook sent the model: Codex gives it as a user message of its own."""
    found = []
    for line in (project.logs / f"{name}.api.jsonl").read_text().splitlines():
        for item in (json.loads(line).get("body") or {}).get("input") or []:
            if isinstance(item, dict) and item.get("role") == "user":
                text = json.dumps(item.get("content"))
                if "<hook_prompt" in text and text not in found:
                    found.append(text)
    return found


@needs_codex
def test_codex_runs_a_skill_to_complete_in_a_teammates_clone(theirs: CodexProject) -> None:
    events = theirs.codex("complete", [*TO_COMPLETE, {"text": "The root cause is X."}], PROMPT)
    run = the_run(theirs)
    assert run["status"] == "completed", (run, theirs.results_sent("complete"))
    assert any("<complete" in out for out in theirs.results_sent("complete"))
    assert any(e.get("type") == "turn.completed" for e in events)
    assert git(theirs.app, "status", "--short") == ""  # nothing of the run left to commit


@needs_codex
def test_codex_cannot_end_its_turn_mid_run(theirs: CodexProject) -> None:
    """The model stops after the first step: the Stop hook sends it back with the next
    command, once; it goes on; stopping again (the user may have asked) is let through."""
    script: list[dict[str, Any]] = [START, {"text": "I will stop here."}, ON,
                                    {"text": "Stopping again."}]
    theirs.codex("stop", script, PROMPT)
    [told] = hook_prompts(theirs, "stop")
    assert "is not finished: it is at step 'frame'" in told
    assert the_run(theirs)["step"] == "investigate"  # the command after the hook's word ran


@needs_codex
def test_codex_cannot_skip_a_step(theirs: CodexProject) -> None:
    """From the first step straight to the root cause: the run refuses the move and stays."""
    skip = {"follow": {"template": f"python3 {SCRIPT} --step root-cause --run {{run}} "
                                   "--set ROOT_CAUSE=guess"}}
    theirs.codex("skip", [START, skip, {"text": "Done."}, {"text": "Done."}], PROMPT)
    assert the_run(theirs)["step"] == "frame"
    refused = theirs.results_sent("skip")[1]
    assert "is at step 'frame'; 'root-cause' does not follow it here" in refused, refused


@needs_codex
@needs_client
def test_claude_code_runs_the_same_skill_from_the_same_clone(tmp_path: Path,
                                                             committed: Path) -> None:
    claude = ClaudeProject(tmp_path, clone_of=committed)
    start = {"tool": "Bash", "input": {
        "command": "python3 .claude/skills/problem-analysis/scripts/problem-analysis.py "
                   "--step 1", "description": "Start problem-analysis"}}
    results = tool_results(claude.claude("complete", [start, ON, ON, ON,
                                                      {"text": "The root cause is X."}], PROMPT))
    [run] = claude.runs()
    assert run["status"] == "completed", results


#: Five passes of the investigation loop exhaust it: the run is then at its question.
LOOP = {"follow": {"prefer": "iterate", "values": {"CONFIDENCE": "low"}, "default": "fake"}}
TO_THE_QUESTION = [START] + [LOOP] * 5
ANSWER = {"follow": {"prefer": "ok", "values": {
    "USER_ANSWER": "go on (chosen by the agent, not the user)", "CONFIDENCE": "high"}}}
END = [{"text": "Ending."}, {"text": "Ending again."}]


def bash(command: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command}}


@needs_codex
def test_codex_cannot_answer_the_users_question(theirs: CodexProject) -> None:
    theirs.codex("answer", [*TO_THE_QUESTION, ANSWER, *END], PROMPT)
    assert the_run(theirs)["step"] == "escalate"
    assert "no user turn was recorded since step 'escalate'" in \
        theirs.results_sent("answer")[-1]


SANDBOX = "Read-only file system"
HOOK = "Command blocked by PreToolUse hook: skillrail: refused"


@needs_codex
@pytest.mark.parametrize(("attempt", "stopped_by"), [
    ("echo 'unanswered = lambda *a: None' >> .agents/skills/lib/workflow/guard/askgate.py",
     SANDBOX),
    ("python3 -c \"open('.codex/'+'hooks.json','w').write('{}')\"", SANDBOX),
    ("echo '{}' > .codex/hooks.json", HOOK),
    ("echo 'defaults: false' >> .claude/skillrail.yaml", HOOK),
    ("skillrail trust problem-analysis", HOOK),
], ids=["framework", "hooks-hidden", "hooks", "policy", "trust"])
def test_what_decides_the_gate_is_out_of_codexs_reach(theirs: CodexProject, attempt: str,
                                                      stopped_by: str) -> None:
    """Codex's sandbox keeps .agents and .codex read-only, however the path is spelled; the
    hooks refuse a change of the policy (and Claude Code's settings), which lie in .claude,
    outside that protection, as far as the command can be read."""
    before = git(theirs.app, "status", "--porcelain")
    theirs.codex("reach", [START, bash(attempt), *END], PROMPT)
    assert git(theirs.app, "status", "--porcelain") == before
    said = theirs.results_sent("reach")[1]
    assert stopped_by in said, said


@needs_codex
def test_a_step_outside_the_steps_tools_is_refused(theirs: CodexProject) -> None:
    """A skill whose first step allows reading only: a command that writes is refused before
    it runs, naming the step's next command."""
    skill = theirs.app / ".agents" / "skills" / "guarded"
    make_project(theirs.app)  # the test skill, in .claude/skills: moved to the Codex folder
    (theirs.app / ".claude" / "skills" / "guarded").rename(skill)
    start = bash("python3 .agents/skills/guarded/scripts/guarded.py --step 1")
    theirs.codex("tools", [start, bash("touch made-by-the-agent"), *END], PROMPT)
    assert not (theirs.app / "made-by-the-agent").exists()
    said = theirs.results_sent("tools")[1]
    assert "Command blocked by PreToolUse hook: skillrail: run " in said
    assert "is at step 'look'" in said, said


@needs_codex
def test_a_ledger_rewritten_past_the_question_is_found_out(theirs: CodexProject) -> None:
    """Codex's sandbox lets step scripts write the ledger's folder, so the agent's code can
    write the ledger too: the run moved past its question by hand is found out when the turn
    ends (the Stop hook), and its next step is refused."""
    theirs.codex("forge", [*TO_THE_QUESTION, bash(FORGE), *END], PROMPT)
    assert "forged" in theirs.results_sent("forge")[-1]
    run = the_run(theirs)
    assert run["step"] == "root-cause"
    assert "moved past step 'escalate'" in theirs.trace(run["id"])
    resumed = theirs.skillrail_call("resume", run["id"])
    assert resumed.returncode == 3 and "changed outside skillrail" in resumed.stderr


@needs_codex
def test_the_users_prompt_approves_in_advance(theirs: CodexProject) -> None:
    """The user's own prompt (UserPromptSubmit) approves a question before it is put: the run
    passes it in that turn, its trace quoting them; the next question, which the skill always
    asks, still waits, and the model's own answer to it is refused."""
    skill = add_skill(theirs.app)
    skill.rename(theirs.app / ".agents" / "skills" / "advance")
    start = bash("python3 .agents/skills/advance/scripts/advance.py --step 1")
    words = "Tidy the parser with the advance skill. --approve change"
    theirs.codex("ahead", [start, {"follow": {"values": {"FOUND": "the parser is long"}}},
                           {"follow": {}}, {"follow": {"prefer": "delete"}}, *END], words)
    [run] = [r for r in theirs.runs() if r["id"].startswith("ad-")]
    assert (run["status"], run["step"]) == ("active", "wipe"), theirs.results_sent("ahead")
    assert "no user turn was recorded since step 'wipe'" in theirs.results_sent("ahead")[-1]
    assert "“" + words + "”" in theirs.trace(run["id"])
