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
from skills.lib.workflow.graph.model import skill_folder
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.tools.simulate import Hop, Report, Walker, simulate

from .conftest import SKILLS_ROOT
from .harness import banner, decided, in_process, path_free_size, shell

FOUND = discover_workflows(SKILLS_ROOT)
WORKFLOWS = {wf.name: wf for wf in FOUND.workflows}
BOOTSTRAP = ('import os, sys  # bootstrap: lets a bare checkout import `skills` '
             '(the same in every script)\nsys.path.insert(0, os.path.realpath(__file__).rsplit('
             'f"{os.sep}skills{os.sep}", 1)[0])\n')
#: Claude Code shows ~30,000 characters of a command's output; a step stays far below that
#: (counted with this machine's paths as short names, so the limit holds in any checkout).
MAX_STEP_CHARS = 8_000


def entry_command(name: str) -> list[str]:
    wf = WORKFLOWS[name]
    return [sys.executable, wf.source, "--step", "1"] + [
        f"--{p.name}={p.sample or (p.choices[0] if p.choices else DECISION)}" for p in wf.params]


DECISION = "a decision to test: ship on Friday"


def test_every_skill_script_loads() -> None:
    """Discovery finds both shipped skills and no script fails to load."""
    assert not FOUND.errors, [e.lines() for e in FOUND.errors]
    assert {"problem-analysis", "decision-critic"} <= set(WORKFLOWS)


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    """One all-edges simulation per workflow, shared by the tests that read it."""
    return {}


def report_of(reports: dict[str, Report], name: str) -> Report:
    if name not in reports:
        reports[name] = simulate(WORKFLOWS[name], measure=path_free_size, run=in_process)
    return reports[name]


def walk_to(name: str, goal: tuple[str, str, str], scratch: Path) -> list[Hop]:
    """The walk that takes the edge `goal` (an exhaustion edge: it stays in the loop), of
    walks that head for it. A loop whose edges a handler picks from how the run arrived (a
    shared counter's) takes a walk or two to learn which choice leads back into it."""
    env = {**os.environ, "SKILLRAIL_HOME": str(scratch / "ledger")}
    walker = Walker(WORKFLOWS[name], str(scratch), env, goals=frozenset([goal]),
                    run=in_process)
    for _ in range(5):
        hops = walker.walk(persist=True)
        if goal in walker.seen:
            break
    return hops


def exhaustions(kind: str) -> list[tuple[str, str]]:
    """(workflow, rework edge key) for the failed-gate edge of every review loop ('qr'), or
    for every rework edge outside review loops ('plain')."""
    found = []
    for name, wf in sorted(WORKFLOWS.items()):
        for key, edge in wf.reworks.items():
            role = wf.by_id[edge.source].qr
            gate_fail = role is not None and role.role == "gate" and edge.outcome == "fail"
            if (gate_fail if kind == "qr" else role is None):
                found.append((name, key))
    return found


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_following_the_chain_walks_every_edge_in_small_steps(
        name: str, reports: dict[str, Report]) -> None:
    """Following printed commands from the entry takes every edge, loop exhaustion and endings
    too, never past the static bound (what `skillrail simulate` checks in CI); and no step
    prints more than MAX_STEP_CHARS characters. (One test per workflow, so the walks, the
    suite's costliest work, are made once even when tests spread over workers.)"""
    report = report_of(reports, name)
    assert report.failures == ()
    assert sorted(report.edges - report.seen) == []
    assert report.bound is not None and report.longest <= report.bound
    assert report.largest < MAX_STEP_CHARS


def visited(hops: list[Hop]) -> list[tuple[str, str | None]]:
    """The steps a walk's run went through, in order: those passed through unprinted, each with
    the outcome the script chose (its `<decided>` notes), then the step printed (None)."""
    return [pair for h in hops for pair in [*decided(h.root), (h.root.get("id", ""), None)]]


def qr_pass(hop: Hop, checkpoint: str) -> int:
    """The pass the printed step's banner of review loop `checkpoint` shows (0: none)."""
    return max([said.n for b in hop.root.iterfind("banner")
                if (said := banner(b)) is not None and said.loop == checkpoint], default=0)


