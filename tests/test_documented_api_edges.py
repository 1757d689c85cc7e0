"""What a skill author following the original system's documentation runs into beyond its
happy paths (issue 18, found by writing more skills against it): a dispatch to a sub-script of
the original shape, a dispatch in a plain-text step, a gate that hands its fixes to another
agent, a handler reading a value the run lacks, a bare string where a list belongs, scripts of
the original shape beside workflows, and a mode branch for `simulate`. Each runs as a
subprocess, as an agent or CI runs it: a well-formed step, or one clear error line."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

#: An old-shape reviewer: its own argparse, which requires --total-steps.
from .harness import first_action, offered
from .test_commands import skillrail
from .test_documented_api import BOOT, checkout, commands, run, script_of, step

OLD_REVIEWER = '''#!/usr/bin/env python3
"""A reviewer of the original shape, started by a dispatch."""
{bootstrap}
import argparse

from skills.lib.workflow.formatters import format_step_output
from skills.lib.workflow.types import LinearRouting, TerminalRouting

parser = argparse.ArgumentParser()
parser.add_argument("--step", type=int, required=True)
parser.add_argument("--total-steps", type=int, required=True)
args = parser.parse_args()
routing = LinearRouting() if args.step == 1 else TerminalRouting()
print(format_step_output(__file__, args.step, args.total_steps, f"Review part {{args.step}}",
                         ["Read the plan and note what is missing."], routing))
'''

#: An old-shape orchestrator: a dispatch to the reviewer at its second step, a plain-text step
#: with a free-form dispatch, and a gate whose fixes go to a developer.
OLD_ORCHESTRATOR = '''#!/usr/bin/env python3
"""Plan-check: dispatch a reviewer, then a gate that hands fixes to a developer."""
{bootstrap}
import argparse, os

from skills.lib.workflow.formatters import format_gate_step, format_subagent_dispatch
from skills.lib.workflow.formatters.text import format_text_output
from skills.lib.workflow.types import AgentRole, GateConfig, QRState

REVIEWER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qr", "review.py")
GATE = GateConfig(qr_name="Plan Review", work_step=1, pass_step=4, pass_message="Done.",
                  self_fix=False, fix_target=AgentRole.DEVELOPER)
parser = argparse.ArgumentParser()
parser.add_argument("--mode", required=True)
parser.add_argument("--qr-iteration", type=int, default=1)
parser.add_argument("--qr-status")
args = parser.parse_args()
if args.mode == "dispatch":
    print(format_subagent_dispatch(agent=AgentRole.QUALITY_REVIEWER, script_path=REVIEWER,
                                   step=2, total_steps=2, context_vars={{"PLAN": "plan.md"}}))
elif args.mode == "text":
    print(format_text_output(step=1, total=1, title="Review", actions=[
        "Start the review.", format_subagent_dispatch(
            agent=AgentRole.QUALITY_REVIEWER, script_path="", free_form=True,
            context_vars={{"PLAN": "plan.md"}})], next_title=None))
else:
    print(format_gate_step(script=__file__, step=3, total=4, title="Gate",
                           qr=QRState(iteration=args.qr_iteration, failed=True,
                                      status=args.qr_status), gate=GATE))
'''

#: A documented handler that reads a run value no step or param gives.
UNDECLARED = '''#!/usr/bin/env python3
"""Undeclared: a handler reads workflow_params["confidence"], which nothing reports."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import Outcome, StepContext, StepDef, Workflow, register_workflow


def assess(ctx: StepContext) -> Outcome:
    return Outcome.OK if ctx.workflow_params["confidence"] == "high" else Outcome.FAIL


