"""Review reports: the file a quality reviewer writes (conventions/qr-report.md), which a review
loop's gate reads to decide. The orchestrating agent relays the reviewer's reply but cannot talk
its way past the gate: the verdict comes from the report's open findings and the severities that
block on this pass. A report in plain form is read with the standard library (plaindoc.py);
pydantic is imported only when a gate reads one that is not, to word its problems."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..graph.model import StepContext, Text, decides, render_text

if TYPE_CHECKING:
    from pydantic import BaseModel

#: Findings a gate lists in its step; the rest are counted.
SHOWN = 8


@functools.cache
def report_model() -> type[BaseModel]:
    """The report schema, built on first use (pydantic is not on the --step hot path)."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field

    class ReportFinding(BaseModel):
        model_config = ConfigDict(extra="forbid")
        id: str = Field(min_length=1)
        severity: Literal["MUST", "SHOULD", "COULD"]
        status: Literal["open", "resolved"] = "open"
        location: str = Field(min_length=1)
        problem: str = Field(min_length=1)
        fix: str = ""

    class QRReport(BaseModel):
        model_config = ConfigDict(extra="forbid")
        reviewer: Literal["independent", "self"] | None = None
        items: list[ReportFinding]

    return QRReport


def read_report(path: str) -> tuple[Any, str]:
    """(report, '') or (None, what is wrong with the file and where)."""
    from .documents import read_document

    return read_document(path, report_model, "report", shown=5, plain=plain_report)


def plain_report(data: Any) -> Any:
    """The report, when the model would accept `data` as it is (plaindoc.py); else None."""
    return plain_reader()(data)


@functools.cache
def plain_reader() -> Any:
    """The report model's reader with the standard library, made once (plaindoc.py)."""
    from .plaindoc import REQUIRED, many, one_of, plain, record, string, text

    finding = record({"id": (text, REQUIRED),
                      "severity": (one_of("MUST", "SHOULD", "COULD"), REQUIRED),
                      "status": (one_of("open", "resolved"), "open"),
                      "location": (text, REQUIRED), "problem": (text, REQUIRED),
                      "fix": (string, "")})
    return plain({"reviewer": (one_of("independent", "self"), None),
                  "items": (many(finding), REQUIRED)})


def reviewer_of(path: str) -> str | None:
    """Whether the review whose report is at `path` was independent: "independent" (a
    reviewer sub-agent wrote it), "self" (the orchestrating agent reviewed its own work: its
    sub-run was started with `--self`), or None when the report is missing, malformed or does
    not say. The report step of `review_workflow` has the reviewer write what its run was;
    a gate's step says "a self-review" too. E.g. a handler after the loop, given the path the
    loop's `qr_loop(..., report=PATH)` names: `"ask" if reviewer_of(PATH) == "self" else
    "go"`, to have the user look before a self-reviewed change goes on."""
    report, _ = read_report(path)
    return None if report is None else report.reviewer


def open_blocking(report: Any, blocking: tuple[str, ...]) -> list[Any]:
    return [f for f in report.items if f.status == "open" and f.severity in blocking]


#: The severities that block the gate on the current pass (qr.blocking, passed in).
Blocking = Callable[[StepContext], tuple[str, ...]]


def report_gate(path: Text, blocking: Blocking) -> Callable[[StepContext], str]:
    """The gate's handler: pass when no open finding of a blocking severity is left, fail when
    one is, redo when the report is missing or malformed."""

    @decides("pass", "fail", "redo")
    def gate(ctx: StepContext) -> str:
        report, _ = read_report(render_text(path, ctx))
        if report is None:
            return "redo"
        return "fail" if open_blocking(report, blocking(ctx)) else "pass"

    return gate


def report_summary(path: Text, blocking: Blocking) -> Callable[[StepContext], str]:
    """What the gate step says it read: the verdict and the blocking findings still open."""

    def summary(ctx: StepContext) -> str:
        where = render_text(path, ctx)
        report, problem = read_report(where)
        if report is None:
            return f"The review's report cannot be used: {problem}. The review is done again."
        severities = blocking(ctx)
        found = open_blocking(report, severities)
        by = (" It is a self-review: the agent that did the work wrote it."
              if report.reviewer == "self" else "")
        if not found:
            return (f"No open {' or '.join(severities)} finding in the report: the review "
                    f"passed.{by}")
        listed = "; ".join(f"{f.id} ({f.severity}, {f.location}): {f.problem.rstrip('. ')}"
                           for f in found[:SHOWN])
        more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        return (f"The report at {where} has {len(found)} open blocking finding"
                f"{'s' * (len(found) != 1)}: {listed}{more}.{by}")

    return summary


def blocking_findings(where: str, severities: tuple[str, ...]) -> str:
    """The open findings of a blocking severity in the report at `where`, one per line with
    its fix, for the sub-agent that must fix them."""
    report, problem = read_report(where)
    if report is None:
        return f"Read the findings in the report ({problem})."
    found = [f for f in report.items if f.status == "open" and f.severity in severities] or \
        [f for f in report.items if f.status == "open"]
    return "\n".join(f"- {f.id} ({f.severity}, {f.location}): {f.problem}"
                     + (f" Fix: {f.fix}" if f.fix else "") for f in found) or \
        "The report lists no open finding; check it again before changing anything."


def report_prepare(path: Text) -> Callable[[StepContext, str], None]:
    """For simulation: write the report that makes the gate decide `outcome`."""
    def prepare(ctx: StepContext, outcome: str) -> None:
        import json

        items = [{"id": "F1", "severity": "MUST", "status": "open", "location": "simulated",
                  "problem": "a simulated blocking finding"}] if outcome == "fail" else []
        where = render_text(path, ctx)
        os.makedirs(os.path.dirname(where) or ".", exist_ok=True)
        with open(where, "w", encoding="utf-8") as handle:
            handle.write("not json" if outcome == "redo" else json.dumps({"items": items}))

    return prepare
