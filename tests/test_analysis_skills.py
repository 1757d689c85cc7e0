"""codebase-analysis and solution-design, each played through one realistic path as an agent
would (real subprocesses, only the printed commands), including one round of their loop."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .conftest import SKILLS_ROOT
from .harness import first_action, subagent_cmd
from .test_planner import Agent


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def test_codebase_analysis_studies_areas_in_parallel_and_deepens(agent: Agent) -> None:
    script = SKILLS_ROOT / "codebase-analysis" / "scripts" / "codebase-analysis.py"
    doc = agent.run([sys.executable, str(script), "--step", "1", "--focus", "job retries"])
    assert "The analysis is for: job retries." in first_action(doc)
    doc = agent.follow(doc, SCOPE="Where are retries bounded?", SURVEY="Django; jobs/ scheduler/",
                       AREAS="jobs/ - tasks\nscheduler/ - beat")
    prompts = [p.text or "" for p in doc.iter("prompt")]
    assert doc.get("id") == "explore" and len(prompts) == 2
    assert "Your item: scheduler/ - beat" in prompts[1] and "SCOPE: Where are" in prompts[1]
    doc = agent.follow(agent.follow(doc, FINDINGS="jobs/tasks.py:12 defines send()"),
                       DRAFT="retries: open")
    doc = agent.follow(doc, "deepen", GAPS="read git log -- jobs/tasks.py")
    assert doc.get("id") == "deepen"
    doc = agent.follow(doc, DEEPER="commit abc caps retries at 5")
    # synthesize's text names DEEPER ("and DEEPER, when shown"), which the agent has just
    # reported: a value the text names is shown all the same.
    assert doc.get("id") == "synthesize"
    assert doc.findtext("memory/DEEPER") == "commit abc caps retries at 5"
    doc = agent.follow(agent.follow(doc, DRAFT="retries: capped at 5 (jobs/tasks.py:40)"),
                       "report", GAPS="none")
    assert doc.get("id") == "report" and doc.find("NEXT/complete") is not None


def test_solution_design_stress_test_can_send_it_back_to_compare(agent: Agent) -> None:
    script = SKILLS_ROOT / "solution-design" / "scripts" / "solution-design.py"
    doc = agent.run([sys.executable, str(script), "--step", "1", "--problem",
                     "Webhook deliveries are lost when the receiver is down"])
    doc = agent.follow(doc, PROBLEM="deliveries lost after 60 s of downtime",
                       CONSTRAINTS="no new services")
    doc = agent.follow(agent.follow(doc, CRITERIA="4 no loss\n3 latency\n3 small change"),
                       STANCES="minimal change\nrobustness\nreuse")
    assert doc.get("id") == "propose" and doc.find("DO/dispatch").get("count") == "3"
    doc = agent.follow(agent.follow(doc, PROPOSALS="three designs"),
                       COMPARISON="outbox 8.1", LEADER="reuse the queue")
    assert doc.get("id") == "stress-test"
    assert "stress.py --step 1 --parent" in subagent_cmd(doc.find("DO/dispatch"))
    assert "- LEADER: reuse the queue" in doc.findtext("DO/dispatch/prompt", "")
    doc = agent.follow(doc, "breaks", STRESS="BREAKS: the queue is not persistent",
                       REJECTED="reuse the queue: not persistent")
    assert doc.get("id") == "compare"
    # Just reported, and shown all the same: compare's text names it ("listed in REJECTED").
    assert doc.findtext("memory/REJECTED") == "reuse the queue: not persistent"
    doc = agent.follow(doc, COMPARISON="outbox 8.1", LEADER="persisted outbox")
    doc = agent.follow(doc, "survives", STRESS="SURVIVES at current volume")
    assert doc.get("id") == "recommend" and doc.find("NEXT/complete") is not None
