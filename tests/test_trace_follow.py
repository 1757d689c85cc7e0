"""`skillrail trace RUN --since ID` and `--follow`, run as a person runs them while an agent
steps the run in other processes: each entry shown once, in the ledger's order, until the run
ends; on PostgreSQL through a dropped connection and a follower killed and started again with
its last id."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.entries import read
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.ledger.wakeups import CHANNEL
from skills.lib.workflow.tools.history import timeline

from .conftest import REPO
from .harness import run_of
from .history_support import GITHUB_TOKEN, PASSWORD
from .ledger.support import follow, start, until, write_script
from .pgserver import PgServer
from .procstate import polling, sleeping

pytestmark = pytest.mark.slow  # followers are processes waiting on the ledger

#: Generous: only there so that a process that hangs fails its test rather than the suite.
TIMEOUT = 60


def skillrail(*args: str) -> subprocess.CompletedProcess[str]:
    """`skillrail ARGS` with this test's ledger (SKILLRAIL_HOME, and SKILLRAIL_LEDGER when a
    test sets it)."""
    return subprocess.run(_argv(*args), capture_output=True, text=True, env=_env(),
                          timeout=TIMEOUT)


def _argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "skills.lib.workflow.commands", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / ".claude")}


def _interruptible() -> None:
    """In the child, before it runs Python: SIGINT's default action, as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Follower:
    """`skillrail trace RUN --follow ...` running in the background, its stdout read line by
    line as it comes."""

    def __init__(self, *args: str) -> None:
        # Ctrl-C reaches a follower in the foreground of a terminal; a suite started in the
        # background (`pytest &` in a script) hands its children SIGINT ignored, and a Python
        # started so never turns SIGINT into KeyboardInterrupt: the follower gets it back.
        self.proc = subprocess.Popen(_argv("trace", *args, "--follow"), env=_env(), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=_interruptible)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, found: Callable[[str], bool]) -> list[str]:
        """Every line read, once one for which `found` holds has come."""
        while not (self.seen and found(self.seen[-1])):
            line = self.lines.get(timeout=TIMEOUT)
            assert line is not None, f"the follower ended first: {self.seen} {self.stderr()}"
            self.seen.append(line.rstrip("\n"))
        return self.seen

    def ended(self) -> tuple[int, list[str], str]:
        """Its exit status once it ended on its own, every line it printed, and its stderr."""
        code = self.proc.wait(timeout=TIMEOUT)
        while (line := self.lines.get(timeout=TIMEOUT)) is not None:
            self.seen.append(line.rstrip("\n"))
        return code, self.seen, self.stderr()

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def stop(self) -> None:
        """Kill it if it runs, and close its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)
        self.pump.join(timeout=TIMEOUT)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def followers() -> Iterator[Callable[..., Follower]]:
    """Start followers; whichever is still running after the test is killed."""
    made: list[Follower] = []

    def make(*args: str) -> Follower:
        made.append(Follower(*args))
        return made[-1]

    yield make
    for one in made:
        one.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> PgServer | None:
    """Each test on the SQLite file, then on a fresh PostgreSQL database (the server, for the
    tests that cut its connections)."""
    if request.param == "sqlite":
        return None
    monkeypatch.setenv("SKILLRAIL_LEDGER", request.getfixturevalue("pg_url"))
    server: PgServer = request.getfixturevalue("pg_server")
    return server


@pytest.fixture
def script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "chain" / "scripts" / "chain.py")


def in_its_wait(pid: int, postgres: bool) -> bool:
    """Whether the follower `pid` waits for the run to change: on SQLite, in the sleep between
    its reads; on PostgreSQL, in a poll of its connections while the one that LISTENs sits
    idle on the server (its LISTEN done, its notices awaited)."""
    if not postgres:
        return sleeping(pid)
    import psycopg

    with psycopg.connect(os.environ["SKILLRAIL_LEDGER"], autocommit=True) as conn:
        row = conn.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND state = 'idle' AND query = %s",
                           (f"LISTEN {CHANNEL}",)).fetchone()
    return bool(row and row[0]) and polling(pid)


def ledger_ids(run_id: str) -> list[str]:
    """The ids of the run's entries, as the ledger holds them now, in order."""
    with Ledger() as ledger:
        return [entry["id"] for entry in timeline(read(ledger, run_id), None)]


def ids_of(lines: list[str]) -> list[str]:
    """The entry ids of JSON Lines a follower printed (its first and last lines are the run
    and its outcome)."""
    return [doc["id"] for doc in map(json.loads, lines) if "id" in doc]


def has_id(entry_id: str) -> Callable[[str], bool]:
    return lambda line: json.loads(line).get("id") == entry_id