@pytest.mark.parametrize(("name", "key"), exhaustions("plain"))
def test_loop_banners_count_every_pass_up_to_the_cap(name: str, key: str,
                                                     tmp_path: Path) -> None:
    """Staying in a loop shows passes 1..limit on the step that decides, then leaves by the
    on_exhausted step. When the script decides (the agent has nothing to choose there), that
    step is passed through unprinted: the step the loop returns to shows passes 2..limit once
    the loop was entered, and the script's last decision, the loop's outcome, leaves it."""
    edge = WORKFLOWS[name].reworks[key]
    assert edge.rework is not None
    source = WORKFLOWS[name].by_id[edge.source]
    label = edge.outcome if len(source.next) > 1 else "-"
    hops = walk_to(name, (edge.source, label, edge.rework.on_exhausted), tmp_path)
    shown_on, first = ((edge.target, 2) if source.decided_by == "script" else (edge.source, 1))
    # A plain loop's banner names no loop: the step it is shown on tells them apart.
    passes = [said.n for h in hops for b in h.root.findall("banner")
              if (said := banner(b)) is not None and said.loop is None
              and h.root.get("id") == shown_on]
    assert passes == list(range(first, edge.rework.max_iterations + 1))
    path = visited(hops)
    ids = [step for step, _ in path]
    last = max(i for i, s in enumerate(ids) if s == edge.source)
    assert ids[last + 1] == edge.rework.on_exhausted
    if source.decided_by == "script":
        assert path[last][1] == edge.outcome
    else:
        assert path[last][1] is None  # the agent's step: printed, not passed through


@pytest.mark.parametrize(("name", "key"), exhaustions("qr"))
def test_review_loops_count_passes_then_ask_the_user(name: str, key: str,
                                                     tmp_path: Path) -> None:
    """Failing every review has the gate, passed through unprinted, decide fail after the
    review passes 1..limit, then the escalation step is shown."""
    wf = WORKFLOWS[name]
    gate = wf.by_id[key.partition(":")[0]]
    assert gate.qr is not None
    checkpoint = gate.qr.checkpoint
    review = [s.id for s in wf.steps if s.qr is not None and s.qr.checkpoint == checkpoint
              and s.qr.role == "review"]
    hops = walk_to(name, (gate.id, "fail", f"{checkpoint}-escalate"), tmp_path)
    failed = [n for n, h in enumerate(hops) if (gate.id, "fail") in decided(h.root)]
    assert all(h.root.get("id") != gate.id for h in hops)
    # The step printed before each failed gate is the review whose pass the gate judged.
    assert [hops[n - 1].root.get("id") for n in failed] == review * len(failed)
    passes = [qr_pass(hops[n - 1], checkpoint) for n in failed]
    assert passes[:gate.qr.limit] == list(range(1, gate.qr.limit + 1))
    path = visited(hops)
    ids = [step for step, _ in path]
    first_limit = [i for i, s in enumerate(ids) if s == gate.id][gate.qr.limit - 1]
    assert path[first_limit] == (gate.id, "fail")
    assert ids[first_limit + 1] == f"{checkpoint}-escalate"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
class TestEntry:
    def test_entry_step_runs_without_site_packages(self, name: str, tmp_path: Path) -> None:
        """The --step path needs only the standard library: it runs under `python -S` from
        any directory (a bare checkout, no dependencies installed); an entry step that checks
        a document says in one line that pydantic is missing."""
        cmd = entry_command(name)
        proc = subprocess.run([cmd[0], "-S"] + cmd[1:], capture_output=True, text=True,
                              cwd=tmp_path, timeout=60)
        wf = WORKFLOWS[name]
        if wf.by_id[wf.entry].handler is not None and proc.returncode != 0:
            # An entry step that checks a document needs pydantic: then one line says so.
            assert proc.stderr.startswith("error: the Python package 'pydantic' is missing")
            assert "pip install pydantic" in proc.stderr and proc.stderr.count("\n") == 1
            return
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("<step ")


@pytest.mark.parametrize("script", sorted(SKILLS_ROOT.glob("*/scripts/**/*.py")),
                         ids=lambda p: p.name)
def test_bootstrap_lines_are_identical_in_every_script(script: Path) -> None:
    """Every step script makes `skills` importable with exactly the same two lines."""
    assert BOOTSTRAP in script.read_text(encoding="utf-8")


#: Scripts that other workflows dispatch to sub-agents: their brief, not SKILL.md, starts them.
SUB_AGENT_SCRIPTS = {os.path.realpath(os.path.join(skill_folder(wf.source), s.dispatch.script))
                     for wf in WORKFLOWS.values() for s in wf.steps
                     if s.dispatch is not None and s.dispatch.script is not None}
ENTRY_WORKFLOWS = sorted(n for n, wf in WORKFLOWS.items()
                         if wf.source not in SUB_AGENT_SCRIPTS and not wf.generated)


@pytest.mark.parametrize("name", ENTRY_WORKFLOWS)
def test_skill_md_names_the_skill_and_its_real_invocation(name: str) -> None:
    """SKILL.md frontmatter names the folder, describes when to use it, and shows the script."""
    wf = WORKFLOWS[name]
    folder = Path(skill_folder(wf.source))
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
    proc = shell([sys.executable, wf.source, "--help"])
    assert proc.returncode == 0
    assert all(step.id in proc.stdout for step in wf.steps)
    assert shlex.quote(wf.entry) in proc.stdout
