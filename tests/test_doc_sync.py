"""The doc-sync skill played as an agent would, on a sample repository whose README has a stale
path and a removed flag: the edits file fails its check once, the review passes, the final
check fails on a copy the edits missed, and the fix makes it pass; and the gate that stays shut
while a flag is not checked."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .harness import actions, decided, first_action, notes, subagent_cmd
from .harness import banner as read_banner
from .test_doc_sync_checker import SCRIPTS, sample_repo
from .test_planner import Agent


def test_a_run_finds_the_drift_reviews_the_edits_and_passes_the_final_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline shows the drift; an edits file whose old text repeats is sent back with
    the reason; the reviewed edits leave one copy of the flag, which the gate catches and the
    fix step, shown the check's output, corrects; the report follows the passing check."""
    repo = sample_repo(tmp_path, monkeypatch)
    work, agent = repo / ".doc-sync", Agent(repo)
    doc = agent.run([sys.executable, str(SCRIPTS / "doc-sync.py"), "--step", "1"])
    assert f"Write {work / 'docs.txt'}:" in actions(doc)[1].text
    (work / "docs.txt").write_text("README.md\n")
    (work / "clis.txt").write_text("sampletool\n")
    # The script runs the baseline check itself; the agent lands on detect with its output.
    detect = agent.follow(agent.follow(doc, INVENTORY="README.md; CLI sampletool"),
                          DOC_MAP="README.md: bin/sampletool, tools/build.py")
    assert detect.get("id") == "detect" and decided(detect) == [("baseline", "fail")]
    baseline = detect.findtext("memory/VERIFY_OUTPUT", "")
    assert "'docs/setup.md' does not exist" in baseline
    assert "README.md:18: 'sampletool --colour'" in baseline
    # The agent lists the flag once, missing the table's copy of it.
    (work / "drift.md").write_text("D1 README.md:7 links docs/setup.md, gone; docs/install.md "
                                   "(check)\n\nD2 README.md:11 --colour; --color (check)\n")
    propose = agent.follow(detect, "drift", DRIFT="2 in README.md")
    assert read_banner(propose.find("banner")).n == 1  # type: ignore[union-attr]
    edits = {"edits": [
        {"id": "E1", "finding": "D1", "doc": "README.md", "location": "README.md:7",
         "old": "[the setup guide](docs/setup.md)", "new": "[the install guide](docs/install.md)",
         "evidence": "docs/install.md"},
        {"id": "E2", "finding": "D2", "doc": "README.md", "location": "README.md:11",
         "old": "--colour", "new": "--color", "evidence": "sampletool --help"}]}
    (work / "edits.json").write_text(json.dumps(edits))
    # The script's check of the edits file sends it back, and the step says why.
    again = agent.follow(propose)
    assert again.get("id") == "propose" and decided(again) == [("check-edits", "invalid")]
    assert "1 problem" in " ".join(notes(again))
    assert "edit E2: its old text occurs 2 times in README.md" in first_action(again)
    edits["edits"][1]["old"] = "sampletool --colour auto"
    edits["edits"][1]["new"] = "sampletool --color auto"
    (work / "edits.json").write_text(json.dumps(edits))
    review = agent.follow(again)
    prompt = review.findtext("DO/dispatch/prompt", "")
    assert review.get("id") == "review-edits" and f"EDITS_FILE: {work / 'edits.json'}" in prompt
    assert decided(review) == [("check-edits", "valid")]
    assert "qr/edits.py --step 1 --parent" in subagent_cmd(review.find("DO/dispatch"))
    (work / "qr-edits.json").write_text('{"items": []}')
    apply = agent.follow(review)
    assert apply.get("id") == "apply" and decided(apply) == [("edits-gate", "pass")]
    readme = repo / "README.md"
    text = readme.read_text()
    for edit in edits["edits"]:
        text = text.replace(edit["old"], edit["new"])
    readme.write_text(text)
    # The script's final check catches the flag's second copy; the fix step shows its output.
    fix = agent.follow(apply, APPLIED="E1 applied, E2 applied")
    assert fix.get("id") == "fix" and decided(fix) == [("verify", "fail")]
    output = fix.findtext("memory/VERIFY_OUTPUT", "").splitlines()
    assert output[1:] == [
        "README.md:18: 'sampletool --colour' is not in the --help of 'sampletool'; did you mean "
        "'--color'?", "flags of 'sampletool': checked against its --help",
        "drift: 1 problem in 1 file (5 references in 1 doc (1 markdown) checked, 0 ignored)"]
    readme.write_text(readme.read_text().replace("`--colour`", "`--color`"))
    report = agent.follow(fix, FIXED="README.md:18 --colour -> --color")
    assert report.get("id") == "report" and report.find("NEXT/complete") is not None
    assert decided(report) == [("verify", "ok")]
    assert "clean: 5 references" in report.findtext("memory/VERIFY_OUTPUT", "")
    sizes = agent.sizes()
    print(f"doc-sync run: {len(sizes)} steps, {sum(sizes)} characters, largest {max(sizes)}")
    assert max(sizes) < 4_000
    assert all(ET.fromstring(d).find("DO") is not None for d in agent.printed)


def test_the_gate_stays_shut_while_a_flag_is_not_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs are right, but the CLI's flags can be read neither from its --help (the default
    policy refuses it) nor from its code: the agent finds no drift, yet the gate fails with
    the flags named; once the fix step records them as checked by hand, with the code that
    defines them, the gate passes and says so."""
    repo = sample_repo(tmp_path, monkeypatch)
    (repo / ".claude" / "skillrail.yaml").unlink()
    (repo / "README.md").write_text("# sampletool\n\nRun `sampletool --width 72 notes.txt`.\n")
    work, agent = repo / ".doc-sync", Agent(repo)
    doc = agent.run([sys.executable, str(SCRIPTS / "doc-sync.py"), "--step", "1"])
    (work / "docs.txt").write_text("README.md\n")
    (work / "clis.txt").write_text("sampletool\n")
    doc = agent.follow(agent.follow(doc, INVENTORY="README.md; CLI sampletool"),
                       DOC_MAP="README.md: bin/sampletool")
    assert doc.get("id") == "detect" and "hand-checked.txt as 'CLI --FLAG'" in "".join(
        actions(doc)[0].text)
    fix = agent.follow(doc, "clean", DRIFT="none")
    assert fix.get("id") == "fix" and decided(fix) == [("verify", "fail")]
    assert "incomplete: 1 flag not checked" in fix.findtext("memory/VERIFY_OUTPUT",
                                                            "")
    (work / "hand-checked.txt").write_text("'sampletool --width'  # bin/sampletool:2\n")
    report = agent.follow(fix, FIXED="--width checked by hand: bin/sampletool:2")
    assert decided(report) == [("verify", "ok")]
    assert report.get("id") == "report" and "1 flag by hand" in report.findtext(
        "memory/VERIFY_OUTPUT", "")
