"""Follow a skill's printed commands as real subprocesses, the way an agent would: run a
`<cmd>`, parse the document, pick an invoke, supply every `<arg>`, repeat until `<complete>`.
Walks repeat with different choices until every edge of the graph was taken."""

from __future__ import annotations

import shlex
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from skills.lib.workflow.core import Workflow
from skills.lib.workflow.schema import schema_errors

MAX_HOPS = 200


@dataclass
class Hop:
    """One invocation: the command, its document, and the edge it followed."""

    cmd: list[str]
    root: ET.Element
    chars: int


@dataclass
class Walk:
    hops: list[Hop] = field(default_factory=list)


def run(cmd: list[str], cwd: str) -> Hop:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 0, f"{shlex.join(cmd)}\nexit {proc.returncode}: {proc.stderr}"
    assert proc.stderr == "", f"{shlex.join(cmd)} wrote to stderr: {proc.stderr}"
    errors = schema_errors(proc.stdout)
    assert not errors, f"{shlex.join(cmd)}: {errors}"
    return Hop(cmd, ET.fromstring(proc.stdout), len(proc.stdout))


def supply(invoke: ET.Element, picks: dict[str, int] | None = None,
           persist: bool = False) -> list[str]:
    """The command of an invoke with a value for every arg it asks for. A choice arg takes its
    choices in turn across calls sharing `picks` (so script-decided gates see each value); with
    `persist`, its last choice, which for a review verdict ('pass fail') keeps the loop going."""
    cmd = shlex.split(invoke.findtext("cmd") or "")
    for arg in invoke.findall("arg"):
        key = arg.get("key", "")
        choices = (arg.get("choices") or "").split()
        if choices and picks is not None:
            turn = len(choices) - 1 if persist else picks.get(key, 0) % len(choices)
            picks[key] = picks.get(key, 0) + 1
            value = choices[turn]
        else:
            value = choices[0] if choices else f"walker value for {key}"
        cmd += ["--set", f"{key}={value}"]
    return cmd


def edge_of(hop: Hop, invoke: ET.Element) -> tuple[str, str, str]:
    """(source step, outcome, target step) of the command an invoke holds."""
    cmd = shlex.split(invoke.findtext("cmd") or "")
    target = cmd[cmd.index("--step") + 1]
    outcome = cmd[cmd.index("--outcome") + 1] if "--outcome" in cmd else "-"
    return hop.root.get("id", ""), outcome, target


def walk(first: list[str], cwd: str, seen: dict[tuple[str, str, str], int],
         persist: bool) -> Walk:
    """One run from `first` to `<complete>`. Picks the least-taken edge; with `persist`, stays
    in loops (takes the rework outcome while offered) so exhaustion is reached."""
    result = Walk()
    cmd = first
    picks: dict[str, int] = {}
    for _ in range(MAX_HOPS):
        hop = run(cmd, cwd)
        result.hops.append(hop)
        invokes = hop.root.findall("NEXT/invoke")
        if not invokes:
            assert hop.root.find("NEXT/complete") is not None
            return result
        chosen = min(invokes, key=lambda inv, hop=hop: _rank(hop, inv, seen, persist))
        edge = edge_of(hop, chosen)
        seen[edge] = seen.get(edge, 0) + 1
        cmd = supply(chosen, picks, persist)
    raise AssertionError(f"no <complete> after {MAX_HOPS} hops from {shlex.join(first)}")


def _rank(hop: Hop, inv: ET.Element, seen: dict[tuple[str, str, str], int],
          persist: bool) -> tuple[int, int]:
    """Least-taken first; with `persist`, the outcome that stays in the current loop first."""
    looping = {b.get("checkpoint", "").partition(":")[2] for b in hop.root.findall("banner")}
    stay = persist and inv.get("outcome") in looping
    return (0 if stay else 1, seen.get(edge_of(hop, inv), 0))


def graph_edges(wf: Workflow) -> set[tuple[str, str, str]]:
    """Every edge a run can take, exhaustion edges included, as walker edges."""
    edges = set()
    for e in wf.edges:
        if e.target is None:
            continue
        outcome = e.outcome if len(wf.by_id[e.source].next) > 1 else "-"
        edges.add((e.source, outcome, e.target))
        if e.rework is not None:
            edges.add((e.source, outcome, e.rework.on_exhausted))
    return edges
