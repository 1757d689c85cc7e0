"""How to run a skill, as text derived from its workflows: which workflows an agent starts, the
entry command with the params, the protocol reminder, the numbered steps and the way back after
a lost context. SKILL.md's generated section is built here; README's reuses the same pieces, so
the two never disagree."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..base.paths import AGENTS_SKILLS, CLAUDE_SKILL_DIR, agents_skill_dir
from ..graph.analysis import adjacency, reachable
from ..graph.model import Param, Rework, StepDef, Workflow
from .generated import with_section

#: The name of the generated section of SKILL.md and README.md (tools/generated.py's markers).
SECTION = "workflow"
#: The folder prefix of commands in SKILL.md: Claude Code replaces it with the skill's absolute
#: folder, so the command works wherever the skill is installed.
SKILL_DIR = CLAUDE_SKILL_DIR

PROTOCOL = ("The script prints one step at a time as an XML document; the first says how to "
            "follow them: do what its `<DO>` says, then run one command from its `<NEXT>`, "
            "verbatim, with `--set KEY='VALUE'` for each key it names. Continue until a step's "
            "`<NEXT>` holds `<complete>`, then give the user what it says.")


def entry_workflows(folder: Path, workflows: Iterable[Workflow]) -> list[Workflow]:
    """The workflows an agent starts from SKILL.md: those whose script sits directly in
    scripts/ and that no step of the skill dispatches to a sub-agent. The one in
    `scripts/<skill>.py` comes first; a workflow generated at run time is never one. Without
    any such workflow, every workflow counts, so a skill is never left without a documented
    way in."""
    workflows = list(workflows)
    dispatched = {os.path.realpath(folder / s.dispatch.script) for wf in workflows
                  for s in wf.steps if s.dispatch is not None and s.dispatch.script}
    entries = [wf for wf in workflows if os.path.realpath(wf.source) not in dispatched
               and Path(wf.source).parent.name == "scripts" and not wf.generated] or workflows
    return sorted(entries, key=lambda wf: (Path(wf.source).stem != folder.name, wf.name))


def script(folder: Path, wf: Workflow) -> str:
    """The workflow's script relative to its skill folder: scripts/..., with forward slashes."""
    return Path(wf.source).resolve().relative_to(folder.resolve()).as_posix()


def script_path(folder: Path, wf: Workflow, prefix: str) -> str:
    """The workflow's script under `prefix`, the skill folder as the reader will find it."""
    return f"{prefix}/{script(folder, wf)}"


def command(folder: Path, wf: Workflow, prefix: str) -> str:
    """The command that starts a run: the entry step and a placeholder for each required
    param (a param with a default or choices is optional, and only listed)."""
    first = "1" if wf.steps and wf.entry == wf.steps[0].id else wf.entry
    words = ["python3", script_path(folder, wf, prefix), "--step", first]
    words += [f"--{p.name} '{placeholder(p)}'" for p in wf.params if p.required]
    return " ".join(words)


def placeholder(param: Param) -> str:
    """The value to replace in the command: the param's name in capitals. Without hyphens:
    lint reads a hyphen in a value as the start of a flag."""
    return param.name.upper().replace("-", "_")


def param_lines(wf: Workflow) -> list[str]:
    """One bullet per param: the flag, whether it is required or its default, its help."""
    lines = []
    for p in wf.params:
        value = "|".join(p.choices) if p.choices else f"'{placeholder(p)}'"
        if p.required:
            state = "required"
        elif p.default is not None and "(default" not in p.help:
            state = f"default: {p.default}"
        else:
            state = "optional"
        lines.append(f"- `--{p.name} {value}` ({state}): {p.help}")
    return lines


def param_advice(workflows: Iterable[Workflow]) -> str:
    """What holds for every param: how to fill in a placeholder; given once, kept by the run."""
    params = [p for wf in workflows for p in wf.params]
    if not params:
        return ""
    advice = "Give these flags on the first command only; the run keeps them."
    if any(not p.choices for p in params):
        advice = ("Write each value in place of its capitalised placeholder, inside the single "
                  "quotes (a `'` in a value becomes `'\\''`). " + advice)
    return advice


def step_lines(wf: Workflow) -> list[str]:
    """The steps in definition order, numbered as `--step N` numbers them, each with who acts
    besides the agent and where it loops back."""
    succ = adjacency(wf)
    return [f"{n}. `{s.id}`: {s.title}{_notes(wf, s, succ)}" for n, s in enumerate(wf.steps, 1)]


def _notes(wf: Workflow, step: StepDef, succ: dict[str, list[str]]) -> str:
    notes = []
    if step.dispatch is not None:
        several = step.dispatch.items is not None or step.dispatch.instances > 1
        agent = step.dispatch.agent
        named = f"`{agent}` " if isinstance(agent, str) else "" # else chosen at run time
        notes.append(f"{'parallel' if several else 'one'} {named}sub-agent"
                     + ("s" if several else ""))
    if step.ask_user is not None:
        ahead = step.ask_user.in_advance is not None
        notes.append("asks the user" + (f", who may approve it in advance as "
                                        f"`{step.ask_user.kind or step.id}`" if ahead else ""))
    elif step.decided_by == "script":
        notes.append("the script decides the outcome")
    notes += _loop_notes(wf, step, succ)
    return f" ({'; '.join(notes)})" if notes else ""


