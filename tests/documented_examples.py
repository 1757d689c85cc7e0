"""Skill scripts written against the original system's documented API, the way a skill author
following that documentation would write them (tests/test_documented_api.py runs each one in a
skill folder of a temporary checkout). Each is a whole script; `{bootstrap}` is the two lines
every skill script starts with."""

#: A plain-text skill of two steps, with its own argparse.
TEXT_STEPS = '''#!/usr/bin/env python3
"""Bisect-notes: two plain-text steps for narrowing down a regression."""
{bootstrap}
import argparse

from skills.lib.workflow.formatters.text import format_text_output

STEPS = {{
    1: ("Find a good and a bad commit",
        ["Name one commit where the behaviour is right and one where it is wrong.",
         "Write both hashes down, with the command that shows the difference."]),
    2: ("Bisect between them",
        ["Run git bisect with the two hashes and the command as the test.",
         "Report the first bad commit and the lines it changed."]),
}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--step", type=int, required=True)
    parser.add_argument("--total-steps", type=int, default=len(STEPS))
    args = parser.parse_args()
    title, actions = STEPS[args.step]
    following = STEPS.get(args.step + 1)
    print(format_text_output(step=args.step, total=args.total_steps, title=title,
                             actions=actions,
                             brief="Narrow a regression to one commit." if args.step == 1
                             else None,
                             next_title=following[0] if following else None))


if __name__ == "__main__":
    main()
'''

#: A review-gated skill of the original shape: numbered steps, its own argparse with the review
#: loop's flags, and the formatters printing each step.
QR_GATE = '''#!/usr/bin/env python3
"""Release-notes: draft the notes, have them reviewed, publish."""
{bootstrap}
import argparse

from skills.lib.workflow.formatters import (
    format_expected_output,
    format_forbidden,
    format_gate_step,
    format_qr_banner,
    format_state_banner,
    format_step_output,
)
from skills.lib.workflow.types import GateConfig, LinearRouting, QRState, TerminalRouting

TOTAL = 4
GATE = GateConfig(qr_name="Notes Review", work_step=1, pass_step=4,
                  pass_message="The notes are ready.", self_fix=True, fix_target=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--step", type=int, required=True)
    parser.add_argument("--total-steps", type=int, default=TOTAL)
    parser.add_argument("--qr-iteration", type=int, default=1)
    parser.add_argument("--qr-fail", action="store_true")
    parser.add_argument("--qr-status", choices=["pass", "fail"])
    args = parser.parse_args()
    qr = QRState(iteration=args.qr_iteration, failed=args.qr_fail, status=args.qr_status)
    if args.step == 1:
        actions = ["Write NOTES.md: one line per pull request listed in CHANGES.txt that a "
                   "user of the release would notice.",
                   format_forbidden(["Do not list internal refactors."])]
        if qr.failed:
            actions.insert(0, format_state_banner("Notes Review", iteration=qr.iteration,
                                                  mode="fix"))
        out = format_step_output(__file__, 1, TOTAL, "Draft", actions, LinearRouting())
    elif args.step == 2:
        out = format_step_output(__file__, 2, TOTAL, "Review the draft", [
            format_qr_banner(qr=qr, qr_name="Notes Review", fresh_review=True),
            "Check NOTES.md against CHANGES.txt: every user-visible change is there, and "
            "nothing internal.",
            format_expected_output(["PASS or FAIL", "one line per finding"])], LinearRouting())
    elif args.step == 3:
        out = format_gate_step(script=__file__, step=3, total=TOTAL, title="Notes gate", qr=qr,
                               gate=GATE)
    else:
        out = format_step_output(__file__, 4, TOTAL, "Publish",
                                 ["Paste NOTES.md into the release."], TerminalRouting())
    print(out)


if __name__ == "__main__":
    main()
'''

