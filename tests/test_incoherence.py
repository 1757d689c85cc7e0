"""The incoherence skill played through as an agent would: parallel cross-checks, independent
verification of each finding, the report, the user's choice to fix, and one fix round that
leaves something to fix again."""

from __future__ import annotations

import sys
from pathlib import Path

from .conftest import SKILLS_ROOT
from .harness import first_action
from .test_planner import Agent

SCRIPT = SKILLS_ROOT / "incoherence" / "scripts" / "incoherence.py"


def test_findings_are_verified_reported_fixed_and_reverified(tmp_path: Path) -> None:
    agent = Agent(tmp_path)
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--scope", "the CLI"])
    doc = agent.follow(doc, SCOPE="cli/ and docs/cli.md",
                       SOURCES="docs/cli.md - docs\ncli/parser.py - CLI definition",
                       DIMENSIONS="commands and flags: docs/cli.md, cli/parser.py\n"
                                  "configuration: defaults.yaml, settings.py")
    items = [p.text or "" for p in doc.iterfind("DO/dispatch/prompt")]
    assert doc.get("id") == "crosscheck" and len(items) == 2
    doc = agent.follow(agent.follow(doc, RAW="flags: --dry-run undocumented in parser"),
                       GRADED="I1 docs/cli.md:40 --dry-run; parser.py has none SHOULD ...\n\n"
                              "I2 docs/cli.md:52 --retries default 3; parser.py:88 SHOULD ...")
    verifiers = [p.text or "" for p in doc.iterfind("DO/dispatch/prompt")]
    assert doc.get("id") == "verify" and len(verifiers) == 2
    assert "Your item: I2 docs/cli.md:52" in verifiers[1]
    doc = agent.follow(doc, VERDICTS="I1 CONFIRMED; I2 CONFIRMED")
    doc = agent.follow(doc, "findings", CONFIRMED="I1 SHOULD; I2 SHOULD",
                       REPORT="two SHOULD incoherences")
    assert doc.get("id") == "offer" and doc.find("DO/ask_user") is not None
    doc = agent.follow(doc, "fix", TO_FIX="both")
    doc = agent.follow(doc, FIXES="I1 docs/cli.md\nI2 docs/cli.md")
    doc = agent.follow(agent.follow(doc, RECHECK="I1 REFUTED; I2 CONFIRMED"), "remaining",
                       REMAINING="I2")
    # fix's text names REMAINING ("only REMAINING"), which the agent has just reported: a value
    # the text names is shown all the same.
    assert doc.get("id") == "fix" and doc.findtext("memory/REMAINING") == "I2"
    doc = agent.follow(agent.follow(doc, FIXES="I1 ... docs/cli.md\n\nI2 ... docs/cli.md"),
                       RECHECK="I1 REFUTED; I2 REFUTED")
    doc = agent.follow(doc, "clean")  # nothing remains: nothing to list
    assert doc.get("id") == "summary" and doc.find("NEXT/complete") is not None


def test_a_clean_repository_goes_straight_to_the_summary(tmp_path: Path) -> None:
    agent = Agent(tmp_path)
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1"])
    for values in ({"SCOPE": "all", "SOURCES": "README.md - docs",
                    "DIMENSIONS": "paths: README.md"}, {"RAW": "none"}, {"GRADED": "none"}):
        doc = agent.follow(doc, **values)
    assert doc.get("id") == "verify" and "No quality-reviewer sub-agent to start" in (
        first_action(doc))
    doc = agent.follow(doc, VERDICTS="none")
    assert agent.follow(doc, "clean", CONFIRMED="none",
                        REPORT="nothing found").get("id") == "summary"
