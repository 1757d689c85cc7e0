#!/usr/bin/env python3
"""Benchmark: what a run costs the agent in context and in turns. Each workflow is walked along
its happy path (the fewest printed steps from the entry to the end, every review passing) by
running the printed commands as an agent would, in a scratch ledger; for each printed step it
counts characters, estimated tokens (characters / 4) and the framing share.

Framing is what the step does not say about this step's work: the mandate, the memory echo,
banners, the commands, the markup. The rest is content: the title, what `<DO>` asks (actions,
questions, forbidden items, expected output, dispatch prompts, resources, injected context), the
`when`, keys, choices and descriptions of `<NEXT>`'s args, resource paths, the closing text.
Turns are the steps printed to the agent: each one costs the agent a tool call.

Run: python benchmarks/run_output.py [NAME ...] [--steps]
Goals (issue 30), against the original system's figures (claude-config's skills at their last
version, measured on the same machine with the same short values; ORIGINAL): markup at most 15%
of every run; problem-analysis at most half the original's (4,365 characters); decision-critic
and the executor at most the original's; the planner at most half the original's. The original
cannot run here: its figures are the measured ones, beside ours.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from subprocess import CompletedProcess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".claude"))

from skills.lib.workflow.graph.model import Rework, StepDef, Workflow
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.tools.simulate import Walker, in_a_process
from skills.lib.workflow.tools.walkedges import END, Hop, distances, graph_edges
from stepbench import USER_PYTHON, site_packages

DEFAULT = ("problem-analysis", "planner", "executor", "incoherence", "decision-critic",
           "deepthink", "codebase-analysis")
#: The original's characters per run (issue 30's measurement): planner's happy path read 0.44
#: of the original's 37,177 at 16,358 characters.
ORIGINAL = {"problem-analysis": 8731, "executor": 11080, "decision-critic": 4812,
            "deepthink": 15978, "codebase-analysis": 8961, "planner": 37177}
#: Issue 30's limits on characters: a run's share of the original's.
GOALS = {"problem-analysis": 0.5, "decision-critic": 1.0, "executor": 1.0,
         "planner": 0.5}
MARKUP_GOAL = 0.15
#: Content: the text of these elements (and of their descendants), and these attributes.
CONTENT_TAGS = {"DO", "question", "option", "item", "prompt", "resource", "convention",
                "context", "complete"}
CONTENT_ATTRS = {"title", "when", "describe", "key", "set", "choices", "path"}
#: Framing, by kind: texts of these elements (the rest of the framing is markup).
FRAMING_TAGS = {"mandate": "mandate", "memory": "memory", "cmd": "commands",
                "NEXT": "commands",  # a linear step's command is NEXT's own text
                "banner": "notes",
                "decided": "notes",
                "role": "notes"}
#: Verdict-like choices that keep a run on its happy path.
HAPPY = ("pass", "approve", "approved", "yes", "ok", "done", "complete", "high", "certain")
#: Outcomes off the happy path, besides every rework edge.
SAD = {"fail", "invalid", "redo", "abort", "reject", "escalate", "blocked", "stop"}


class HappyWalker(Walker):
    """Heads for the nearest end of the run along edges that are no rework and no failure;
    a choice arg takes its happy value."""

    def _toward(self, source: str, label: str, target: str) -> int:
        step = self.wf.by_id[source]
        outcome = label if label != "-" else next(iter(step.next))
        sad = isinstance(step.next.get(outcome), Rework) or outcome in SAD
        if target == END:
            return 1000 * sad
        ends = {edge[0] for edge in self.edges}
        return 1000 * sad + 1 + min(distances(self.wf, end).get(target, 999) for end in ends)

    value_chars = 0

    def supply(self, invoke: ET.Element, persist: bool = False,
               source: StepDef | None = None) -> list[str]:
        invoke = copy.deepcopy(invoke)  # the printed step is measured as it was printed
        for arg in invoke.iterfind("arg"):
            choices = (arg.get("choices") or "").split()
            happy = [c for c in choices if c.lower() in HAPPY]
            if choices:
                arg.set("choices", happy[0] if happy else choices[0])
        cmd = super().supply(invoke, persist, source)
        if self.value_chars:  # a free-text value as long as a real one
            filler = ("the agent's own words on this, " * (self.value_chars // 30 + 1))
            cmd = [a + " " + filler[:self.value_chars] if "=simulated value for " in a else a
                   for a in cmd]
        return cmd


def breakdown(root: ET.Element) -> dict[str, int]:
    """Characters of the step by kind: its own content (see the module docstring), and the
    framing: mandate, memory, commands, notes (banners, the dispatch role, a note attribute)
    and markup (tags, attribute names and quotes, line ends)."""
    parts = dict.fromkeys(("content", "mandate", "memory", "commands", "notes"), 0)
    parts["notes"] += sum(len(el.get("note", "")) for el in root.iter())
    parts["content"] += sum(len(v) for el in root.iter() for k, v in el.attrib.items()
                            if k in CONTENT_ATTRS)
    # A memory value's key is its element's name (`<PLAN_FILE>`): counted once, as the `key`
    # attribute it replaced was.
    parts["content"] += sum(len(el.tag) for el in root.iterfind("memory/*"))
    _texts(root, parts, None)
    return parts


def _texts(node: ET.Element, parts: dict[str, int], kind: str | None) -> None:
    """Add each text under `node` to the kind of its nearest classified ancestor."""
    if node.tag in FRAMING_TAGS:
        kind = FRAMING_TAGS[node.tag]
    elif node.tag in CONTENT_TAGS and kind not in ("memory", "notes"):
        kind = "content"
    if node.text and kind is not None:
        parts[kind] += len(node.text.strip("\n"))
    for child in node:
        _texts(child, parts, kind)
        if child.tail and kind is not None:  # the lines of a <DO> between its elements
            parts[kind] += len(child.tail.strip("\n"))


def framing_share(hops: list[Hop]) -> float:
    return 1 - sum(breakdown(h.root)["content"] for h in hops) / sum(h.chars for h in hops)


def as_a_user(cmd: list[str], env: dict[str, str], cwd: str) -> CompletedProcess[str]:
    """The first command run by a user's python3 (stepbench.USER_PYTHON), not this virtual
    environment's: the commands a step prints start with the interpreter that ran it, so this
    counts the characters a user's run prints."""
    if cmd[0] == sys.executable:
        cmd = [USER_PYTHON, *cmd[1:]]
    return in_a_process(cmd, env, cwd)


