#!/usr/bin/env python3
"""Benchmark: how soon `skillrail trace RUN --follow` stops on Ctrl-C (SIGINT) or SIGTERM while
it waits for the run to change: on the SQLite ledger, in its sleep between reads; on
PostgreSQL, in its LISTEN (a throwaway server on a Unix socket, tests/pgserver.py, when this
machine has PostgreSQL's server programs). Each round starts a run and a follower, waits until
the follower is seen in its wait (/proc: its sleep, or its poll with the LISTEN idle), sends the
signal and times the follower's exit.

Run: python benchmarks/follow_stop.py [--rounds N]
Goal (trace --follow): at once, well under the wait the signal cuts short (SQLite reads again
every 0.5 s, PostgreSQL wakes every 5 s): under 1.5 s from the signal to the exit.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.*: the ledger tests' skill script, /proc readers

from tests.ledger.support import start, write_script
from tests.procstate import polling, sleeping

GOAL_SECONDS = 1.5
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def listening(url: str) -> bool:
    """Whether a connection to the database of `url` sits idle after its LISTEN."""
    import psycopg
    from skills.lib.workflow.ledger.wakeups import CHANNEL

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND state = 'idle' AND query = %s",
                           (f"LISTEN {CHANNEL}",)).fetchone()
    return bool(row and row[0])


def stop_time(script: Path, sent: signal.Signals, waiting: Callable[[int], bool]) -> float:
    """Seconds from `sent` to the exit of a follower seen in its wait."""
    run_id = start(script).get("run", "")
    env = {**os.environ, "PYTHONPATH": str(ROOT / ".claude")}
    follower = subprocess.Popen([sys.executable, "-m", "skills.lib.workflow.commands", "trace",
                                 run_id, "--follow"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
    try:
        assert follower.stdout is not None
        follower.stdout.readline()  # the run's first line: its reads have begun
        while not waiting(follower.pid):
            if follower.poll() is not None:
                sys.exit("the follower ended before it waited")
            time.sleep(0.005)
        began = time.perf_counter()
        follower.send_signal(sent)
        follower.wait()
        return time.perf_counter() - began
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
        if follower.stdout is not None:
            follower.stdout.close()


@contextmanager
def backends() -> Iterator[list[tuple[str, str | None, Callable[[int], bool]]]]:
    """(name, SKILLRAIL_LEDGER or None for the file, how to tell its follower waits) for each
    backend this machine has."""
    from tests.pgserver import PgServer

    found: list[tuple[str, str | None, Callable[[int], bool]]] = [("sqlite", None, sleeping)]
    if PgServer.why_not():
        print(f"postgresql: not measured ({PgServer.why_not()})")
        yield found
        return
    with PgServer() as pg:
        url = pg.fresh_database()
        found.append(("postgresql", url, lambda pid: polling(pid) and listening(url)))
        yield found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="stops of each kind")
    args = parser.parse_args()
    os.environ["SKILLRAIL_HOME"] = tempfile.mkdtemp(prefix="skillrail-follow-bench-")
    script = write_script(Path(os.environ["SKILLRAIL_HOME"]) / "chain" / "scripts" / "chain.py")
    worst = 0.0
    with backends() as found:
        for name, url, waiting in found:
            os.environ.pop("SKILLRAIL_LEDGER", None)
            os.environ.update({"SKILLRAIL_LEDGER": url} if url else {})
            for sent in SIGNALS:
                times = [stop_time(script, sent, waiting) for _ in range(args.rounds)]
                worst = max(worst, *times)
                print(f"{name:10} {sent.name:7} median {statistics.median(times) * 1000:7.1f} ms"
                      f"  max {max(times) * 1000:7.1f} ms")
    print(f"goal: under {GOAL_SECONDS} s from the signal to the exit; worst {worst:.3f} s "
          f"({'met' if worst < GOAL_SECONDS else 'MISSED'})")
    return 0 if worst < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
