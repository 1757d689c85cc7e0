"""The one error hierarchy. The exit code lives on the class; messages are built in __str__.

Every error is shown exactly once, by the edge (`cli.main` or the `skillrail` command), as one
line: `error: <what> (<where>). <how to fix>` (PROTOCOL.md section 6).
"""


from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import NamedTuple, NoReturn
else:
    from .records import NamedTuple

#: The framework's own code: what it runs on behalf of a skill script is not where an error is.
_LIB = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep

#: Third-party modules the framework may import lazily, and the distribution providing each.
_DEPENDENCIES = {"pydantic": "pydantic", "lxml": "lxml", "yaml": "pyyaml", "jinja2": "jinja2",
                 "psycopg": "psycopg[binary]"}  # a PostgreSQL ledger's only


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """A ' Did you mean 'x'?' suffix when a candidate is close to `name`, else ''. Options are
    compared without their leading dashes, which every one shares: `--problem` is not close
    to `--from`, `--colour` is to `--color`."""
    import difflib  # only on the error path: keeps the --step path lean

    bare = {c.lstrip("-"): c for c in candidates}
    close = difflib.get_close_matches(name.lstrip("-"), list(bare), n=1, cutoff=0.6)
    return f" Did you mean '{bare[close[0]]}'?" if close else ""


#: Every control character (C0, DEL, C1) and the line separators str.splitlines breaks at, each
#: shown as the escape Python would write for it: an error line stays one line, and an escape
#: sequence in echoed input never reaches the terminal raw.
_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_ESCAPES |= {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def one_line(text: str) -> str:
    """Echoed input can hold line breaks and control characters; an error line shows each as
    an escape (`\\n`, `\\x1b`, `\\x9b`), so it stays one line and prints nothing raw."""
    return text.translate(_ESCAPES)


def shortened(text: str, width: int = 60) -> str:
    """`text` cut to `width` characters, `...` marking the cut: how an error quotes a word or a
    command it refuses."""
    return text if len(text) <= width else text[:width - 3] + "..."


def first_line(exc: BaseException) -> str:
    """What a library's exception says, in its first line (its class's name when it says
    nothing): the reason our one-line errors give after what failed."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class SkillrailError(Exception):
    """Anything that went wrong at run time; exit status 1."""

    exit_code = 1

    def __init__(self, what: str, where: str = "", fix: str = "") -> None:
        super().__init__(what)
        self.what, self.where, self.fix = what, where, fix

    def summary(self) -> str:
        """The one line: what, (where), how to fix."""
        line = self.what + (f" ({self.where})" if self.where else "")
        return f"{line}. {self.fix}" if self.fix else line

    def __str__(self) -> str:
        return self.summary()

    def lines(self) -> list[str]:
        """What goes to stderr: one line, plus any follow-up lines a subclass adds."""
        return [f"error: {one_line(self.summary())}"]


class UsageError(SkillrailError):
    """A bad invocation: unknown step, bad flag, missing or invalid --set value; exit 2."""

    exit_code = 2


class ProtocolViolation(SkillrailError):
    """An illegal transition or a finished run; exit 3, with the legal commands listed."""

    exit_code = 3

    def __init__(self, what: str, where: str = "", fix: str = "",
                 legal: Iterable[str] = ()) -> None:
        super().__init__(what, where, fix)
        self.legal = list(legal)

    def lines(self) -> list[str]:
        return super().lines() + [one_line(command) for command in self.legal]


#: What SQLite says of a ledger that opens but cannot be written (a read-only file or mount,
#: e.g. a client's sandbox over the user's state folder): a new run then goes stateless.
READ_ONLY = "readonly database"


class LedgerError(SkillrailError):
    """The run ledger could not be read or written; exit 1."""


class NewerLedger(LedgerError):
    """The ledger has a newer schema than this skillrail's: only an upgrade helps."""


class GatewayRefusal(SkillrailError):
    """A command the security gateway does not run; `rule` names the rule that refused it."""

    def __init__(self, rule: str, what: str, fix: str) -> None:
        super().__init__(f"refused by the gateway's rule '{rule}': {what}", "security gateway",
                         fix)
        self.rule = rule


class FieldError(SkillrailError, TypeError):
    """A graph type (StepDef, Workflow, Arg, ...) made with a field it does not have, without
    one it needs, or with one twice: a bug in the skill script, said in the script's terms and
    at its line. A TypeError too, as Python's own error for such a call is."""


def check_fields(name: str, fields: tuple[str, ...], defaults: Mapping[str, object],
                 args: tuple[object, ...], kwargs: Mapping[str, object]) -> None:
    """After `name(*args, **kwargs)` raised a TypeError: raise a FieldError saying what does
    not fit `fields` (those in `defaults` may be left out), or return when the call fits and
    the TypeError came from elsewhere."""
    unknown = [key for key in kwargs if key not in fields]
    twice = [key for key in fields[:len(args)] if key in kwargs]
    missing = [key for key in fields[len(args):] if key not in kwargs and key not in defaults]
    listed = f"Its fields, in order: {', '.join(fields)}"
    if unknown:
        what = f"{name} got an unknown field '{unknown[0]}'"
        fix = did_you_mean(unknown[0], fields).strip() or listed
    elif twice:
        what, fix = f"{name} got the field '{twice[0]}' twice, by position and by name", listed
    elif len(args) > len(fields):
        what, fix = f"{name} has {len(fields)} fields, but {len(args)} were given", listed
    elif missing:
        names = "', '".join(missing)
        what, fix = f"{name} is missing the field{'s' * (len(missing) > 1)} '{names}'", listed
    else:
        return
    raise_at_author(FieldError, what, fix)


def raise_at_author(kind: type[SkillrailError], what: str, fix: str) -> NoReturn:
    """Raise `kind(what, where, fix)` where `where` is the skill author's line: the first
    caller outside the framework. When that line is in the script being run, it is printed as
    the one error report (raise_in)."""
    frame, where, module = sys._getframe(1), "", None
    while frame is not None and frame.f_code.co_filename.startswith(_LIB):
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop, as intended
    if frame is not None:
        where, module = f"{frame.f_code.co_filename}, line {frame.f_lineno}", \
            frame.f_globals.get("__name__")
    raise_in(kind(what, where, fix), module)


def raise_in(error: SkillrailError, module: object) -> NoReturn:
    """Raise `error`; but when `module`, where it happened, is the script being run, print it as
    the one error report and exit 1: an agent must never meet a traceback."""
    if module == "__main__":
        sys.stderr.write("\n".join(one_line(line) for line in error.lines()) + "\n")
        raise SystemExit(1)
    raise error from None


class Finding(NamedTuple):
    """One problem of a workflow graph, with a stable code (docs/DESIGN.md section 7)."""

    code: str
    workflow: str
    message: str
    step: str | None = None
    outcome: str | None = None
    fix: str = ""

    def __str__(self) -> str:
        where = f"workflow '{self.workflow}'"
        if self.step is not None:
            where += f", step '{self.step}'"
        if self.outcome is not None:
            where += f", outcome '{self.outcome}'"
        text = f"{self.code} {where}: {self.message}"
        return f"{text}. {self.fix}" if self.fix else text

    def as_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "workflow": self.workflow, "step": self.step,
                "outcome": self.outcome, "message": self.message, "fix": self.fix}


