"""Helpers shared by the ledger tests: a skill script exercising every kind of step a run goes
through, and functions that run it as an agent does and read the ledger back."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, NamedTuple, cast

from skills.lib.workflow.base.paths import ledger_path, ledger_url
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.protocol import MANDATE

from ..conftest import REPO
from ..harness import Banner, agent, cmd_text, invoke, run_of, runs_in_process
from ..harness import banner as read_banner

#: A skill script exercising every kind of step a run goes through: values reported with --set,
#: a counted rework loop escalating to the user, a script-decided step, a completion. When
#: LEDGER_TEST_MARKER names a file, the handler makes it and waits while it is there (30 s at
#: most): a test can kill the process while its handler runs, or remove the file to let it go on.
SCRIPT = '''import os
import sys
import time

sys.path.insert(0, @CLAUDE@)
from skills.lib.workflow import (Action, Arg, AskUser, Rework, StepDef, Workflow, decides, main,
                                 register_workflow)


@decides("pass", "fail")
def judge(ctx):
    marker = os.environ.get("LEDGER_TEST_MARKER")
    if marker:
        open(marker, "w").close()
        deadline = time.monotonic() + 30
        while os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
    return "pass" if int(ctx.values["SCORE"]) >= 5 else "fail"


WORKFLOW = register_workflow(Workflow(name="chain", steps=[
    StepDef("start", "Start", actions=[Action("Name the topic.", out="TOPIC")],
            args=[Arg("TOPIC", "the topic")], next={"ok": "draft"}),
    StepDef("draft", "Draft", actions=[Action(@DRAFT_ACTION@, out="NOTE")], reads=("TOPIC",),
            args=[Arg("NOTE", "what the draft says")], @DRAFT_NEXT@),
    StepDef("review", "Review", actions=["Review the draft."], reads=("TOPIC", "NOTE"),
            next={"iterate": Rework("draft", 3, "ask"), "ok": "score"},
            when={"iterate": "the draft needs another pass", "ok": "the draft is good"}),
    StepDef("ask", "Ask", ask_user=AskUser("Accept the draft anyway?",
                                           {"approve": "yes", "reject": "no"}),
            next={"approve": "score", "reject": "finish"}),
    StepDef("score", "Score", actions=[Action("Score the draft from 0 to 9.", out="SCORE")],
            args=[Arg("SCORE", "the score", choices=tuple("0123456789"))], next={"ok": "judge"}),
    StepDef("judge", "Judge", handler=judge, reads=("SCORE",),
            next={"pass": "finish", "fail": "fix"}),
    StepDef("fix", "Fix", actions=["Fix the draft."], next={"ok": "finish"}),
    StepDef("finish", "Finish", actions=["Report the result."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
DRAFT_ACTION = "Write a draft."
DRAFT_NEXT = 'next={"ok": "review"}'
#: The same workflow with one more outcome on 'draft': a different graph.
DRAFT_NEXT_WITH_SKIP = ('next={"ok": "review", "skip": "score"}, '
                        'when={"ok": "there is a draft", "skip": "nothing to draft"}')


def write_script(path: Path, *, action: str = DRAFT_ACTION, draft_next: str = DRAFT_NEXT) -> Path:
    """(Re)write the skill script at `path`, bootstrapping the framework from this repository."""
    text = (SCRIPT.replace("@CLAUDE@", repr(str(REPO / ".claude")))
            .replace("@DRAFT_ACTION@", repr(action)).replace("@DRAFT_NEXT@", draft_next))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def call(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run a command as the agent does, in this process (harness.agent: the script as a new
    interpreter runs it); the test's SKILLRAIL_HOME and SKILLRAIL_LEDGER are inherited. What the
    process itself does (a kill, a race, a lost connection mid-step) is Racer's and Popen's, and
    a command run as another user (setpriv ...) is a real process too."""
    environment = {**os.environ, **(env or {})}
    if not runs_in_process(argv):
        return subprocess.run(argv, capture_output=True, timeout=60, env=environment)
    done = agent(argv, env=environment)
    return subprocess.CompletedProcess(argv, done.code, done.out, done.err)


def step(script: Path, *flags: str,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Invoke the skill script with `flags`."""
    return call([sys.executable, str(script), *flags], env)


def printed(proc: subprocess.CompletedProcess[bytes]) -> ET.Element:
    """The `<step>` a successful invocation printed (exit 0, nothing on stderr)."""
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
    return ET.fromstring(proc.stdout)


def command(doc: ET.Element, outcome: str | None = None, **values: str) -> list[str]:
    """The argv of the printed command for `outcome`, plus the --set flags for `values`."""
    argv = shlex.split(cmd_text(invoke(doc, outcome)))
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return argv


def follow(doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
    """Run the printed command and return the step it prints."""
    return printed(call(command(doc, outcome, **values)))


def start(script: Path, *flags: str) -> ET.Element:
    """A new run at the entry step."""
    doc = printed(step(script, "--step", "start", *flags))
    assert run_of(doc)
    return doc


def resume(script: Path, run_id: str) -> ET.Element:
    return printed(step(script, "--run", run_id, "--resume"))


def to_review(script: Path) -> ET.Element:
    """A new run, walked to its first review."""
    doc = follow(start(script), TOPIC="caching")
    return follow(doc, NOTE="first draft")


def to_score(script: Path) -> ET.Element:
    """A new run, walked to the step that asks for a score."""
    return follow(to_review(script), "ok")


def to_finish(script: Path) -> ET.Element:
    """A new run, walked to its last step (the script-decided 'judge' passed through): the run
    is then completed."""
    return follow(to_score(script), SCORE="7")


def refused(proc: subprocess.CompletedProcess[bytes], code: int) -> list[str]:
    """stderr's lines of a refused invocation: exit `code`, empty stdout, an `error:` line, no
    traceback."""
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == code, err
    assert proc.stdout == b""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines and lines[0].startswith("error: "), err
    return lines


def one_error_line(proc: subprocess.CompletedProcess[bytes], code: int) -> str:
    lines = refused(proc, code)
    assert len(lines) == 1, lines
    return lines[0]


def until(what: Callable[[], Any], why: str, seconds: float = 20) -> Any:
    """what()'s first true answer, asked again every 20 ms (for a state another process reaches
    that nothing announces); the test fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := what()):
        assert time.monotonic() < deadline, why
        time.sleep(0.02)
    return found


