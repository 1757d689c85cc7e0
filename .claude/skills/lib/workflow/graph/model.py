"""The graph API: StepDef, Workflow and StepContext, each in a module of its own and imported
from here. Registering a workflow (registry.py) validates it."""


import os
import sys

from .context import StepContext as StepContext  # its documented home is here
from .step import StepDef as StepDef
from .types import Rework as Rework
from .types import Text
from .workflow import Workflow as Workflow


def skill_folder(script: str) -> str:
    """The skill folder of a step script: the parent of the scripts/ folder holding it, however
    deep (sub-agent scripts live in scripts/qr/ and the like)."""
    here = os.path.dirname(os.path.abspath(script))
    probe = here
    while os.path.basename(probe) != "scripts":
        parent = os.path.dirname(probe)
        if parent == probe:  # not under a scripts/ folder: its parent, as before
            return os.path.dirname(here)
        probe = parent
    return os.path.dirname(probe)


def skill_dir(workflow: Workflow) -> str:
    """The skill folder of a workflow: the parent of the scripts/ folder holding its script."""
    return skill_folder(os.path.realpath(workflow.source or sys.argv[0]))


def render_text(text: Text, ctx: StepContext) -> str:
    """Resolve a static or invocation-dependent text."""
    return text(ctx) if callable(text) else text
