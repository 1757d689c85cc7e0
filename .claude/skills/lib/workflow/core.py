"""The graph API at its documented path: `from skills.lib.workflow.core import Workflow, StepDef,
Outcome, StepContext, register_workflow`. The classes live in graph/model.py, registration in
authoring/registry.py; this module only names them where authors look for them, with the types
a StepDef's fields take beside them (a finding's fix may name `Rework`, an author's next import)."""

from .authoring.registry import refuse, register_workflow, registered, unregister
from .graph.model import (
           Action,
           Arg,
           AskUser,
           Outcome,
           Param,
           Rework,
           StepContext,
           StepDef,
           Workflow,
           render_text,
           skill_dir,
           skill_folder,
)

__all__ = ["Action", "Arg", "AskUser", "Outcome", "Param", "Rework", "StepContext", "StepDef",
           "Workflow", "refuse", "register_workflow", "registered", "render_text", "skill_dir",
           "skill_folder", "unregister"]
