"""Simple mode (`execution_mode: simple`): the skill's own steps, once each, in order, with no
plan and no approval, for skills that must not change how they behave. The steps are the
top-level numbered list of its SKILL.md; a body without one is a single step. The workflow is
built when the script loads, from the skill its `--skill` names (run-steps.py), like a plan's."""

from __future__ import annotations

import re
import shlex

from skills.lib.runner.build import literal_text
from skills.lib.runner.target import body, concrete_body, find_skill, skill_name, skill_problem
from skills.lib.workflow import Action, Arg, Param, StepDef, Workflow
from skills.lib.workflow.base.errors import UsageError
from skills.lib.workflow.graph.model import StepContext, marked

NAME = "skill-runner-simple"
_ITEM = re.compile(r"(\d+)[.)]\s+(\S.*)")


def numbered_steps(text: str) -> list[str]:
    """The items of the body's top-level numbered lists, each with its indented continuation
    lines, in order; [] when it has none. Code fences are not read."""
    items: list[list[str]] = []
    fenced = open_item = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            if open_item:
                items[-1].append(line)
            continue
        match = None if fenced else _ITEM.fullmatch(line.rstrip())
        if match:
            items.append([match.group(2)])
            open_item = True
        elif open_item and (fenced or not line.strip() or line[:1] in " \t"):
            items[-1].append(line)
        else:
            open_item = False
    return ["\n".join(lines).strip() for lines in items]


def simple_workflow(folder: str, params: tuple[Param, ...]) -> Workflow:
    """The workflow that runs the skill at `folder` in simple mode."""
    items = numbered_steps(body(folder)) or ["Follow the skill's instructions, as written."]
    steps = []
    for n, item in enumerate(items, 1):
        first = item.splitlines()[0]
        title = f"Step {n} of {len(items)}: " + (first if len(first) <= 60 else first[:57] + "...")
        actions: list[Action | str] = []
        if n == 1:
            actions.append(Action(lambda ctx: _whole(folder, ctx)))
        actions.append(Action(literal_text(f"Now do step {n} only:\n{item}"
                                           if len(items) > 1 else item)))
        last = n == len(items)
        # What each step found travels in the run's memory, so the last step can report it.
        actions.append(Action("Give the user the skill's result: what each step found or did "
                              "(the results above) and this step's own.", out="reply")
                       if last else
                       Action("Record what this step found or did, in a line (say so when "
                              "something it checks does not hold).", out=f"RESULT_{n}"))
        steps.append(StepDef(
            f"step-{n}", title, actions=actions,
            args=[] if last else [Arg(f"RESULT_{n}")],
            optional_reads=tuple(f"RESULT_{k}" for k in range(1, n)) if last else (),
            forbidden=[] if last else ["Do not start a later step's work here."],
            next={"ok": None if last else f"step-{n + 1}"},
            complete=f"The skill '{skill_name(folder)}' ran in simple mode. Give the user "
                     "its result."))
    return marked(Workflow(NAME, steps, skill="skill-runner", params=params,
                           description=f"Runs the steps of the skill '{skill_name(folder)}' "
                                       "once each, in order (simple mode)."), generated=True)


def skill_of(argv: list[str], sample: str) -> str:
    """The skill an invocation of the simple run names: its --skill, the skill of the run its
    --run names, or the sample (discovery, --help, simulation). UsageError when it names no
    skill (its workflow is built from the skill's SKILL.md, before --skill's own check)."""
    from skills.lib.runner.sealed import flag

    given = flag(argv, "--skill")
    run_id = flag(argv, "--run")
    if given is None and run_id is not None:
        from skills.lib.workflow.ledger.store import Ledger

        with Ledger() as ledger:
            run = ledger.run(run_id)
        given = run.params.get("skill") if run is not None else None
    if not given:
        return sample
    folder = find_skill(given)
    if folder is None:
        raise UsageError(f"--skill is refused: {skill_problem(given)}",
                         fix="Fix the value and run the command again")
    return folder


def skill_or_exit(argv: list[str], sample: str, module: str) -> str:
    """skill_of; when the defining script is the one being run, a skill that is not there is
    one error line and exit 2, as any refused --skill, never a traceback."""
    from skills.lib.runner.sealed import or_exit

    return or_exit(lambda: skill_of(argv, sample), module)


def start_command(ctx: StepContext, script: str) -> str:
    """The command that starts the skill's simple run."""
    from skills.lib.workflow.step.routing import interpreter

    folder = find_skill(ctx.params["skill"]) or ctx.params["skill"]
    return shlex.join([interpreter(), script, "--step", "step-1", f"--skill={folder}",
                       f"--args={ctx.params.get('args', '')}"])


def _whole(folder: str, ctx: StepContext) -> str:
    return ("The skill's instructions, with its arguments and variables filled in. You will "
            "do its steps one at a time, as the script prints them:\n----- SKILL.md -----\n"
            + concrete_body(folder, ctx.params.get("args", ""), ctx.run).strip()
            + "\n----- end of SKILL.md -----")