WORKFLOW = register_workflow(Workflow(
    "undeclared",
    StepDef(id="investigate", title="Investigate", actions=["Look."],
            next={{Outcome.OK: "assess"}}),
    StepDef(id="assess", title="Assess", handler=assess,
            next={{Outcome.OK: "done", Outcome.FAIL: "done"}}),
    StepDef(id="done", title="Done", actions=["Answer."], next={{Outcome.OK: None}}),
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: actions= given one string: each character would be an action.
BARE_STRING = '''#!/usr/bin/env python3
"""Bare: actions given as a string."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import Outcome, StepDef, Workflow, register_workflow

WORKFLOW = register_workflow(Workflow(
    "bare", StepDef(id="only", title="Only", actions="Read the log.", next={{Outcome.OK: None}})))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: The documented mode branch, with the mode a Param of choices.
MODES = '''#!/usr/bin/env python3
"""Modes: a quick path and a thorough one, chosen by --mode."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import (Outcome, Param, StepContext, StepDef, Workflow,
                                      register_workflow)


def by_mode(ctx: StepContext) -> Outcome:
    return Outcome.SKIP if ctx.workflow_params["mode"] == "quick" else Outcome.OK


WORKFLOW = register_workflow(Workflow(
    "modes",
    StepDef(id="scope", title="Scope", handler=by_mode,
            next={{Outcome.OK: "deep", Outcome.SKIP: "answer"}}),
    StepDef(id="deep", title="Look deeper", actions=["Read every caller."],
            next={{Outcome.OK: "answer"}}),
    StepDef(id="answer", title="Answer", actions=["Answer."], next={{Outcome.OK: None}}),
    params=[Param("mode", "how deep to go", default="thorough", choices=("thorough", "quick"))],
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def source_line(script: Path, text: str) -> int:
    """The line of `script` holding `text`."""
    lines = script.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_a_dispatch_to_an_original_shape_script_starts_it_as_its_parser_wants(
        tmp_path: Path) -> None:
    """format_subagent_dispatch(step=2, total_steps=2) on an old-shape reviewer: the prompt's
    command is `--step 2 --total-steps 2`, and running it prints the reviewer's step 2."""
    root = checkout(tmp_path, plan_check=OLD_ORCHESTRATOR)
    (root / "plan-check" / "scripts" / "qr").mkdir()
    (root / "plan-check" / "scripts" / "qr" / "review.py").write_text(
        OLD_REVIEWER.format(bootstrap=BOOT))
    proc = run([sys.executable, str(script_of(root, "plan-check")), "--mode", "dispatch"],
               tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    prompt = proc.stdout.split("<prompt>")[1]
    command = prompt.split("First run this command and follow the steps it prints, to the "
                           "end: ")[1].split("\n")[0]
    assert command.endswith("qr/review.py --step 2 --total-steps 2")
    reviewed = step(shlex.split(command), tmp_path)
    assert reviewed.get("title") == "Review part 2"


def test_a_plain_text_step_prints_its_dispatch(tmp_path: Path) -> None:
    root = checkout(tmp_path, plan_check=OLD_ORCHESTRATOR)
    proc = run([sys.executable, str(script_of(root, "plan-check")), "--mode", "text"],
               tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "SUB-AGENT (quality-reviewer): start one per prompt below" in proc.stdout
    assert "PROMPT:\n   You are the quality-reviewer sub-agent." in proc.stdout
    assert "   - PLAN: plan.md" in proc.stdout


def test_a_gate_that_hands_its_fixes_on_says_to_whom_and_ends_plainly(tmp_path: Path) -> None:
    """self_fix=False, fix_target=DEVELOPER: a failed review sends the fixes to a developer;
    once the passes are used up the document ends, without pointing at a command."""
    root = checkout(tmp_path, plan_check=OLD_ORCHESTRATOR)
    script = str(script_of(root, "plan-check"))
    failed = step([sys.executable, script, "--mode", "gate", "--qr-status", "fail"], tmp_path)
    said = first_action(failed) or ""
    assert "hand the fixes to a developer sub-agent" in said and len(offered(failed)) == 1
    last = step([sys.executable, script, "--mode", "gate", "--qr-status", "fail",
                 "--qr-iteration", "5"], tmp_path)
    assert last.find("NEXT/complete") is not None and not offered(last)
    assert "Run the command" not in (first_action(last) or "")


def test_a_handler_reading_a_value_the_run_lacks_is_the_skills_bug_with_the_fix(
        tmp_path: Path) -> None:
    root = checkout(tmp_path, undeclared=UNDECLARED)
    first = step([sys.executable, str(script_of(root, "undeclared")), "--step", "investigate"],
                 tmp_path)
    proc = run(commands(first)[None], tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (1, "", 1)
    assert "the handler raised KeyError: 'confidence'" in proc.stderr
    line = source_line(script_of(root, "undeclared"), 'ctx.workflow_params["confidence"]')
    assert f"undeclared.py, line {line})" in proc.stderr
    assert "This is a bug in the skill" in proc.stderr
    assert "Param('confidence')" in proc.stderr and "Arg('CONFIDENCE')" in proc.stderr


def test_a_bare_string_for_a_list_is_one_line_at_the_authors_line(tmp_path: Path) -> None:
    root = checkout(tmp_path, bare=BARE_STRING)
    proc = run([sys.executable, str(script_of(root, "bare")), "--step", "only"], tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (1, "", 1)
    assert "StepDef 'only': actions is a string, not a list" in proc.stderr
    line = source_line(script_of(root, "bare"), 'actions="Read the log."')
    assert f"bare.py, line {line})" in proc.stderr and "Write actions=[...]" in proc.stderr


def test_original_shape_scripts_are_named_not_refused_by_the_commands(tmp_path: Path) -> None:
    """validate passes a project holding original-shape scripts beside a workflow, and says it
    did not check them; describe on one says why it cannot, and what would let it."""
    root = checkout(tmp_path, plan_check=OLD_ORCHESTRATOR, modes=MODES)
    valid = skillrail("validate", "--root", str(root))
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "1 original-shape script (printing the format_* documents itself) not checked" in \
        valid.stdout
    listed = json.loads(skillrail("list", "--root", str(root), "--json").stdout)
    assert listed["original_shape_scripts"] == [str(script_of(root, "plan-check"))]
    described = skillrail("describe", "plan-check", "--root", str(root))
    assert described.returncode == 2 and "Traceback" not in described.stderr
    assert "is a script of the original shape" in described.stderr
    assert "write it as a Workflow of StepDefs" in described.stderr


def test_simulate_walks_each_choice_of_a_mode(tmp_path: Path) -> None:
    """One all-edges simulation takes both branches of the documented mode branch: walks take
    the param's choices in turn."""
    root = checkout(tmp_path, modes=MODES)
    sim = skillrail("simulate", "modes", "--root", str(root), "--json")
    assert sim.returncode == 0, sim.stdout + sim.stderr
    [report] = json.loads(sim.stdout)
    assert report["coverage"] == 1.0 and report["untaken"] == []
