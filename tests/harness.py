"""Running a workflow's step runner in-process and reading what it printed.

`run` calls the public `main(workflow, argv)` with stdout and stderr redirected to byte buffers,
so a test sees exactly the bytes a subprocess would, at a fraction of the cost (and inside
hypothesis examples, where function-scoped capture fixtures are not reset).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from skills.lib.workflow import Workflow, main


@dataclass(frozen=True)
class Result:
    """What one invocation returned and printed."""

    code: int
    out: bytes
    err: bytes

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8")

    def document(self) -> ET.Element:
        """The printed `<step>` element."""
        return ET.fromstring(self.out)


def run(workflow: Workflow, argv: list[str]) -> Result:
    """Invoke the step runner in-process, as `script.py <argv>` would."""
    return captured(lambda: main(workflow, argv))


def skillrail(argv: list[str]) -> Result:
    """Invoke the `skillrail` command in-process, as `skillrail <argv>` would."""
    from skills.lib.workflow.commands import main as command

    return captured(lambda: command(argv))


def captured(call: Callable[[], int]) -> Result:
    """What `call` returned and wrote to stdout and stderr, as bytes."""
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    with redirect_stdout(out_text), redirect_stderr(err_text):
        code = call()
    result = Result(code, out.getvalue(), err.getvalue())
    out_text.detach()
    err_text.detach()
    return result


def invoke(doc: ET.Element, outcome: str | None = None) -> ET.Element:
    """The `<invoke>` of `<NEXT>` for `outcome` (the only one when `outcome` is None)."""
    found = doc.findall("NEXT/invoke")
    if outcome is None:
        assert len(found) == 1, f"expected one <invoke>, found {len(found)}"
        return found[0]
    matching = [i for i in found if i.get("outcome") == outcome]
    assert len(matching) == 1, f"expected one <invoke outcome={outcome!r}>"
    return matching[0]


def command_argv(doc: ET.Element, outcome: str | None = None) -> list[str]:
    """The flags of an `<invoke>`'s command: its words after the interpreter and script."""
    words = shlex.split(invoke(doc, outcome).findtext("cmd", ""))
    return words[2:]


def flag(argv: list[str], name: str) -> str | None:
    """The value of `--name VALUE` or `--name=VALUE` in `argv`, or None."""
    for i, word in enumerate(argv):
        if word == name and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(name + "="):
            return word.partition("=")[2]
    return None


#: How a script dispatch's prompt names the command its sub-agent starts with (step/dispatch.py).
SUBAGENT_LEAD = "First run this command and follow the steps it prints, to the end: "


def subagent_cmd(dispatch: ET.Element | None) -> str:
    """The command a `<dispatch>`'s (first) prompt tells its sub-agent to run first ('' if
    none): protocol 1.2 says it once, inside the verbatim prompt."""
    prompt = "" if dispatch is None else (dispatch.findtext("prompt")
                                          or dispatch.findtext("item/prompt") or "")
    for line in prompt.splitlines():
        if line.startswith(SUBAGENT_LEAD):
            return line[len(SUBAGENT_LEAD):]
    return ""


def decided(doc: ET.Element) -> list[tuple[str, str]]:
    """(step, outcome) of each script-decided step the run passed through before `doc`."""
    return [(d.get("step", ""), d.get("outcome", "")) for d in doc.findall("decided")]


#: The checkout this suite runs from.
CHECKOUT = Path(__file__).resolve().parents[1]


def path_free_size(text: str, *paths: str | Path) -> int:
    """`len(text)` with each absolute path of this machine a step prints counted as `/p`: the
    checkout, the interpreter, the temporary folder and the folders `paths` (where a test's
    sample repository is). What follows such a root (`/.claude/skills/...`) is the same in any
    checkout and counts, so a size limit on printed steps holds wherever the suite runs, in a
    clone at any depth."""
    roots = {str(CHECKOUT), sys.executable, tempfile.gettempdir(), *(str(p) for p in paths)}
    roots |= {os.path.realpath(r) for r in roots}
    pattern = "|".join(re.escape(r) for r in sorted(roots, key=len, reverse=True))
    return len(re.sub(pattern, "/p", text))
