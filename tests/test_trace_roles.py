"""`skillrail trace RUN --role ROLE`: the level the project's `.claude/skillrail.yaml` gives the
role (end_user: summary and developer: full without one), and, for every role and level, what
names a tool the file marks sensitive shown as hidden; secrets stay redacted as ever."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from skills.lib.workflow import Workflow
from skills.lib.workflow.ledger.store import Ledger

from .harness import command_argv, run, run_of
from .history_support import GITHUB_TOKEN, make_triage
from .test_commands import skillrail

HIDDEN = "[HIDDEN:sensitive-tool]"
POLICY = """version: 2
visibility:
  roles: {end_user: summary, developer: full, auditor: hidden}
  sensitive_tools: ["Bash(curl:*)", "WebFetch(domain:example.com)", "mcp__github", "Edit"]
"""
#: Events as the hooks and injected commands record them: (kind, detail, hidden?).
EVENTS = [
    ("refused", "the Bash command `curl -s https://api.test/v1`: not allowed here", True),
    ("refused", "the Bash command `libcurl-config --libs`: not allowed here", False),
    ("refused", "WebFetch on https://docs.example.com/a: not allowed here", True),
    ("refused", "WebFetch on https://other.org/a: not allowed here", False),
    ("refused", "the tool mcp__github__create_issue: not allowed here", True),
    ("refused", "Write on src/app.py: not allowed here", True),
    ("exec", "curl -s https://api.test/v1 -> ok", True),
    ("context", json.dumps({"command": "git status", "status": "ok", "text": "clean"}), False),
]


def printed(workflow: Workflow, argv: list[str]) -> ET.Element:
    result = run(workflow, argv)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    return result.document()


def triage_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str | None) -> str:
    """A completed triage run started in a project folder (with `policy` as its
    .claude/skillrail.yaml): its first NOTE names curl, its second does not; then EVENTS."""
    project = tmp_path / "project"
    (project / ".claude" / "skills").mkdir(parents=True)  # a project: the run's workspace
    if policy is not None:
        (project / ".claude" / "skillrail.yaml").write_text(policy, encoding="utf-8")
    triage = make_triage(tmp_path)[1]
    monkeypatch.chdir(project)  # the run's workspace
    doc = printed(triage, ["--step", "1", "--context=the outage"])
    for note, outcome in (("fetched the status with curl -s https://api.test/v1", "iterate"),
                          ("read the service logs", "ok")):
        doc = printed(triage, command_argv(doc) + ["--set", f"API_TOKEN={GITHUB_TOKEN}",
                                                   "--set", f"NOTE={note}"])
        doc = printed(triage, command_argv(doc, outcome))
    assert doc.find("NEXT/complete") is not None
    run_id = (run_of(doc) or "")
    with Ledger() as ledger, ledger.transaction():
        for kind, detail, _ in EVENTS:
            ledger.event(run_id, kind, detail)
    return run_id


def traced(run_id: str, *flags: str) -> dict[str, Any]:
    proc = skillrail("trace", run_id, *flags, "--json")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def notes(doc: dict[str, Any]) -> list[str]:
    return [e["value"] for e in doc["timeline"] if e["kind"] == "memory" and e["key"] == "NOTE"]


def test_each_role_sees_its_level_and_no_one_the_sensitive_tools(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """developer (full) sees the notes, but the one naming curl hidden, and the token
    redacted; end_user (summary) sees milestones, no notes; auditor (hidden) the outcome; the
    events that name a sensitive tool are hidden, the others shown as recorded."""
    run_id = triage_run(tmp_path, monkeypatch, POLICY)
    full = traced(run_id, "--role", "developer")
    assert full["level"] == "full"
    assert notes(full) == [HIDDEN, "read the service logs"]
    tokens = {e["value"] for e in full["timeline"] if e.get("key") == "API_TOKEN"}
    assert tokens == {"[REDACTED]"}
    shown = [e["detail"] for e in full["timeline"] if e["kind"] == "event"][-len(EVENTS):]
    assert shown == [HIDDEN if hidden else detail for _, detail, hidden in EVENTS]
    summary = traced(run_id, "--role", "end_user")
    assert (summary["level"], notes(summary)) == ("summary", [])
    assert [e["event"] for e in summary["timeline"] if e["kind"] == "event"] == [
        "start", "completed"]
    assert set(traced(run_id, "--role", "auditor")) == {"run", "level", "workflow", "status",
                                                        "step", "steps"}
    text = skillrail("trace", run_id, "--role", "developer").stdout
    assert "curl" not in text.replace("libcurl", "") and text.count(HIDDEN) == 6


def test_without_a_policy_file_the_default_roles_apply_and_nothing_is_hidden(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = triage_run(tmp_path, monkeypatch, None)
    assert traced(run_id, "--role", "end_user")["level"] == "summary"
    full = traced(run_id, "--role", "developer")
    assert notes(full)[0] == "fetched the status with curl -s https://api.test/v1"
    assert HIDDEN not in json.dumps(full)


def test_the_file_roles_replace_the_defaults(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose end_user sees everything: full, and its sensitive tools still hidden."""
    run_id = triage_run(tmp_path, monkeypatch, POLICY.replace("end_user: summary",
                                                              "end_user: full"))
    assert notes(traced(run_id, "--role", "end_user")) == [HIDDEN, "read the service logs"]
    assert notes(traced(run_id)) == [HIDDEN, "read the service logs"]  # no role: full


@pytest.mark.parametrize(("args", "policy", "said"), [
    (["--role", "admin"], POLICY, "unknown role 'admin' (roles of "),
    (["--role", "admin"], None, "Use one of: end_user, developer"),
    (["--role", "end_user", "--level", "full"], POLICY, "not allowed with argument"),
    (["--role", "end_user"], POLICY.replace("summary", "everything"),
     "visibility.roles.end_user (line 3): Input should be 'full', 'summary' or 'hidden'"),
    (["--role", "end_user"], POLICY.replace("sensitive_tools", "sensitive_tool"),
     "visibility.sensitive_tool (line 4): not a key here (did you mean 'sensitive_tools'?)"),
])
def test_a_wrong_role_or_visibility_is_one_line_naming_the_fix(
        args: list[str], policy: str | None, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = triage_run(tmp_path, monkeypatch, None)
    if policy is not None:
        (tmp_path / "project" / ".claude" / "skillrail.yaml").write_text(policy)
    proc = skillrail("trace", run_id, *args)
    assert proc.returncode in (1, 2) and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr
    if "admin" in args and policy is not None:
        assert "Use one of: end_user, developer, auditor" in proc.stderr
