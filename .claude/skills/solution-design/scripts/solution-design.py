#!/usr/bin/env python3
"""Solution design: from a problem statement to a recommended design.

understand -> criteria (weighted, before any option) -> stances -> propose (one sub-agent per
stance, in parallel) -> compare against the criteria -> stress-test the leader -> recommend, or
pick another leader when the stress test breaks it (at most twice).
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepDef,
    Workflow,
    each_line,
    main,
    register_workflow,
    value_of,
)

STANCES = Resource("stances", "resources/stances.md",
                   "The design stances and how to write criteria; read it before choosing.")


understand = StepDef(
    "understand", "Understand the problem", actions=[
        Action("Read the code the problem touches first."),
        Action("Restate the problem: who has it, what happens now, what should happen, and "
               "how you would know it is solved.", out="PROBLEM"),
        Action("List the constraints: compatibility, dependencies, deadlines, team skills, "
               "what must not change; mark the ones you inferred.", out="CONSTRAINTS")],
    args=[Arg("PROBLEM", "the problem restated, with how you would know it is solved"),
          Arg("CONSTRAINTS", "one constraint per line, inferred ones marked; or none")],
    next={"ok": "criteria"})

criteria = StepDef(
    "criteria", "Set the criteria first", reads=("PROBLEM", "CONSTRAINTS"), resources=[STANCES],
    actions=[Action("Write three to six criteria that the decision turns on, each measurable "
                    "or checkable, with a weight (the weights sum to 10). Do this before any "
                    "option exists.", out="CRITERIA")],
    args=[Arg("CRITERIA", "one criterion per line: weight, criterion, how it is judged")],
    next={"ok": "stances"})

choose_stances = StepDef(
    "stances", "Choose the stances", reads=("PROBLEM", "CONSTRAINTS", "CRITERIA"),
    resources=[STANCES],
    actions=[Action("Choose three or four stances from the table that would lead to different "
                    "designs for this problem, one per line.", out="STANCES")],
    args=[Arg("STANCES", "one stance per line")],
    forbidden=["Do not sketch the designs yourself: sub-agents do."], next={"ok": "propose"})

propose = StepDef(
    "propose", "Have each stance propose a design", reads=("STANCES",),
    dispatch=Dispatch("architect", "Design a solution to the problem below from your stance.",
                      "at most 25 lines: design, files, scores per criterion, weakest point",
                      script="scripts/propose.py", items=each_line("STANCES"),
                      vars={"PROBLEM": value_of("PROBLEM"),
                            "CONSTRAINTS": value_of("CONSTRAINTS"),
                            "CRITERIA": value_of("CRITERIA")}),
    actions=[Action("Record every proposal, headed by its stance.", out="PROPOSALS")],
    args=[Arg("PROPOSALS", "each proposal, headed by its stance")],
    next={"ok": "compare"})

compare = StepDef(
    "compare", "Compare against the criteria", reads=("CONSTRAINTS", "CRITERIA", "PROPOSALS"),
    optional_reads=("REJECTED",), actions=[
        "Drop or mark any proposal that violates a constraint. Re-score the rest on every "
        "criterion yourself; a sub-agent's score of its own design is a claim. Check the "
        "claims that decide a score against the code.",
        Action("Write the table: proposal by criterion, weighted totals, and a line on each "
               "close call.", out="COMPARISON"),
        Action("Name the leader and give its full design. A leader listed in REJECTED is out: "
               "take the next, or a blend the rejection points to.", out="LEADER")],
    args=[Arg("COMPARISON", "the scoring table with weighted totals"),
          Arg("LEADER", "the leading proposal's name and full design, and why it leads")],
    next={"ok": "stress-test"})

stress_test = StepDef(
    "stress-test", "Have the leader stress-tested", reads=("LEADER",),
    dispatch=Dispatch("general-purpose", "Stress-test the leading design as an independent "
                      "critic: you did not choose it.", "at most 20 lines, starting with "
                      "SURVIVES or BREAKS", script="scripts/stress.py",
                      vars={"PROBLEM": value_of("PROBLEM"), "CONSTRAINTS": value_of("CONSTRAINTS"),
                            "CRITERIA": value_of("CRITERIA"), "PROPOSALS": value_of("PROPOSALS"),
                            "LEADER": value_of("LEADER")}),
    actions=[Action("Record the critic's reply as it came.", out="STRESS"),
             Action("If it says BREAKS, list every leader ruled out so far (earlier ones "
                    "included) with the reason.", out="REJECTED")],
    args=[Arg("STRESS", "the critic's reply"),
          Arg("REJECTED", "every leader ruled out so far, each with the reason",
              outcomes=("breaks",))],
    when={"survives": "the critic's reply starts with SURVIVES",
          "breaks": "the critic's reply starts with BREAKS"},
    forbidden=["Do not stress-test the leader yourself, or overrule the critic's verdict."],
    next={"survives": "recommend", "breaks": Rework("compare", 3, "recommend")})

recommend = StepDef(
    "recommend", "Recommend", reads=("LEADER", "COMPARISON", "STRESS"),
    optional_reads=("REJECTED",), actions=[Action(
        "Write the recommendation for the user: the design in a few lines, why it wins on the "
        "criteria (the table), the trade-offs accepted, the risks from the stress test with "
        "their mitigations, the designs ruled out and why (REJECTED, when shown), and what "
        "would change the decision. If the stress test broke every leader, say so and "
        "recommend the least bad with its conditions.", out="reply")],
    next={"ok": None}, complete="The design is recommended. Give the user your recommendation.")

WORKFLOW = register_workflow(Workflow(
    "solution-design", description="It takes a problem to a recommended design: criteria, "
                                   "proposals from several stances, comparison, stress test.",
    params=[Param("problem", "the problem to solve, in one line", required=True)],
    steps=[understand, criteria, choose_stances, propose, compare, stress_test, recommend]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
