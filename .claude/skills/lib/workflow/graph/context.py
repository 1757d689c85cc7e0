"""What a handler or a dynamic text sees of the current invocation (`StepContext`): the workflow
and step, the run's params, values and loop counters, and the step's own kept state."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from .types import STEP_STATE

if TYPE_CHECKING:
    from .step import StepDef
    from .workflow import Workflow

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class StepContext(NamedTuple):
    """What a handler or a dynamic text sees of the current invocation."""

    workflow: "Workflow"
    step: "StepDef"
    params: Mapping[str, str] = _EMPTY
    values: Mapping[str, str] = _EMPTY
    counts: Mapping[str, int] = _EMPTY
    run: str | None = None
    hops: int = 0
    arrived: str | None = None  # the edge `step:outcome` of the move that led here, if known
    # Memory keys the agent reported with the command that led here: not echoed back to it.
    fresh: frozenset[str] = frozenset()
    # Whether the step states the protocol's rules in full (the first step an agent is shown,
    # a reprint) or points back to them.
    full: bool = True

    def passes(self, edge_key: str) -> int:
        """How many times the rework edge `step:outcome` has been taken in this run."""
        return self.counts.get(edge_key, 0)

    @property
    def step_state(self) -> dict[str, Any]:
        """What this step's handler returned as its state the last time it ran in this run
        (a fresh dict: {} before that). A stateless invocation keeps it only while the script
        passes through steps itself; a run in the ledger keeps it for the run's life."""
        raw = self.values.get(STEP_STATE + self.step.id)
        if not raw:
            return {}
        import json

        state: dict[str, Any] = json.loads(raw)
        return state

    @property
    def workflow_params(self) -> dict[str, str]:
        """The run's parameters (`Param`s, given on the entry step) and the values the agent
        reported so far (`--set KEY=VALUE`), each under its key and its key in lowercase (the
        original system's names: `workflow_params["confidence"]` is a reported CONFIDENCE); a
        reported value wins over a param of the same name."""
        reported = {k: v for k, v in self.values.items() if not k.startswith(STEP_STATE)}
        return {**self.params, **{k.lower(): v for k, v in reported.items()}, **reported}