def _loop_notes(wf: Workflow, step: StepDef, succ: dict[str, list[str]]) -> list[str]:
    """The counted edges with their caps, and the plain edges that close a loop (back to an
    earlier step that leads here again), grouped by target: "`fail`, `redo`: back to `draft`,
    at most 4 passes"."""
    here = wf.position(step.id)
    grouped: dict[tuple[str, int], list[str]] = {}
    for outcome, target in step.next.items():
        if isinstance(target, Rework):
            grouped.setdefault((target.target, target.max_iterations), []).append(outcome)
        elif (target is not None and wf.position(target) <= here
              and step.id in reachable(succ, [target])):
            grouped.setdefault((target, 0), []).append(outcome)
    notes = []
    for (target, cap), outcomes in grouped.items():
        way = ("again" if target == step.id else
               f"back to `{target}`" if wf.position(target) <= here else f"to `{target}`")
        if outcomes == ["ok"] and not cap:
            notes.append(f"then {way}")
            continue
        named = "" if outcomes == [target] else f"{', '.join(f'`{o}`' for o in outcomes)}: "
        note = f"{named}{way}"
        notes.append(note + (f", at most {cap} passes" if cap else ""))
    return notes


def resume_line(folder: Path, entries: list[Workflow], prefix: str) -> str:
    """The way back into a run after a lost context: `--resume` in the folder the run started
    in (the run id, which every printed command carries, picks one of several)."""
    first = f"`python3 {script_path(folder, entries[0], prefix)} --resume`"
    others = ", ".join(f"`{Path(wf.source).name}`" for wf in entries[1:])
    return ("Lost your place (for example after your context was compacted)? In the folder you "
            f"started in, run {first}" + (f" (or {others})" if others else "") + ": it reprints "
            "the step your run is at. If several runs are active it lists them; add "
            "`--run RUN_ID` (on every printed command) to pick yours. Do not start a new run "
            "to find your way back.")


def approval_line(folder: Path, workflows: Iterable[Workflow]) -> str:
    """How the user approves a question in advance (guard/standing.py), for a skill with a
    question that allows it; '' for one without."""
    scopes = sorted({s.ask_user.kind or s.id for wf in workflows for s in wf.steps
                     if s.ask_user is not None and s.ask_user.in_advance is not None})
    if not scopes:
        return ""
    named = ", ".join(f"`{x}`" for x in scopes)
    return ("A user who will not be there to answer may approve a question in advance, in "
            f"their prompt: `--approve SCOPE` (SCOPE: {named} or `all`), optionally with "
            '`--if "CONDITION"` and `--until HH:MM`; for example `/' + folder.name
            + f' ... --approve {scopes[0]}`. Where skillrail\'s hooks are installed they '
            "record it, and the run passes a question it covers, quoting them; elsewhere that "
            "question's step says how to pass their words on. Only their words approve: never "
            "answer a question for them.")


def how_to_start(folder: Path, entries: list[Workflow], prefix: str) -> list[str]:
    """Per entry workflow: (its description, when there are several,) the command, its params."""
    parts = []
    for wf in entries:
        if len(entries) > 1:
            parts.append(f"**{wf.name}**" + (f": {wf.description}" if wf.description else ""))
        block = f"    {command(folder, wf, prefix)}"
        parts.append("\n".join([block, *([""] + param_lines(wf) if wf.params else [])]))
    return parts


def with_skill_md_section(text: str, folder: Path, workflows: Iterable[Workflow]) -> str:
    """SKILL.md's `text` with a fresh generated section, put below the title when it has none
    (what `skillrail docs --write` writes; malformed markers are a SkillrailError)."""
    return with_section(text, SECTION, skill_md_section(folder, workflows), "", under_title=True)


def skill_md_prefix(folder: Path) -> str:
    """How SKILL.md names the skill's folder: `${CLAUDE_SKILL_DIR}`, which Claude Code
    substitutes, except in a project's `.agents/skills`, whose clients substitute nothing:
    there, the folder from the repository root (base.paths.agents_form)."""
    if folder.absolute().parent.as_posix().endswith(f"/{AGENTS_SKILLS}"):
        return agents_skill_dir(folder.name)
    return SKILL_DIR


def skill_md_section(folder: Path, workflows: Iterable[Workflow]) -> str:
    """SKILL.md's generated section: kept short, since SKILL.md is the agent's prompt and
    Claude Code keeps only its first few thousand tokens after a compaction."""
    workflows = list(workflows)
    entries = entry_workflows(folder, workflows)
    lead = ("Run this now:" if len(entries) == 1 else
            f"This skill has {len(entries)} workflows; run the one the task calls for:")
    prefix = skill_md_prefix(folder)
    parts = ["<!-- Generated from the workflows by `skillrail docs --write`: change the "
             "scripts, not this section. -->", lead, *how_to_start(folder, entries, prefix)]
    parts += [text for text in (param_advice(entries), PROTOCOL) if text]
    for wf in entries:
        heading = "The steps, which the script prints one at a time" + (
            ":" if len(entries) == 1 else f" ({wf.name}):")
        parts.append("\n".join([heading, "", *step_lines(wf)]))
    ahead = approval_line(folder, workflows)
    parts += [ahead] if ahead else []
    parts.append(resume_line(folder, entries, prefix))
    return "\n\n".join(parts)
