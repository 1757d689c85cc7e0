"""Checks of what a workflow names outside itself: resource files, conventions, templates,
sub-agent and verify scripts (W016, W012), and verify commands (W018). They look at files and
commands, not the graph, so they sit apart from the graph's checks; registry.py runs both."""

import os
from collections.abc import Iterator

from ..base.errors import Finding
from ..graph.model import Workflow, skill_folder


def check_resources(wf: Workflow) -> Iterator[Finding]:
    """W016: a listed resource file does not exist in the skill folder, or a step names a
    convention that `conventions/` does not have."""
    named = [(step, ref) for step in wf.steps for ref in step.conventions]
    if named:  # most workflows name none: no folder to list
        from .conventions import CONVENTIONS_DIR, choose_from, convention_names

        known = convention_names()
        for step, ref in named:
            if ref.name not in known:
                yield Finding("W016", wf.name, f"convention '{ref.name}' is not in "
                              f"{CONVENTIONS_DIR}", step.id, fix=choose_from(ref.name, known))
    if not wf.source:
        return
    skill_dir = skill_folder(wf.source)
    for step in wf.steps:
        for res in step.resources:
            if not os.path.isfile(os.path.join(skill_dir, res.path)):
                yield Finding("W016", wf.name, f"resource '{res.name}' names {res.path}, which "
                              f"does not exist in {skill_dir}", step.id,
                              fix="Create the file or fix the path (relative to the skill folder)")


def check_templates(wf: Workflow) -> Iterator[Finding]:
    """W016 too: an action's template file does not exist in the skill folder."""
    from ..graph.model import Action
    from .templates import Template

    if not wf.source:
        return
    for step in wf.steps:
        for action in step.actions:
            text = action.text if isinstance(action, Action) else action
            if isinstance(text, Template) and not os.path.isfile(
                    os.path.join(skill_folder(wf.source), text.path)):
                yield Finding("W016", wf.name, f"template {text.path} does not exist in "
                              f"{skill_folder(wf.source)}", step.id,
                              fix="Create the template or fix the path (relative to the "
                                  "skill folder)")


def check_scripts(wf: Workflow) -> Iterator[Finding]:
    """W012: a dispatch names a sub-agent script that does not exist, or a verify command runs
    a script of the skill (`${SKILL_DIR}/...`) that does not exist. (`skillrail validate`
    loads every script under scripts/, so one that is not a working step script fails there.)"""
    if not wf.source:
        return
    skill_dir = skill_folder(wf.source)
    for step in wf.steps:
        script = _verify_script(step.verify)
        if script is not None and not os.path.isfile(os.path.join(skill_dir, script)):
            yield Finding("W012", wf.name, f"the verify command runs {script}, which does not "
                          f"exist in {skill_dir}", step.id,
                          fix="Create the script or fix the path in verify=")
        if step.dispatch is not None and step.dispatch.script is not None:
            path = os.path.join(skill_dir, step.dispatch.script)
            if not os.path.isfile(path):
                yield Finding("W012", wf.name, f"the dispatch names {step.dispatch.script}, which "
                              f"does not exist in {skill_dir}", step.id,
                              fix="Create the sub-agent's step script or fix the path "
                                  "(relative to the skill folder)")


def _verify_script(verify: object) -> str | None:
    """The skill-relative script a static verify command runs through ${SKILL_DIR}, if any."""
    if not isinstance(verify, str):
        return None
    for word in verify.split():
        for prefix in ("${SKILL_DIR}/", "${CLAUDE_SKILL_DIR}/"):
            if word.startswith(prefix):
                return word[len(prefix):]
    return None


def check_dispatch_targets(workflows: list[Workflow]) -> Iterator[Finding]:
    """W012, across skills (`skillrail validate`, which has loaded every script): a dispatched
    script must be a step script that accepts the command the sub-agent is given, `--step 1`
    with `--parent RUN` or `--stateless` and the dispatch's own `params`, so every param it
    requires must be among them, and each of them must be a param of it."""
    by_source = {wf.source: wf for wf in workflows}
    for wf in workflows:
        for step in wf.steps:
            dispatch = step.dispatch
            if dispatch is None or dispatch.script is None or not wf.source:
                continue
            path = os.path.realpath(os.path.join(skill_folder(wf.source), dispatch.script))
            target = by_source.get(path)
            if target is None:
                if os.path.isfile(path):
                    yield Finding("W012", wf.name, f"the dispatch names {dispatch.script}, which "
                                  "registers no workflow", step.id,
                                  fix="Make that script register a Workflow and call main")
                continue
            known = {p.name for p in target.params}
            for name in dispatch.params:
                if name not in known:
                    yield Finding("W012", wf.name, f"the dispatch gives --{name}, which "
                                  f"{dispatch.script} does not take", step.id,
                                  fix=f"Give only its params: {', '.join(sorted(known)) or 'none'}")
            for param in target.params:
                if param.required and param.name not in dispatch.params:
                    yield Finding("W012", wf.name, f"the dispatched {dispatch.script} requires "
                                  f"--{param.name}, which the sub-agent's command does not give",
                                  step.id, fix=f"Give --{param.name} a default in "
                                  f"'{target.name}', or make it optional")


def check_verify(wf: Workflow) -> Iterator[Finding]:
    """W018: a `verify` step that a handler of the author's also decides, or whose command the
    gateway would refuse whatever the policy (shell syntax, line breaks)."""
    for step in wf.steps:
        if not step.verify:
            continue
        from .commandtext import static_problem  # only workflows with checks pay for it

        if step.handler is not None:
            yield Finding("W018", wf.name, "the step has both verify and a handler; the check's "
                          "exit status decides it", step.id, fix="Drop the handler")
        problem = static_problem(step.verify) if isinstance(step.verify, str) else None
        if problem is not None:
            yield Finding("W018", wf.name, f"the verify command would be {problem}", step.id,
                          fix="Write one plain command; put any logic in a script inside the "
                              "skill folder")


#: The checks registration runs after the graph's, in this order.
REFERENCE_CHECKS = (check_resources, check_scripts, check_templates, check_verify)
