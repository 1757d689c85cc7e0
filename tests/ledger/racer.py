"""Races step commands of one skill script, many times over, at the cost of a fork each.

Run as `python racer.py SCRIPT` (SCRIPT bootstraps the framework itself). It loads the script
once, as its own process would (the workflow registered, the framework imported, and psycopg
when SKILLRAIL_LEDGER names a server), then reads one JSON list of commands per line on stdin:
each a printed command's argv (`python SCRIPT FLAGS...`). For a line, it forks one process per
command; each waits on a pipe that the racer closes once all are forked, then runs the script's
main() with the command's flags, its stdout and stderr going to files of its own, and exits
with main()'s status, as a step process does (a list of one: one step process). The racer
answers with one JSON line: per command its exit status, stdout and stderr.

A step process that starts Python afresh spends a quarter of a second importing before it reaches
the ledger (psycopg alone: most of it), so processes started together reach it at moments
spread by that much; forked ones released by one pipe meet at the ledger within a millisecond,
and a trial costs their queries alone. Each forked process is a process of its own, with its own
connection to the ledger, running the code a step process runs from main() on."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import signal
import sys
import tempfile
import traceback
from typing import IO, Any, NoReturn

#: Seconds a forked step process may take (a step that waits for a lock gives up after 5).
TIMEOUT = 60
#: The modules a step of a run imports after the script's own imports.
WARM = ("xml.etree.ElementTree", "skills.lib.workflow.step.runs", "skills.lib.workflow.step.rejoin",
        "skills.lib.workflow.step.render", "skills.lib.workflow.ledger.store",
        "skills.lib.workflow.ledger.pgstore", "skills.lib.workflow.protocol.xml")


def race(main: Any, workflow: Any, argvs: list[list[str]]) -> list[dict[str, Any]]:
    gate_r, gate_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with contextlib.ExitStack() as files:
        children: list[tuple[int, IO[bytes], IO[bytes]]] = []
        for argv in argvs:
            out = files.enter_context(tempfile.TemporaryFile())
            err = files.enter_context(tempfile.TemporaryFile())
            pid = os.fork()
            if pid == 0:  # the step process
                step(main, workflow, argv, gate_r, gate_w, out, err)
            children.append((pid, out, err))
        os.close(gate_r)
        os.close(gate_w)  # the start: every process is waiting on the pipe
        results = []
        for pid, out, err in children:
            _, status = os.waitpid(pid, 0)
            out.seek(0)
            err.seek(0)
            results.append({"code": os.waitstatus_to_exitcode(status),
                            "out": out.read().decode("utf-8", "replace"),
                            "err": err.read().decode("utf-8", "replace")})
    return results


def step(main: Any, workflow: Any, argv: list[str], gate_r: int, gate_w: int, out: IO[bytes],
         err: IO[bytes]) -> NoReturn:
    """A forked step process: wait for the start, run main() on the command's flags, exit."""
    code = 70
    try:
        signal.alarm(TIMEOUT)  # a step stuck for good ends (SIGALRM), failing its race
        os.close(gate_w)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        os.read(gate_r, 1)  # until the racer closes the pipe: every process is forked
        sys.argv = argv[1:]
        code = main(workflow, argv[2:])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception:  # noqa: BLE001  (shown as a step process would show it)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(script: str) -> None:
    names = runpy.run_path(script, run_name="racer")
    main, workflow = names["main"], names["WORKFLOW"]
    # What a step process of a run imports on its way (psycopg: on a server's ledger), once.
    for module in WARM + (("psycopg",) if os.environ.get("SKILLRAIL_LEDGER") else ()):
        importlib.import_module(module)
    for line in sys.stdin:
        print(json.dumps(race(main, workflow, json.loads(line))), flush=True)


if __name__ == "__main__":
    serve(sys.argv[1])
