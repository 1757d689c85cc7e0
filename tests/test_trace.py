"""`skillrail trace RUN`: one run's history at three levels of detail, secrets always redacted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skills.lib.workflow import Workflow

from .history_support import (
    APPROVAL,
    GITHUB_TOKEN,
    PASSWORD,
    approved,
    escalated,
    loaded,
    make_triage,
    started,
    straight,
)
from .test_commands import skillrail


@pytest.fixture(scope="module")
def triage(tmp_path_factory: pytest.TempPathFactory) -> Workflow:
    return make_triage(tmp_path_factory.mktemp("trace"))[1]


def traced(run_id: str, level: str = "full") -> dict[str, Any]:
    proc = skillrail("trace", run_id, "--level", level, "--json")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def moves(doc: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    return [(e["source"], e["outcome"], e["target"], e["milestone"])
            for e in doc["timeline"] if e["kind"] == "transition"]


class TestFull:
    def test_lists_every_transition_in_order_with_why_it_matters(self, triage: Workflow) -> None:
        """Every move appears once, in sequence, marked decision / escalation / None: the loop
        ran out into the question 'confirm'."""
        doc = traced(escalated(triage))
        assert moves(doc) == [("gather", "ok", "check", None),
                              ("check", "iterate", "gather", "decision"),
                              ("gather", "ok", "check", None),
                              ("check", "iterate", "confirm", "escalation"),
                              ("confirm", "approve", "done", "decision")]
        seqs = [e["seq"] for e in doc["timeline"] if e["kind"] == "transition"]
        assert seqs == sorted(seqs) and len(set(seqs)) == 5
        assert (doc["status"], doc["step"], doc["steps"]) == ("completed", "done", 6)

    def test_memory_writes_follow_their_transition_with_the_writing_step(
            self, triage: Workflow) -> None:
        """Each value written shows its key and step, right after the move that brought it."""
        timeline = traced(started(triage))["timeline"]
        kinds = [(e["kind"], e.get("event") or e.get("key")) for e in timeline]
        assert kinds == [("event", "start"), ("event", "python"), ("transition", None),
                         ("memory", "API_TOKEN"), ("memory", "NOTE")]
        note = timeline[4]
        assert (note["step"], note["seq"]) == ("gather", timeline[2]["seq"])
        assert note["value"] == "login used password=[REDACTED]\nsecond line"

    def test_starts_with_the_start_event_and_ends_with_completion(self, triage: Workflow) -> None:
        """Events and moves share one time order: start first, completed last."""
        timeline = traced(straight(triage))["timeline"]
        assert (timeline[0]["kind"], timeline[0]["event"]) == ("event", "start")
        assert (timeline[-1]["kind"], timeline[-1]["event"]) == ("event", "completed")
        assert [e["at"] for e in timeline] == sorted(e["at"] for e in timeline)

    def test_lists_sub_runs_by_id(self, triage: Workflow) -> None:
        """Runs started with --parent RUN are listed under that run, with their ids."""
        parent = started(triage)
        child = started(triage, "--parent", parent)
        doc = traced(parent)
        assert [s["run"] for s in doc["sub_runs"]] == [child]
        assert traced(child)["parent"] == parent

    def test_text_shows_a_header_and_one_line_per_move(self, triage: Workflow) -> None:
        """Without --json: the outcome first, then each move as 'source --outcome--> target'."""
        run_id = straight(triage)
        lines = skillrail("trace", run_id).stdout.splitlines()
        assert lines[0] == f"run {run_id}  triage  completed at 'done', 3 steps"
        arrows = [line.split("  #", 1)[1] for line in lines if "  #" in line]
        assert arrows == ["1 gather --ok--> check", "2 check --ok--> done  [decision]"]


class TestEscalations:
    def test_a_plain_move_into_a_question_is_asked_not_escalated(self, tmp_path: Path) -> None:
        """draft --ok--> approve (an ask_user step no loop leads to) is marked ask-user, in
        JSON and text; only a loop that ran out into a question is an escalation."""
        root, _ = make_triage(tmp_path, "triage-ask", others={"approval": APPROVAL})
        run_id = approved(loaded(root, "approval"))
        assert moves(traced(run_id)) == [("draft", "ok", "approve", "ask-user"),
                                         ("approve", "approve", "done", "decision")]
        assert [m for *_, m in moves(traced(run_id, "summary"))] == ["ask-user", "decision"]
        lines = skillrail("trace", run_id).stdout.splitlines()
        assert [line.split("  #", 1)[1] for line in lines if "  #" in line] == [
            "1 draft --ok--> approve  [ask-user]", "2 approve --approve--> done  [decision]"]

    def test_the_exhausted_loop_into_the_question_is_the_escalation(self,
                                                                   triage: Workflow) -> None:
        """check --iterate--> confirm on the last pass reads as an escalation in text."""
        lines = skillrail("trace", escalated(triage)).stdout.splitlines()
        marked = [line.split("  #", 1)[1] for line in lines if "  #" in line and "  [" in line]
        assert [m.split(" ", 1)[1] for m in marked] == [
            "check --iterate--> gather  [decision]", "check --iterate--> confirm  [escalation]",
            "confirm --approve--> done  [decision]"]


class TestLevels:
    def test_summary_keeps_only_milestones(self, triage: Workflow) -> None:
        """summary: start, decisions, the escalation, the end; no values, no plain moves."""
        doc = traced(escalated(triage), "summary")
        assert {e["kind"] for e in doc["timeline"]} == {"event", "transition"}
        assert [m for *_, m in moves(doc)] == ["decision", "escalation", "decision"]
        events = [e["event"] for e in doc["timeline"] if e["kind"] == "event"]
        assert events == ["start", "completed"]
        assert "params" not in doc and "sub_runs" not in doc

    def test_hidden_gives_the_outcome_only(self, triage: Workflow) -> None:
        """hidden: status, final step and number of steps, nothing of how the run went."""
        run_id = escalated(triage)
        assert traced(run_id, "hidden") == {"run": run_id, "level": "hidden",
                                            "workflow": "triage", "status": "completed",
                                            "step": "done", "steps": 6}

    @pytest.mark.parametrize("level", ["full", "summary", "hidden"])
    @pytest.mark.parametrize("as_json", [True, False])
    def test_secrets_are_redacted_at_every_level(self, triage: Workflow, level: str,
                                                 as_json: bool) -> None:
        """No level, text or JSON, shows the token or the password the run recorded."""
        run_id = escalated(triage)
        proc = skillrail("trace", run_id, "--level", level, *(["--json"] if as_json else []))
        assert proc.returncode == 0
        assert GITHUB_TOKEN not in proc.stdout and PASSWORD not in proc.stdout

    def test_secret_keys_hide_the_whole_value(self, triage: Workflow) -> None:
        """A value under a secret-looking key is masked whole; params are redacted too."""
        doc = traced(started(triage))
        token = next(e for e in doc["timeline"] if e.get("key") == "API_TOKEN")
        assert token["value"] == "[REDACTED]"
        assert doc["params"] == {"context": "db password=[REDACTED]"}


class TestProblems:
    def test_unknown_run_is_a_usage_error_with_a_suggestion(self, triage: Workflow) -> None:
        """A mistyped run id: exit 2, one stderr line, did-you-mean naming the real run."""
        run_id = started(triage)
        typo = run_id[:-1] + ("0" if run_id[-1] != "0" else "1")
        proc = skillrail("trace", typo)
        assert (proc.returncode, proc.stdout) == (2, "")
        assert proc.stderr.count("\n") == 1 and f"Did you mean '{run_id}'?" in proc.stderr

    def test_a_gone_script_keeps_every_transition_with_a_note(self, tmp_path: Path) -> None:
        """When the run's script is gone, summary keeps every move and says why."""
        root, workflow = make_triage(tmp_path, "triage-gone")
        run_id = straight(workflow)
        (root / "triage-gone" / "scripts" / "triage-gone.py").unlink()
        doc = traced(run_id, "summary")
        assert [m for *_, m in moves(doc)] == ["unknown", "unknown"]
        assert "every transition is shown" in doc["note"]
