"""The original planner's compatibility import: a script in planner/scripts/ (or below, with
that folder on its path) may write `from shared import format_step_output`, as the original's
did. Every name is the formatter of `skills.lib.workflow.formatters`: the same functions, not
copies."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow.formatters import *  # noqa: F403
from skills.lib.workflow.formatters import __all__  # noqa: F401
from skills.lib.workflow.types import (  # noqa: F401
    AgentRole,
    BranchRouting,
    GateConfig,
    LinearRouting,
    QRState,
    Step,
    TerminalRouting,
)
