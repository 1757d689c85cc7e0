"""Reading a printed step back, for what checks a run from outside (the simulator, the
benchmarks, tests): the keys an `<invoke>` asks for, the outcome its command takes, the lines
of a `<DO>`. The inverse of xml.py's lean forms, in one place, so no reader parses them its own
way."""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from typing import NamedTuple

from .xml import KEYED


class Asked(NamedTuple):
    """One value an invoke asks for: named in its `set`, or an `<arg>`."""

    key: str
    choices: tuple[str, ...] = ()
    required: bool = True
    describe: str | None = None


def invokes(step: ET.Element) -> list[ET.Element]:
    """The commands a step offers, each as the element holding its command: the `<NEXT>`
    itself where it holds one command (as its text, or a `<cmd>` beside `<arg>`s), else its
    `<invoke>`s; [] where the run ends."""
    nxt = step.find("NEXT")
    if nxt is None:
        return []
    lone = nxt.find("cmd") is not None or (nxt.text or "").strip()
    return [nxt] if lone else nxt.findall("invoke")


def run(step: ET.Element) -> str | None:
    """The run a step belongs to: the root's `run` (where the mandate is, and on a run's last
    step), else the `--run` its commands name; None for a stateless step."""
    if step.get("run"):
        return step.get("run")
    for invoke in invokes(step):
        argv = command(invoke)
        if "--run" in argv[:-1]:
            return argv[argv.index("--run") + 1]
    return None


class Decided(NamedTuple):
    """A script-decided step the run passed through before the printed one (`<decided>`)."""

    step: str
    outcome: str
    note: str


def decided(step: ET.Element) -> list[Decided]:
    """The `<decided>` of a step, in order: each reads `STEP: OUTCOME.` and the step's note."""
    found = []
    for node in step.iterfind("decided"):
        head, _, note = (node.text or "").partition(". ")
        source, _, outcome = head.removesuffix(".").partition(": ")
        found.append(Decided(source, outcome, note))
    return found


def asked(invoke: ET.Element) -> list[Asked]:
    """The values an invoke (see `invokes`) asks for: its `set`, then its `<arg>`s."""
    keys = [Asked(key) for key in (invoke.get("set") or "").split()]
    return keys + [Asked(arg.get("key", ""), tuple((arg.get("choices") or "").split()),
                         arg.get("required") != "false", arg.get("describe"))
                   for arg in invoke.iterfind("arg")]


def command(invoke: ET.Element) -> list[str]:
    """The invoke's command as argv."""
    return shlex.split(invoke.findtext("cmd") or (invoke.text or "").strip())


def outcome(invoke: ET.Element) -> str | None:
    """The outcome the invoke's command names: `--outcome`, or in a command of the original
    shape a review's `--qr-status`; None where it names none."""
    argv = command(invoke)
    for flag in ("--outcome", "--qr-status"):
        if flag in argv[:-1]:
            return argv[argv.index(flag) + 1]
    return None


class Line(NamedTuple):
    """One item of a `<DO>`'s text: its kind ("action", "forbidden", "resource", "convention"
    or "expected"), the key an action's result is reported as ("reply" for the answer to the
    user, None for none), and its text (for a resource or convention, what follows its path)."""

    kind: str
    out: str | None
    text: str
    path: str | None = None


_KINDS = (("Forbidden to the orchestrator: ", "forbidden"), ("Forbidden: ", "forbidden"),
          ("Expected output: ", "expected"), ("Resource ", "resource"),
          ("Convention ", "convention"), ("- ", "action"))


def lines(do: ET.Element | None) -> list[Line]:
    """The items of a `<DO>`'s text (before, between and after its elements), in order; an
    item's later lines are indented by two spaces (xml.py) and joined back here."""
    if do is None:
        return []
    raw = [do.text or ""] + [child.tail or "" for child in do]
    grouped: list[str] = []
    for text in raw:
        for line in text.split("\n"):
            if line.startswith("  ") and grouped:
                grouped[-1] += "\n" + line[2:]
            elif line.strip():
                grouped.append(line)
    return [_item(line) for line in grouped]


def _item(line: str) -> Line:
    for lead, kind in _KINDS:
        if line.startswith(lead):
            rest = line[len(lead):]
            if kind == "action":
                key = KEYED.match(rest)
                if key is None:
                    return Line(kind, None, rest)
                if key["key"] == "Do":  # a plain action whose own text starts like a key
                    return Line(kind, None, rest[key.end():])
                out = "reply" if key["key"] == "Your reply" else key["key"]
                return Line(kind, out, rest[key.end():])
            if kind in ("resource", "convention"):
                path, _, when = rest.partition(": ")
                return Line(kind, None, when, path)
            return Line(kind, None, rest)
    return Line("text", None, line)


def actions(step: ET.Element) -> list[Line]:
    """The actions of a step's `<DO>`, in order."""
    return [line for line in lines(step.find("DO")) if line.kind == "action"]