#: The moves of a run of chain (tests/ledger/support.py) from its start to its end: each the
#: outcome and the values the printed command is given. The values hold secrets.
WALK: list[tuple[str | None, dict[str, str]]] = [
    (None, {"TOPIC": f"db login password={PASSWORD}"}),
    (None, {"NOTE": f"used {GITHUB_TOKEN}"}),
    ("iterate", {}),
    (None, {"NOTE": "second draft"}),
    ("ok", {}),
    (None, {"SCORE": "7"}),  # then judge passes (the script decides), and the run completes
]

#: A valid key (UPPER_SNAKE) that has the shape of an AWS access key id, which redaction masks.
SHAPED_KEY = "ASIAPACIFICCUSTOMERS"


def walk(doc: ET.Element, moves: list[tuple[str | None, dict[str, str]]],
         after: Callable[[str], object]) -> ET.Element:
    """Make `moves` from `doc`, calling `after` with the ledger's newest entry id after each."""
    for outcome, values in moves:
        doc = follow(doc, outcome, **values)
        after(ledger_ids(run_of(doc) or "")[-1])
    return doc


class TestSince:
    def test_since_shows_exactly_the_entries_after_the_id(self, script: Path) -> None:
        """From an event, a move, a value and the last entry: the entries after it, as the
        full trace shows them, at full and at summary level."""
        run_id = (run_of(walk(start(script), WALK, lambda _: None)) or "")
        full = json.loads(skillrail("trace", run_id, "--json").stdout)["timeline"]
        ids = [entry["id"] for entry in full]
        assert ids == ledger_ids(run_id) and ids[0] == "e1" and "t2.NOTE" in ids
        for since in ("e1", "t3", "t2.NOTE", ids[-1]):
            proc = skillrail("trace", run_id, "--since", since, "--json")
            assert (proc.returncode, proc.stderr) == (0, "")
            assert json.loads(proc.stdout)["timeline"] == full[ids.index(since) + 1:], since
        summary = json.loads(skillrail("trace", run_id, "--level", "summary", "--json",
                                       "--since", "t2.NOTE").stdout)["timeline"]
        assert [e["id"] for e in summary] == ["t3", "t5", "t7", "e3"]  # e2: its interpreter

    def test_text_lines_carry_the_ids(self, script: Path) -> None:
        """Each line of the timeline starts with its entry's id."""
        run_id = (run_of(walk(start(script), WALK[:2], lambda _: None)) or "")
        lines = skillrail("trace", run_id, "--since", "t1").stdout.splitlines()
        assert [line.split()[0] for line in lines[2:]] == ["t1.TOPIC", "t2", "t2.NOTE"]

    @pytest.mark.parametrize(("since", "said"), [
        ("t99", "has no entry 't99'"), ("x1", "'x1' is not an entry id"),
        ("e", "'e' is not an entry id")])
    def test_an_id_the_run_has_not_is_one_line(self, script: Path, since: str,
                                               said: str) -> None:
        run_id = (run_of(start(script)) or "")
        for follows in ([], ["--follow"]):
            proc = skillrail("trace", run_id, "--since", since, *follows)
            assert (proc.returncode, proc.stdout) == (2, "")
            assert proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr
            assert "An entry id is e<N>" in proc.stderr


    def test_the_hidden_level_checks_since_though_it_shows_no_entry(self, script: Path) -> None:
        run_id = (run_of(start(script)) or "")
        for follows in ([], ["--follow"]):
            bad = skillrail("trace", run_id, "--level", "hidden", "--since", "t99", *follows)
            assert (bad.returncode, bad.stdout) == (2, "")
            assert "has no entry 't99'" in bad.stderr
        good = skillrail("trace", run_id, "--level", "hidden", "--since", "e1", "--json")
        assert (good.returncode, good.stderr) == (0, "")
        assert json.loads(good.stdout) == {"run": run_id, "level": "hidden", "workflow": "chain",
                                           "status": "active", "step": "start", "steps": 1}

