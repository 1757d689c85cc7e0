"""Running a workflow's step runner in-process and reading what it printed.

`run` calls the public `main(workflow, argv)` with stdout and stderr redirected to byte buffers,
so a test sees exactly the bytes a subprocess would, at a fraction of the cost (and inside
hypothesis examples, where function-scoped capture fixtures are not reset). `agent` takes the
command an agent would type (`python3 .../script.py --step 1`, `skillrail runs`) and runs it
in-process the way a new interpreter would: the script as `__main__`, with its own argv,
environment, folder and an empty workflow registry. A test whose subject is the process itself
(argv reaching a real interpreter, exit codes seen by a shell, a kill, a race, a hook as the
client calls it, the sandbox) starts a real one instead.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import CodeType, ModuleType
from typing import NamedTuple

from skills.lib.workflow import Workflow, main
from skills.lib.workflow.protocol.reading import actions, lines
from skills.lib.workflow.protocol.reading import decided as read_decided
from skills.lib.workflow.protocol.reading import invokes as offered
from skills.lib.workflow.protocol.reading import outcome as outcome_of


@dataclass(frozen=True)
class Result:
    """What one invocation returned and printed."""

    code: int
    out: bytes
    err: bytes

    @property
    def returncode(self) -> int:
        """The exit status, named as subprocess.CompletedProcess names it."""
        return self.code

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
    return captured(partial(_command, argv))


#: What `python3 -m MODULE` runs `skillrail` as.
COMMANDS_MODULE = "skills.lib.workflow.commands"


def agent(argv: list[str], env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
          stdin: bytes = b"") -> Result:
    """Run `argv` as an agent's shell would, in this process: a Python script
    (`python3 SCRIPT ARGS`, any interpreter name), `python3 -m skills.lib.workflow.commands ARGS`
    or `skillrail ARGS`. `env` replaces the environment, as subprocess's does (None: this
    process's); `cwd` is the folder it runs in. The exit status is what the process would have
    ended with: main's return or SystemExit's code, and 1 with the traceback on stderr for an
    exception that would have escaped the interpreter."""
    target = _target([_as_argv(w) for w in argv])
    if target is None:
        raise ValueError(f"agent() runs Python step scripts and skillrail, not {argv[0]!r}")
    with _process(env, cwd, stdin), _new_registry():
        return captured(partial(_exit_status, target))


def shell(argv: list[str], cwd: str | Path | None = None, env: Mapping[str, str] | None = None,
          stdin: str = "", process: bool = False) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(argv, capture_output=True, text=True, ...)` as a test of a command's
    behaviour wants it: in this process when `agent` can run `argv` (a step script, skillrail),
    else in a process of its own (git, bash, a script of another framework copy); with
    `process`, in a process of its own whatever it is, for a test whose subject is the process."""
    if not process and runs_in_process(argv):
        done = agent(argv, env=env, cwd=cwd, stdin=stdin.encode())
        return subprocess.CompletedProcess(argv, done.code, done.stdout, done.stderr)
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, input=stdin,
                          env=None if env is None else dict(env), timeout=120)


def _as_argv(word: str | Path) -> str:
    """`word` as a new interpreter's sys.argv holds it: a string decoded from the command line,
    never the very object a test's literal is. argparse (3.11) takes an option's value that *is*
    its default for no value given, so a literal 'text' would slip past a mutually exclusive
    group that the same word typed in a shell trips."""
    return str(word).encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def runs_in_process(argv: list[str]) -> bool:
    """Whether `agent` can run `argv`."""
    return _target([str(w) for w in argv]) is not None


def _target(words: list[str]) -> Callable[[], object] | None:
    if Path(words[0]).name == "skillrail":
        return partial(_command, words[1:])
    if words[1:3] == ["-m", COMMANDS_MODULE]:
        return partial(_command, words[3:])
    if Path(words[0]).name.startswith("python") and words[1:] and words[1].endswith(".py") \
            and _same_framework(words[1]):
        return partial(_script, words[1], words[2:])
    return None


def _same_framework(script: str) -> bool:
    """Whether `script` would import the framework this process has loaded: a script in a
    project holding a copy of its own (`skillrail init`, `install --copy`) imports that copy
    (its bootstrap puts the folder above its `skills` first on the path), and only a new
    interpreter runs it as it is there, edited or not."""
    import skills.lib.workflow as loaded

    real = os.path.realpath(script)
    root, found, _ = real.rpartition(f"{os.sep}skills{os.sep}")
    if not found:
        return True
    theirs = Path(root, "skills", "lib", "workflow")
    return not theirs.is_dir() or theirs.resolve() == Path(loaded.__file__).resolve().parent


def _command(args: list[str]) -> int:
    from skills.lib.workflow.commands import main as command

    return command(args)


#: Each script's code, by its path and text: a script run as `__main__` is compiled on every run
#: (no bytecode cache), which in-process runs would pay thousands of times over.
_COMPILED: dict[tuple[str, bytes], CodeType] = {}


def _script(path: str, args: list[str]) -> None:
    """The script as `__main__`, as `python3 SCRIPT ARGS` runs it (as runpy.run_path would, but
    compiling each text of a script once)."""
    sys.argv = [path, *args]
    source = Path(path).read_bytes()
    code = _COMPILED.get((path, source))
    if code is None:
        code = _COMPILED[(path, source)] = compile(source, path, "exec", dont_inherit=True)
    main_module = ModuleType("__main__")
    main_module.__dict__.update(__file__=path, __cached__=None, __loader__=None,
                                __package__=None, __spec__=None)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main_module
    try:
        exec(code, main_module.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


@contextmanager
def _new_registry() -> Iterator[None]:
    """The workflow registry a new interpreter starts with, empty (so a workflow another test's
    script registered under the same name is no duplicate), and this one's back afterwards."""
    from skills.lib.workflow.authoring import registry

    saved, by_source = dict(registry._REGISTRY), dict(registry._BY_SOURCE)
    registry._REGISTRY.clear()
    registry._BY_SOURCE.clear()
    try:
        yield
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)
        registry._BY_SOURCE.clear()
        registry._BY_SOURCE.update(by_source)