def walk(wf: Workflow, scratch: str, value_chars: int = 0) -> list[Hop]:
    env = {**os.environ, "SKILLRAIL_HOME": os.path.join(scratch, "ledger"),
           "PYTHONPATH": site_packages()}
    goals = frozenset(e for e in graph_edges(wf) if e[2] == END)
    walker = HappyWalker(wf, scratch, env, goals=goals, run=as_a_user)
    walker.value_chars = value_chars
    return walker.walk()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(DEFAULT), metavar="NAME",
                        help=f"workflows to walk (default: {' '.join(DEFAULT)})")
    parser.add_argument("--steps", action="store_true", help="also print every step's figures")
    parser.add_argument("--value-chars", type=int, default=0, metavar="N",
                        help="report every free-text value with N characters, as a real agent "
                             "would (default: the simulator's short values)")
    args = parser.parse_args()
    found = {wf.name: wf for wf in discover_workflows(ROOT / ".claude" / "skills").workflows}
    unknown = [n for n in args.names if n not in found]
    if unknown:
        print(f"error: no workflow {', '.join(unknown)}; known: {' '.join(sorted(found))}",
              file=sys.stderr)
        return 2
    print(f"{'workflow':<18} {'turns':>5} {'chars':>7} {'~tokens':>7} {'per turn':>8} "
          f"{'framing':>7}  {'mandate':>7} {'memory':>6} {'cmds':>5} {'notes':>5} {'markup':>6}"
          f"  {'original':>8} {'ratio':>5}  goal")
    missed = 0
    for name in args.names:
        with tempfile.TemporaryDirectory(prefix="skillrail-bench-") as scratch:
            hops = walk(found[name], scratch, args.value_chars)
        chars = sum(h.chars for h in hops)
        framing = framing_share(hops)
        kinds = [breakdown(h.root) for h in hops]
        total = {k: sum(p[k] for p in kinds) for k in kinds[0]}
        markup = chars - sum(total.values())
        original = ORIGINAL.get(name)
        ratio = chars / original if original else None
        limit = GOALS.get(name)
        met = markup / chars <= MARKUP_GOAL and (limit is None or (ratio or 0) <= limit)
        goal = (f"markup <= {MARKUP_GOAL:.0%}"
                + (f", <= {limit:.2f} of the original" if limit is not None else "")
                + (": met" if met else ": MISSED"))
        missed += not met
        shares = "".join(f" {total[k] / chars:>{w}.0%}" for k, w in (
            ("mandate", 8), ("memory", 6), ("commands", 5), ("notes", 5))) + \
            f" {markup / chars:>6.1%}"
        versus = (f"  {original:>8,} {ratio:>5.2f}" if original and ratio is not None
                  else f"  {'-':>8} {'-':>5}")
        print(f"{name:<18} {len(hops):>5} {chars:>7,} {chars // 4:>7,} {chars // len(hops):>8,} "
              f"{framing:>7.0%} {shares}{versus}  {goal}")
        if args.steps:
            for hop in hops:
                share = 1 - breakdown(hop.root)["content"] / hop.chars
                print(f"    {hop.root.get('id', '?'):<28} {hop.chars:>6,} chars  "
                      f"framing {share:.0%}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
