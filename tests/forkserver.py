"""Step scripts run as fresh processes at the cost of a fork: a warm interpreter that has
imported the framework's step path once, and forks a child per command.

Run as `python forkserver.py FRAMEWORK_ROOT` (the folder holding `skills/`), in the cwd and
environment the commands are to run in. It imports the modules every step imports (the
framework's package, its step path, ElementTree), and refuses to serve (exit 3, a line on
stderr) if that loaded any library kept off the step path: a child could not then tell its own
imports from the server's. Then it reads one JSON command per line on stdin, a printed
command's argv (`python SCRIPT FLAGS...`); for each it forks a child that runs SCRIPT as
`__main__`, with that argv, its script folder first on sys.path, stdout and stderr to files of
its own, and exits with the script's status after running the exit handlers a process runs
(the import probe's among them). The server answers with one JSON line: the exit status,
stdout and stderr.

`Server` is the test side: `Server(root, env, cwd).run` is a simulate `Runner`."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

#: Seconds a child may take, as simulate's own runner allows a command.
TIMEOUT = 60
#: What every step imports before it reaches its script's own work.
WARM = ("xml.etree.ElementTree", "skills.lib.workflow", "skills.lib.workflow.step.cli",
        "skills.lib.workflow.step.render", "skills.lib.workflow.protocol.xml")


def child(argv: list[str], out: Any, err: Any) -> None:
    """In the forked child: run the command's script as its own process would, then exit."""
    code = 70
    try:
        signal.alarm(TIMEOUT)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        script = argv[1]
        sys.argv = argv[1:]
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001  (shown as a step process would show it)
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()  # what the interpreter does on its way out
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(root: str) -> None:
    sys.path[0] = root  # not this file's folder, which no step would have
    for module in WARM:
        importlib.import_module(module)
    heavy = [m for m in ("pydantic", "yaml", "jinja2", "lxml", "psycopg") if m in sys.modules]
    if heavy:
        sys.stderr.write(f"error: the warm imports loaded {', '.join(heavy)}\n")
        os._exit(3)
    for line in sys.stdin:
        argv = json.loads(line)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                child(argv, out, err)
            _, status = os.waitpid(pid, 0)
            out.seek(0)
            err.seek(0)
            answer = {"code": os.waitstatus_to_exitcode(status),
                      "out": out.read().decode("utf-8", "replace"),
                      "err": err.read().decode("utf-8", "replace")}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    os._exit(0)  # not the exit handlers: the server printed no step


class Server:
    """A fork server for commands run in one cwd and environment; close() ends it."""

    def __init__(self, root: Path, env: dict[str, str], cwd: Path) -> None:
        self.env, self.cwd = env, str(cwd)
        self.proc = subprocess.Popen([sys.executable, __file__, str(root)], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def run(self, cmd: list[str], env: dict[str, str], cwd: str
            ) -> subprocess.CompletedProcess[str]:
        """Run `cmd` in a forked child, as simulate's default runner runs it in a process."""
        assert (env, cwd) == (self.env, self.cwd), "one server serves one cwd and environment"
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            _, problem = self.proc.communicate()
            raise RuntimeError(f"the fork server ended: {problem.strip()}")
        answer = json.loads(line)
        return subprocess.CompletedProcess(cmd, answer["code"], answer["out"], answer["err"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=TIMEOUT)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


if __name__ == "__main__":
    serve(sys.argv[1])