class Racer:
    """racer.py serving one skill script: race(*argvs) runs the commands at once, each in a
    process forked for it and released with the others, and returns how each ended."""

    def __init__(self, script: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("racer.py")),
                                      str(script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def race(self, *argvs: list[str]) -> list[subprocess.CompletedProcess[bytes]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(argvs) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the racer exited ({self.proc.wait()})"
        return [subprocess.CompletedProcess(argv, r["code"], r["out"].encode(), r["err"].encode())
                for argv, r in zip(argvs, json.loads(line), strict=True)]

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
        """One command, in one forked step process (a new run's start, a step with one
        command): what `call` does, without the fresh interpreter's imports."""
        (done,) = self.race(argv)
        return done

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()


# -- reading the ledger ----------------------------------------------------------------------
# Through Ledger(), which opens the ledger the step scripts use: SKILLRAIL_LEDGER's database
# when the test runs on PostgreSQL (conftest.backend), else the file in SKILLRAIL_HOME.

class State(NamedTuple):
    """What an invocation may change about a run."""

    step: str
    status: str
    hops: int
    decided: str | None
    counts: dict[str, int]
    memory: dict[str, str]
    transitions: list[tuple[int, str, str, str, float]]


def state(run_id: str) -> State:
    with Ledger() as ledger:
        run = ledger.run(run_id)
        assert run is not None, f"no run {run_id}"
        return State(run.step, run.status, run.hops, run.decided, run.counts, run.memory,
                     ledger.transitions(run_id))


def integrity() -> str:
    """'ok' when the ledger is sound: SQLite's own check of the file (PostgreSQL keeps its own
    consistency), and, on either backend, every run's moves whole: transitions numbered 1, 2, ...
    with none missing or doubled, each leaving the step the one before led to (the first, the
    step the run started at), the last leading to the run's step, and the run's hops one more
    than its moves. Otherwise the first thing found wrong."""
    with Ledger() as ledger:
        checked = ledger.integrity()
        if checked != "ok":
            return checked
        starts = dict(ledger.query("SELECT run, detail FROM events WHERE kind = 'start'"))
        for run_id, step_id, hops in ledger.query("SELECT id, step, hops FROM runs"):
            moves = ledger.transitions(run_id)
            at = starts.get(run_id)
            if [m[0] for m in moves] != list(range(1, len(moves) + 1)):
                return f"run {run_id}: moves numbered {[m[0] for m in moves]}"
            for seq, source, _, target, _ in moves:
                if source != at:
                    return f"run {run_id}: move {seq} leaves {source!r}, not {at!r}"
                at = target
            if (at, hops) != (step_id, len(moves) + 1):
                return f"run {run_id}: at {step_id!r} after {hops} hops, moves say {at!r}"
    return "ok"


@contextmanager
def raw() -> Iterator[sqlite3.Connection]:
    """A connection to the ledger's database bypassing Ledger (no migration, no version check),
    for a test that rewrites what the ledger holds: the SQLite file, or a pgstore.Connection
    to SKILLRAIL_LEDGER's database (the same interface). Committed on the way out."""
    url = ledger_url()
    if url:
        from skills.lib.workflow.ledger.pgstore import Connection

        db = cast(sqlite3.Connection, Connection(url, 5_000))
    else:
        db = sqlite3.connect(ledger_path())
    try:
        with db if not url else nullcontext():
            yield db
    finally:
        db.close()


def schema_version() -> int:
    with raw() as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def banner(doc: ET.Element) -> Banner:
    """What the step's banner says (its loop, pass, limit and mode)."""
    found = read_banner(doc.find("banner"))
    assert found is not None, f"step '{doc.get('id')}' has no banner"
    return found


def memory(doc: ET.Element) -> dict[str, str | None]:
    return {item.tag: item.text for item in doc.findall("memory/*")}


def reprint_of(again: ET.Element, doc: ET.Element) -> bool:
    """Whether `again` shows the step `doc` showed, as a reprint does: the same step, work and
    commands, with the full mandate (the agent may have lost the rules) and the memory in
    full (values the agent had just reported included); not how the run got there
    (`<decided>`)."""
    def parts(node: ET.Element) -> list[bytes]:
        return [ET.tostring(child) for child in node
                if child.tag not in ("mandate", "memory", "decided")]

    # A reprint names the protocol, the skill and the run, as the first step shown does.
    return ((again.get("id"), again.get("run")) == (doc.get("id"), run_of(doc))
            and parts(again) == parts(doc)
            and (again.findtext("mandate") or "").startswith(MANDATE)
            and memory(doc).items() <= memory(again).items())