class TestFollow:
    def test_each_entry_shows_once_as_the_run_records_it_until_it_ends(
            self, backend: PgServer | None, script: Path,
            followers: Callable[..., Follower]) -> None:
        """A follower started at the run's first step shows every entry of each move before
        the next move is made, and ends by itself when the run completes: the ledger's entries,
        in its order, once each, between the run and its outcome."""
        doc = start(script)
        run_id = (run_of(doc) or "")
        follower = followers(run_id, "--json")
        follower.until(has_id("e1"))
        walk(doc, WALK, lambda newest: follower.until(has_id(newest)))
        code, lines, err = follower.ended()
        assert (code, err) == (0, "")
        assert ids_of(lines) == ledger_ids(run_id)
        first, last = json.loads(lines[0]), json.loads(lines[-1])
        assert (first["kind"], first["status"], first["steps"]) == ("run", "active", 1)
        assert (last["kind"], last["status"], last["step"]) == ("end", "completed", "finish")

    def test_secrets_are_redacted_in_what_is_followed(
            self, backend: PgServer | None, script: Path,
            followers: Callable[..., Follower]) -> None:
        """The values recorded while a follower watches are redacted as `trace` redacts them,
        in text as in JSON."""
        doc = start(script)
        text, as_json = followers(run_of(doc) or ""), followers((run_of(doc) or ""), "--json")
        text.until(lambda line: line.split()[:1] == ["e1"])
        walk(doc, WALK, lambda _: None)
        shown = {"text": text.ended(), "json": as_json.ended()}
        for form, (code, lines, _) in shown.items():
            out = "\n".join(lines)
            assert code == 0 and PASSWORD not in out and GITHUB_TOKEN not in out, form
            assert "password=[REDACTED]" in out, form
        topic = next(line for line in shown["text"][1] if line.split()[:1] == ["t1.TOPIC"])
        assert topic.endswith("start set TOPIC = db login password=[REDACTED]")

    def test_trace_prints_the_ids_and_entries_a_follower_printed(
            self, script: Path, followers: Callable[..., Follower]) -> None:
        """An id is the ledger's, never redacted, though the key in it has a credential's
        shape (ASIA and 16 capitals or digits, a valid UPPER_SNAKE key, which the value's
        'key' field shows redacted): `trace` prints each entry a follower printed as it came,
        id included, `--since` takes that id, and the secret in the value stays redacted at
        every level, followed or not."""
        doc = start(script)
        run_id = (run_of(doc) or "")
        follower = followers(run_id, "--json")
        follower.until(has_id("e1"))
        with Ledger() as ledger, ledger.transaction():
            run = ledger.run(run_id)
            assert run is not None
            ledger.remember(run_id, run.hops, run.step, SHAPED_KEY, f"login password={PASSWORD}")
        walk(doc, WALK, lambda _: None)
        code, lines, err = follower.ended()
        assert (code, err) == (0, "")
        followed = [entry for entry in map(json.loads, lines) if "id" in entry]
        full = json.loads(skillrail("trace", run_id, "--json").stdout)["timeline"]
        assert followed == full
        assert ids_of(lines) == ledger_ids(run_id)
        shaped = next(entry for entry in full if entry["id"] == f"t1.{SHAPED_KEY}")
        assert shaped["value"] == "login password=[REDACTED]"
        after = skillrail("trace", run_id, "--since", shaped["id"], "--json")
        assert json.loads(after.stdout)["timeline"] == full[full.index(shaped) + 1:]
        for level in ("full", "summary", "hidden"):
            for form in ([], ["--json"]):
                out = skillrail("trace", run_id, "--level", level, *form).stdout
                assert out and PASSWORD not in out and GITHUB_TOKEN not in out, (level, form)
        assert PASSWORD not in "\n".join(lines)

    def test_an_abandoned_run_ends_its_follower(self, script: Path,
                                                followers: Callable[..., Follower]) -> None:
        doc = follow(start(script), TOPIC="caching")
        run_id = (run_of(doc) or "")
        follower = followers(run_id)
        follower.until(lambda line: line.split()[:1] == ["t1.TOPIC"])
        assert skillrail("abandon", run_id).returncode == 0
        code, lines, err = follower.ended()
        assert (code, err) == (0, "")
        assert lines[-2].split()[0] == ledger_ids(run_id)[-1]
        assert "abandoned: abandoned at draft" in lines[-2]
        assert lines[-1] == f"run {run_id}  chain  abandoned at 'draft', 2 steps"

    def test_the_level_decides_what_is_followed(self, script: Path,
                                                followers: Callable[..., Follower]) -> None:
        """summary: the milestones trace's summary shows; hidden: the run and its outcome."""
        run_id = (run_of(walk(start(script), WALK, lambda _: None)) or "")
        summary = json.loads(skillrail("trace", run_id, "--level", "summary", "--json").stdout)
        code, lines, _ = followers(run_id, "--level", "summary", "--json").ended()
        assert code == 0
        assert ids_of(lines) == [entry["id"] for entry in summary["timeline"]]
        code, lines, _ = followers(run_id, "--level", "hidden").ended()
        outcome = f"run {run_id}  chain  completed at 'finish', {summary['steps']} steps"
        assert (code, lines) == (0, [outcome, outcome])

    @pytest.mark.parametrize(("sent", "exits"), [(signal.SIGINT, 0), (signal.SIGTERM, 143)])
    def test_ctrl_c_or_sigterm_stops_a_follower_quietly_at_once(
            self, backend: PgServer | None, script: Path, followers: Callable[..., Follower],
            sent: signal.Signals, exits: int) -> None:
        """Ctrl-C: exit 0, the person watching stopped their view; SIGTERM: 143, as a shell
        says of a process it ended, so that whatever sent it can tell. Either while the
        follower waits for the run (SQLite: its sleep between reads; PostgreSQL: its LISTEN),
        with nothing on stderr. How soon: benchmarks/follow_stop.py."""
        follower = followers(run_of(start(script)) or "")
        follower.until(lambda line: line.split()[:1] == ["e1"])
        until(lambda: in_its_wait(follower.proc.pid, backend is not None),
              "the follower never waited for the run")
        follower.proc.send_signal(sent)
        code, _, err = follower.ended()
        assert (code, err) == (exits, "")


