"""Every shipped skill, checked the way an agent meets it: real subprocesses following the
printed commands over every edge, loop caps firing, outputs valid and small, SKILL.md in order."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from skills.lib.workflow.discovery import discover_workflows
from skills.lib.workflow.simulate import Hop, Walker, simulate

from .conftest import SKILLS_ROOT

FOUND = discover_workflows(SKILLS_ROOT)
WORKFLOWS = {wf.name: wf for wf in FOUND.workflows}
BOOTSTRAP = ('import os, sys  # bootstrap: lets a bare checkout import `skills` '
             '(the same in every script)\nsys.path.insert(0, os.path.realpath(__file__).rsplit('
             'f"{os.sep}skills{os.sep}", 1)[0])\n')
#: Claude Code shows ~30,000 characters of a command's output; a step stays far below that.
MAX_STEP_CHARS = 8_000


def entry_command(name: str) -> list[str]:
    wf = WORKFLOWS[name]
    return [sys.executable, wf.source, "--step", "1"] + [
        f"--{p.name}=a decision to test: ship on Friday" for p in wf.params]


def test_every_skill_script_loads() -> None:
    """Discovery finds both shipped skills and no script fails to load."""
    assert not FOUND.errors, [e.lines() for e in FOUND.errors]
    assert {"problem-analysis", "decision-critic"} <= set(WORKFLOWS)


@pytest.fixture(scope="module")
def persistent_walks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Hop]]:
    """Per skill, one walk that stays in every loop until its cap, in its own ledger."""
    walks = {}
    for name, wf in WORKFLOWS.items():
        scratch = tmp_path_factory.mktemp(f"walk-{name}")
        env = {**os.environ, "SKILLRAIL_HOME": str(scratch / "ledger")}
        walks[name] = Walker(wf, str(scratch), env).walk(persist=True)
    return walks


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
class TestFollowingTheChain:
    def test_walks_cover_every_edge(self, name: str) -> None:
        """Following printed commands from the entry takes every edge, loop exhaustion and
        endings too, never past the static bound (what `skillrail simulate` checks in CI)."""
        report = simulate(WORKFLOWS[name])
        assert report.failures == ()
        assert sorted(report.edges - report.seen) == []
        assert report.bound is not None and report.longest <= report.bound

    def test_loop_banners_count_every_pass_up_to_the_cap(
            self, name: str, persistent_walks: dict[str, list[Hop]]) -> None:
        """Staying in a loop shows passes 1..limit, then leaves by the on_exhausted step."""
        wf, hops = WORKFLOWS[name], persistent_walks[name]
        for key, edge in wf.reworks.items():
            assert edge.rework is not None
            if wf.by_id[edge.source].qr is not None:
                continue  # review loops: see the next test
            passes = [int(b.get("iteration", 0)) for h in hops for b in h.root.findall("banner")
                      if b.get("checkpoint") == key and h.root.get("id") == edge.source]
            assert passes == list(range(1, edge.rework.max_iterations + 1))
            after = [h.root.get("id") for h in hops]
            last = max(i for i, h in enumerate(hops) if h.root.get("id") == edge.source)
            assert after[last + 1] == edge.rework.on_exhausted

    def test_review_loops_count_passes_then_ask_the_user(
            self, name: str, persistent_walks: dict[str, list[Hop]]) -> None:
        """Failing every review shows the gate's passes 1..limit, then the escalation step."""
        wf, hops = WORKFLOWS[name], persistent_walks[name]
        ids = [h.root.get("id") for h in hops]
        for gate in [s for s in wf.steps if s.qr is not None and s.qr.role == "gate"]:
            assert gate.qr is not None
            passes = [int(b.get("iteration", 0)) for h in hops for b in h.root.findall("banner")
                      if h.root.get("id") == gate.id]
            assert passes[:gate.qr.limit] == list(range(1, gate.qr.limit + 1))
            first_limit = [i for i, s in enumerate(ids) if s == gate.id][gate.qr.limit - 1]
            assert ids[first_limit + 1] == f"{gate.qr.checkpoint}-escalate"

    def test_every_step_output_stays_small(self, name: str,
                                           persistent_walks: dict[str, list[Hop]]) -> None:
        """No step prints more than MAX_STEP_CHARS characters."""
        assert max(h.chars for h in persistent_walks[name]) < MAX_STEP_CHARS

    def test_entry_step_runs_without_site_packages(self, name: str, tmp_path: Path) -> None:
        """The --step path needs only the standard library: it runs under `python -S` from
        any directory (a bare checkout, no dependencies installed)."""
        cmd = entry_command(name)
        proc = subprocess.run([cmd[0], "-S"] + cmd[1:], capture_output=True, text=True,
                              cwd=tmp_path, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("<step ")


@pytest.mark.parametrize("script", sorted(SKILLS_ROOT.glob("*/scripts/**/*.py")),
                         ids=lambda p: p.name)
def test_bootstrap_lines_are_identical_in_every_script(script: Path) -> None:
    """Every step script makes `skills` importable with exactly the same two lines."""
    assert BOOTSTRAP in script.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_skill_md_names_the_skill_and_its_real_invocation(name: str) -> None:
    """SKILL.md frontmatter names the folder, describes when to use it, and shows the script."""
    wf = WORKFLOWS[name]
    folder = Path(wf.source).parents[1]
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    assert meta["name"] == folder.name == wf.skill
    assert 1 <= len(meta["description"]) <= 1024
    assert "<" not in meta["description"] and ">" not in meta["description"]
    invocation = f"${{CLAUDE_SKILL_DIR}}/scripts/{Path(wf.source).name} --step 1"
    assert invocation in body
    assert len(body.splitlines()) < 500


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_help_lists_every_step(name: str) -> None:
    """`--help` of a step script exits 0 and names every step."""
    wf = WORKFLOWS[name]
    proc = subprocess.run([sys.executable, wf.source, "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0
    assert all(step.id in proc.stdout for step in wf.steps)
    assert shlex.quote(wf.entry) in proc.stdout
