"""The graph layer: a workflow as data (StepDef, Workflow, the value types), its derived facts
(reachability, loops, the static step bound), the graph's checks and its diagrams as data. It
imports only `base`."""

# `skills.lib.workflow.graph` was the module of the derived facts: its names stay here.
from .analysis import (
    adjacency,
    components,
    cycle_through,
    cycles,
    fingerprint,
    loops,
    reachable,
    reverse,
    worst_case_steps,
)
from .dataflow import definitely_written

__all__ = ["adjacency", "components", "cycle_through", "cycles", "definitely_written",
           "fingerprint", "loops", "reachable", "reverse", "worst_case_steps"]