class TestResume:
    @pytest.mark.parametrize("cut", ["connections", "restart"])
    def test_a_follower_reconnects_after_its_connection_is_cut(
            self, pg_server: PgServer, pg_url: str, script: Path, cut: str,
            monkeypatch: pytest.MonkeyPatch, followers: Callable[..., Follower]) -> None:
        """The server ends every connection mid-run, or restarts: the follower says so in a
        line naming the last entry it printed, opens the ledger again, says so in another, and
        shows the moves made after, each entry once."""
        monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
        doc = start(script)
        run_id = (run_of(doc) or "")
        follower = followers(run_id, "--json")
        doc = walk(doc, WALK[:2], lambda newest: follower.until(has_id(newest)))
        last = ids_of(follower.seen)[-1]
        assert last == "t2.NOTE"
        if cut == "restart":
            pg_server.restart()
        else:  # the follower's two: its reads and its LISTEN
            assert pg_server.terminate_connections() >= 2
        walk(doc, WALK[2:], lambda newest: follower.until(has_id(newest)))
        code, lines, err = follower.ended()
        assert code == 0
        assert ids_of(lines) == ledger_ids(run_id)
        lost, back = err.splitlines()
        assert lost.startswith("skillrail trace: the run ledger cannot be read (")
        assert lost.endswith(f"; reconnecting, to go on after {last}"), lost
        assert "consuming input failed" not in lost  # psycopg's words before libpq's reason
        assert back == f"skillrail trace: reconnected; going on after {last}"

    def test_a_follower_that_printed_no_entry_goes_on_from_the_start(
            self, pg_server: PgServer, pg_url: str, script: Path,
            monkeypatch: pytest.MonkeyPatch, followers: Callable[..., Follower]) -> None:
        """At the hidden level a follower prints no entry: its lines say it goes on from the
        start (what a follower started again without --since would show)."""
        monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
        doc = start(script)
        follower = followers((run_of(doc) or ""), "--level", "hidden")
        follower.until(lambda line: line.startswith("run "))
        assert pg_server.terminate_connections() >= 2
        walk(doc, WALK, lambda _: None)
        code, lines, err = follower.ended()
        assert (code, len(lines)) == (0, 2)
        lost, back = err.splitlines()
        assert lost.endswith("; reconnecting, to go on from the start"), lost
        assert back == "skillrail trace: reconnected; going on from the start"

    def test_a_follower_killed_and_started_again_since_its_last_id_misses_nothing(
            self, backend: PgServer | None, script: Path,
            followers: Callable[..., Follower]) -> None:
        """Killed after the second move, while the agent goes on: started again with the last
        id it printed, the two together show the ledger's entries once each."""
        doc = start(script)
        run_id = (run_of(doc) or "")
        first = followers(run_id, "--json")
        doc = walk(doc, WALK[:2], lambda newest: first.until(has_id(newest)))
        first.proc.kill()
        _, before, _ = first.ended()
        doc = walk(doc, WALK[2:4], lambda _: None)
        again = followers(run_id, "--json", "--since", ids_of(before)[-1])
        walk(doc, WALK[4:], lambda newest: again.until(has_id(newest)))
        code, after, err = again.ended()
        assert (code, err) == (0, "")
        assert ids_of(before) + ids_of(after) == ledger_ids(run_id)
        assert json.loads(after[0])["kind"] == "run"


def test_a_follower_of_a_run_the_ledger_has_not_is_one_line() -> None:
    proc = skillrail("trace", "ch-000000", "--follow")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.count("\n") == 1 and "no run 'ch-000000'" in proc.stderr
