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

from ..repo_shapes import git
from .codex_support import CodexProject, needs_codex
from .support import ClaudeProject, needs_client, tool_results

SCRIPT = ".agents/skills/problem-analysis/scripts/problem-analysis.py"
START = {"tool": "Bash", "input": {"command": f"python3 {SCRIPT} --step 1"}}
#: The values that take problem-analysis straight through: frame, hypothesize, one pass of
#: investigate with high confidence, root-cause.
ON = {"follow": {"prefer": "ok", "values": {"CONFIDENCE": "high"}, "default": "fake"}}
TO_COMPLETE = [START, ON, ON, ON, ON]
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
    assert the_run(theirs)["step"] == "hypothesize"  # the command after the hook's word ran


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
    results = tool_results(claude.claude("complete", [start, ON, ON, ON, ON,
                                                      {"text": "The root cause is X."}], PROMPT))
    [run] = claude.runs()
    assert run["status"] == "completed", results