#: A Workflow of StepDefs in the documented form: the name, then the steps; a handler that
#: branches on a run parameter, and one that loops on the agent's confidence, keeping its pass
#: count in the step state.
TRIAGE = '''#!/usr/bin/env python3
"""Triage: scope a bug report, investigate until confident, write the verdict."""
{bootstrap}
import sys

from skills.lib.workflow import Action, Arg, Param, Rework, main
from skills.lib.workflow.core import Outcome, StepContext, StepDef, Workflow, register_workflow


def by_mode(ctx: StepContext) -> Outcome:
    return Outcome.SKIP if ctx.workflow_params["mode"] == "quick" else Outcome.OK


def assess(ctx: StepContext) -> tuple[Outcome, dict]:
    sure = ctx.workflow_params.get("confidence") == "high"
    return (Outcome.OK if sure else Outcome.ITERATE), {{
        "iteration": ctx.step_state.get("iteration", 1) + 1}}


WORKFLOW = Workflow(
    "triage",
    StepDef(id="scope", title="Scope the report", handler=by_mode,
            actions=[Action(lambda ctx: f"Mode: {{ctx.workflow_params['mode']}}.")],
            next={{Outcome.OK: "investigate", Outcome.SKIP: "verdict"}}),
    StepDef(id="investigate", title="Investigate",
            actions=["Reproduce the report and read the code it points at.",
                     Action("Say how sure you are of the cause.", out="CONFIDENCE")],
            args=[Arg("CONFIDENCE", choices=("low", "high"))],
            next={{Outcome.OK: "assess"}}),
    StepDef(id="assess", title="Assess", handler=assess,
            actions=[Action(lambda ctx:
                            f"Assessed on pass {{ctx.step_state.get('iteration', 1)}}.")],
            next={{Outcome.OK: "verdict",
                   Outcome.ITERATE: Rework("investigate", 3, "verdict")}}),
    StepDef(id="verdict", title="Write the verdict",
            actions=["Write the cause, the evidence and the fix you propose."],
            next={{Outcome.OK: None}}),
    description="Scope a bug report, investigate until confident, write the verdict.",
    params=[Param("mode", "quick: straight to the verdict; thorough: investigate first",
                  choices=("quick", "thorough"), default="thorough")],
)
register_workflow(WORKFLOW)

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: Steps whose actions mix instructions with the formatters' XML blocks.
COMPOSED = '''#!/usr/bin/env python3
"""Api-audit: check an API change with a reviewer, in composed blocks."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import Outcome, StepDef, Workflow, register_workflow
from skills.lib.workflow.formatters import (
    format_expected_output,
    format_factored_verification_rationale,
    format_forbidden,
    format_resource,
    format_subagent_dispatch,
)
from skills.lib.workflow.types import AgentRole

WORKFLOW = Workflow(
    "api-audit",
    StepDef(id="collect", title="Collect the changed endpoints", actions=[
        "List each endpoint whose request or response shape changed.",
        format_resource("checklist", "- status codes\\n- field names\\n- pagination"),
        format_forbidden(["Do not edit the API while auditing it."]),
        format_expected_output(["one line per endpoint: METHOD PATH: what changed"]),
    ], next={{Outcome.OK: "verify"}}),
    StepDef(id="verify", title="Verify the list", actions=[
        format_factored_verification_rationale(),
        format_subagent_dispatch(agent=AgentRole.EXPLORE, script_path="", step=1,
                                 total_steps=1, context_vars={{"SCOPE": "the changed files"}},
                                 free_form=True),
    ], next={{Outcome.OK: None}}),
)
register_workflow(WORKFLOW)

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: The confidence loop as the documentation draws it: no bound on the way back.
UNBOUNDED = '''#!/usr/bin/env python3
"""Hunch: investigate until confident (no bound on the loop)."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import Outcome, StepContext, StepDef, Workflow, register_workflow


def confident(ctx: StepContext) -> Outcome:
    return Outcome.OK if ctx.workflow_params.get("confidence") == "high" else Outcome.ITERATE


WORKFLOW = Workflow(
    "hunch",
    StepDef(id="investigate", title="Investigate", actions=["Gather evidence."],
            next={{Outcome.OK: "check"}}),
    StepDef(id="check", title="Check confidence", handler=confident,
            next={{Outcome.OK: "formulate", Outcome.ITERATE: "investigate"}}),
    StepDef(id="formulate", title="Formulate", actions=["State the answer."],
            next={{Outcome.OK: None}}),
)
register_workflow(WORKFLOW)

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: A step whose handler is a sub-agent: the quality reviewer's verdict picks the way on.
REVIEWED = '''#!/usr/bin/env python3
"""Migration-check: write a schema migration, have it reviewed, revise within a bound."""
{bootstrap}
import sys

from skills.lib.workflow import Rework, main
from skills.lib.workflow.core import Outcome, StepDef, Workflow, register_workflow
from skills.lib.workflow.types import AgentRole, Dispatch

WORKFLOW = Workflow(
    "migration-check",
    StepDef(id="write", title="Write the migration",
            actions=["Write the migration and its rollback in migrations/."],
            next={{Outcome.OK: "review"}}),
    StepDef(id="review", title="Review the migration",
            actions=["Check that the migration and its rollback are inverse, and that no "
                     "statement locks a large table."],
            handler=Dispatch(agent=AgentRole.QUALITY_REVIEWER),
            next={{Outcome.OK: "proceed", Outcome.FAIL: "revise"}}),
    StepDef(id="revise", title="Revise", actions=["Fix what the review found."],
            next={{Outcome.OK: Rework("review", 3, "proceed")}}),
    StepDef(id="proceed", title="Hand over", actions=["Tell the user the migration is ready."],
            next={{Outcome.OK: None}}),
)
register_workflow(WORKFLOW)

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: A script beside the planner's own, importing the formatters the original planner's way.
PLANNER_SHARED = '''#!/usr/bin/env python3
"""Plan-outline: one step, printed through the planner's `shared` import."""
{bootstrap}
from shared import format_step_output
from skills.lib.workflow.formatters import format_step_output as documented
from skills.lib.workflow.types import TerminalRouting

assert format_step_output is documented
print(format_step_output(__file__, 1, 1, "Outline the plan", ["List the milestones."],
                         TerminalRouting()))
'''
