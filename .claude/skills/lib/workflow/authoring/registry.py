"""The registry of workflows, where registering is validating: the graph's checks
(validate.py) and the checks of what a workflow names outside itself (references.py) run
together from here, the one place above both, and a workflow with any finding is refused."""

import os
import sys
from typing import NoReturn

from ..base.errors import Finding, InvalidWorkflow, raise_in
from ..graph.model import Workflow, marked, skill_folder
from ..graph.validate import validate_workflow
from .references import REFERENCE_CHECKS

_REGISTRY: dict[str, Workflow] = {}
#: Every workflow registered, by its script: a skill's copy in another skills folder (a project
#: serving Claude Code from .claude/skills and Codex from .agents/skills) has its own.
_BY_SOURCE: dict[str, dict[str, Workflow]] = {}


def register_workflow(workflow: Workflow) -> Workflow:
    """Validate `workflow` and add it to the registry; return it, with `source` set to the
    calling script: `WORKFLOW = register_workflow(Workflow(...))`. Registration is validation:
    a workflow with any finding raises one InvalidWorkflow listing them all (in the script
    being run, its findings are printed and it exits 1), and is not registered.

    Registering a name again from the same source file (a re-import) replaces it; from another
    file of the same skills folder it is refused; from a copy of the skill in another skills
    folder it is that copy's workflow (registered() then names the latest).
    """
    caller = sys._getframe(1).f_globals
    if not workflow.source and caller.get("__file__"):
        # remember the defining script: rendering and W016 need its folder
        workflow = marked(workflow, source=os.path.realpath(caller["__file__"]))
    findings = validate_workflow(workflow) + [f for check in REFERENCE_CHECKS
                                              for f in check(workflow)]
    known = _REGISTRY.get(workflow.name)
    if known is not None and known.source != workflow.source and (
            _skills_root(known.source) == _skills_root(workflow.source)):
        findings.insert(0, Finding(
            "W001", workflow.name, f"duplicate workflow name, already registered from "
            f"{known.source or 'another module'}", fix="Give one of the workflows another name"))
    if findings:
        refuse(InvalidWorkflow(workflow.name, findings), caller.get("__name__"))
    _REGISTRY[workflow.name] = workflow
    _BY_SOURCE.setdefault(workflow.source, {})[workflow.name] = workflow
    return workflow


def _skills_root(source: str) -> str:
    """The skills folder a workflow's script is in ('' for a workflow without a script)."""
    return os.path.dirname(skill_folder(source)) if source else ""


def refuse(error: InvalidWorkflow, module: object) -> NoReturn:
    """Raise `error`; but when the defining module is the script being run, print its findings
    as the one error report and exit 1: an agent must never meet a traceback."""
    raise_in(error, module)


def registered() -> dict[str, Workflow]:
    """A copy of the registry: workflow name -> Workflow."""
    return dict(_REGISTRY)


def from_source(source: str) -> list[Workflow]:
    """The workflows the script `source` (a real path) registered."""
    return list(_BY_SOURCE.get(source, {}).values())


def forget_source(source: str) -> None:
    """Before the script `source` is loaded again: what it registered last time is not what it
    registers now (it may define none any more)."""
    _BY_SOURCE.pop(source, None)


def unregister(name: str) -> None:
    """Drop a workflow from the registry (discovery reloads; tests build throwaway graphs)."""
    gone = _REGISTRY.pop(name, None)
    if gone is not None:
        _BY_SOURCE.get(gone.source, {}).pop(name, None)