def _exit_status(target: Callable[[], object]) -> int:
    try:
        returned = target()
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except Exception:  # noqa: BLE001 - any exception would escape the interpreter
        traceback.print_exc()
        return 1
    return returned if isinstance(returned, int) else 0


@contextmanager
def _process(env: Mapping[str, str] | None, cwd: str | Path | None,
             stdin: bytes) -> Iterator[None]:
    """This process made to look like a new one for a while: its environment, folder, argv,
    import path and stdin, each put back afterwards."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_argv, saved_path, saved_stdin = sys.argv, list(sys.path), sys.stdin
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        yield
    finally:
        sys.stdin = saved_stdin
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
        if os.environ != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)


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
    """The element of `<NEXT>` holding the command for `outcome` (the only one when `outcome`
    is None): `<NEXT>` itself for a linear step, else one of its `<invoke>`s."""
    found = offered(doc)
    if outcome is None:
        assert len(found) == 1, f"expected one command, found {len(found)}"
        return found[0]
    matching = [i for i in found if outcome_of(i) == outcome]
    assert len(matching) == 1, f"expected one <invoke outcome={outcome!r}>"
    return matching[0]


def run_of(doc: ET.Element) -> str | None:
    """The run a printed step belongs to: its root's `run` (where the mandate is), else the
    `--run` its commands name (PROTOCOL.md section 2)."""
    from skills.lib.workflow.protocol.reading import run

    return run(doc)


def cmd_text(held: ET.Element) -> str:
    """The command an element of `<NEXT>` holds (see `invoke`): its `<cmd>`, or a linear
    `<NEXT>`'s own text."""
    return held.findtext("cmd") or (held.text or "").strip()


def command_argv(doc: ET.Element, outcome: str | None = None) -> list[str]:
    """The flags of an `<invoke>`'s command: its words after the interpreter and script."""
    words = shlex.split(cmd_text(invoke(doc, outcome)))
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
    prompt = "" if dispatch is None else (dispatch.findtext("prompt") or "")
    for line in prompt.splitlines():
        if line.startswith(SUBAGENT_LEAD):
            return line[len(SUBAGENT_LEAD):]
    return ""


def decided(doc: ET.Element) -> list[tuple[str, str]]:
    """(step, outcome) of each script-decided step the run passed through before `doc`."""
    return [(d.step, d.outcome) for d in read_decided(doc)]


def notes(doc: ET.Element) -> list[str]:
    """The note of each script-decided step the run passed through before `doc`."""
    return [d.note for d in read_decided(doc)]


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


def in_process(cmd: list[str], env: dict[str, str], cwd: str) -> subprocess.CompletedProcess[str]:
    """tools/simulate's Runner for a walk in this process: each printed command run by `shell`.
    `skillrail simulate` (CI runs it over every skill) walks the same edges in real processes."""
    return shell(cmd, cwd=cwd, env=env)


class Banner(NamedTuple):
    """What a `<banner>`'s text says (protocol 2.0 gives it no attributes): the review loop it
    belongs to (None for a plain loop), the pass, the limit, and for a review loop's work step
    on a later pass, "fix"; its review step, "fresh-review"."""

    loop: str | None
    n: int
    limit: int
    mode: str | None


_BANNER = re.compile(r"(?:Review loop '(?P<loop>[^']+)', )?(?:[Pp]ass|Attempt|iteration) "
                     r"(?P<n>\d+)(?: of (?:at most )?(?P<limit>\d+))?")


def banner(element: ET.Element | None) -> Banner | None:
    """The banner `element` read back, or None when there is none."""
    if element is None:
        return None
    text = element.text or ""
    found = _BANNER.search(text)
    if found is None:  # a loop's last word ("the 4 passes are used up"), or a legacy banner
        used = re.search(r"(?:Review loop '(?P<loop>[^']+)': )?the (?P<n>\d+) passes", text)
        loop, n = (used["loop"], int(used["n"])) if used else (None, 0)
        return Banner(loop, n, n, None)
    mode = ("fix" if "Fix the blocking findings" in text or "fix pass" in text
            else "fresh-review" if text.endswith(": the review.") or "a fresh review" in text
            else None)
    limit = found["limit"] or found["n"]
    return Banner(found["loop"], int(found["n"]), int(limit), mode)


def first_action(doc: ET.Element) -> str:
    """The text of the first action of a step's `<DO>` ("" when it has none)."""
    found = actions(doc)
    return found[0].text if found else ""


def next_cmd_text(doc: ET.Element) -> str:
    """The text of the first command a step's `<NEXT>` offers ("" when it ends the run)."""
    found = offered(doc)
    return cmd_text(found[0]) if found else ""


def listed(doc: ET.Element, kind: str, name: str) -> str | None:
    """The path of the resource or convention (`kind`) called `name` that a step lists or
    inlines, or None: a listed one is a `<DO>` line, an inlined one an element."""
    for line in lines(doc.find("DO")):
        if line.kind == kind and line.path and Path(line.path).stem == name:
            return line.path
    for element in doc.iterfind(f"DO/{kind}"):
        if Path(element.get("path", "")).stem == name or element.get("name") == name:
            return element.get("path", "")
    return None