class InvalidWorkflow(SkillrailError):
    """A workflow failed validation; carries every finding at once."""

    def __init__(self, workflow: str, findings: Iterable[Finding]) -> None:
        self.findings = list(findings)
        count = len(self.findings)
        super().__init__(f"workflow '{workflow}' has {count} problem{'s' * (count != 1)}",
                         fix="Fix each finding listed below; `skillrail validate` shows them all")

    def lines(self) -> list[str]:
        return super().lines() + [one_line(f"  {f}") for f in self.findings]

    def __str__(self) -> str:
        return "\n".join([self.summary()] + [f"  {f}" for f in self.findings])


def missing_dependency(exc: ModuleNotFoundError, where: str) -> str:
    """One line naming the missing package and the command that installs it."""
    top = (exc.name or "").partition(".")[0]
    if top not in _DEPENDENCIES:
        return f"cannot import '{exc.name}' ({where}). Check the installation of skillrail"
    said = f"the Python package '{_DEPENDENCIES[top]}' is missing ({where}). "
    return said + install_hint(sys.executable, [_DEPENDENCIES[top]], externally_managed())


def install_hint(python: str, packages: list[str], managed: bool) -> str:
    """How to install `packages` for the interpreter `python`: pip, and where the system
    manages that Python (PEP 668), where a plain `pip install` is refused, for the user."""
    import shlex

    names = " ".join(shlex.quote(p) for p in packages)
    if managed:
        return (f"{python} is the system's Python, where pip installs nothing by default. "
                f"Install for your user: {python} -m pip install --user "
                f"--break-system-packages {names}; or run the steps with the python3 of a "
                "virtual environment that has skillrail's dependencies")
    return f"Install it: {python} -m pip install {names}"


def externally_managed(python_stdlib: str | None = None) -> bool:
    """Whether this Python (or the one whose standard library is at `python_stdlib`) is marked
    as managed by the system (PEP 668: Debian's, Ubuntu's, Homebrew's), where `pip install`
    refuses to install outside a virtual environment."""
    import os
    import sysconfig

    if python_stdlib is None and sys.prefix != sys.base_prefix:
        return False  # a virtual environment: pip installs there
    folder = python_stdlib or sysconfig.get_path("stdlib")
    return os.path.isfile(os.path.join(folder, "EXTERNALLY-MANAGED"))
