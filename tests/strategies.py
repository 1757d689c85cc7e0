"""Hypothesis strategies shared by the tests: random workflow graphs and hostile texts.

Graphs are built from the public types only, so a strategy never depends on how validation or
routing is implemented. Texts cover what breaks naive markup (`<`, `&`, `]]>`) and what XML 1.0
cannot carry at all (NUL, C0 controls, U+FFFE/U+FFFF, lone surrogates).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st
from skills.lib.workflow import Arg, AskUser, Outcome, Rework, StepDef, Workflow
from skills.lib.workflow.types import VERIFY_OUTPUT

#: Lowercase-kebab names, as step ids and outcome labels must be.
kebab = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,3})?", fullmatch=True)

OUTCOMES = (*(o.value for o in Outcome), "more", "design", "both")

#: Fragments that break markup built by hand, or that XML 1.0 has no character for.
HOSTILE = (
    "<", ">", "&", "]]>", '"', "'", "&amp;", "&#0;", "<!--", "<![CDATA[", "</step>",
    "\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85",
    "\t", "\n", "\r", "\r\n", "\u2028", "\ufffe", "\uffff", "\ud800", "\udfff",
    "\U0001f600", "\U0010ffff", " ", "  ", "--", "$(id)", "`", "\\", "'\\''",
)

_lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_controls = st.characters(min_codepoint=0x00, max_codepoint=0x1F)


@st.composite
def texts(draw: st.DrawFn, max_parts: int = 6) -> str:
    """Any text: ordinary unicode mixed with markup, C0 controls, non-characters and lone
    surrogates."""
    part = st.one_of(st.text(max_size=8), st.sampled_from(HOSTILE), _lone_surrogates,
                     _controls)
    return "".join(draw(st.lists(part, max_size=max_parts)))


@st.composite
def argv_texts(draw: st.DrawFn, max_parts: int = 4) -> str:
    """Any text a real process can receive as an argument: everything but NUL (execve ends
    each argument at NUL; undecodable bytes still arrive as lone surrogates)."""
    return draw(texts(max_parts)).replace("\x00", "")


def utf8_only(text: str) -> str:
    """`text` without lone surrogates: an argument the runner accepts (it refuses non-UTF-8)."""
    return "".join(c for c in text if not "\ud800" <= c <= "\udfff")


def refused(c: str) -> bool:
    """A character no --set value or param may hold: a control character (C0, DEL, C1) or one
    XML 1.0 has none for (a lone surrogate, U+FFFE, U+FFFF). Tab and LF are refused in a
    param only, and are not counted here."""
    n = ord(c)
    return (n < 0x20 and c not in "\t\n") or 0x7F <= n <= 0x9F or 0xD800 <= n <= 0xDFFF \
        or c in "\ufffe\uffff"


def accepted(text: str) -> str:
    """`text` without the characters a --set value may not hold: what the runner accepts."""
    return "".join(c for c in text if not refused(c))


@st.composite
def value_texts(draw: st.DrawFn) -> str:
    """Any --set value the runner accepts: argv text without refused characters."""
    return accepted(draw(argv_texts()))


def one_line(text: str) -> str:
    """`text` as a workflow param must be: one line, no control characters."""
    return "".join(c for c in accepted(text) if c not in "\t\n")


@st.composite
def param_texts(draw: st.DrawFn) -> str:
    """Any one-line text a param may hold (params are refused with line breaks or controls)."""
    return one_line(draw(argv_texts()))


@st.composite
def reworks(draw: st.DrawFn, targets: list[str], exits: list[str]) -> Rework:
    """A counted edge back to one of `targets` that, once used up, leads to one of `exits`."""
    return Rework(draw(st.sampled_from(targets)), draw(st.integers(1, 4)),
                  draw(st.sampled_from(exits)))


@st.composite
def targets(draw: st.DrawFn, anywhere: list[str], forward: list[str]) -> str | Rework | None:
    """Where one outcome leads: the end of the run, a step of `forward`, or a rework edge back
    to a step of `anywhere` whose exhaustion edge goes to a step of `forward`."""
    options: list[st.SearchStrategy[str | Rework | None]] = [st.none()]
    if forward:
        options += [st.sampled_from(forward), reworks(anywhere, forward)]
    return draw(st.one_of(options))


@st.composite
def conditions(draw: st.DrawFn, outcomes: list[str]) -> dict[str, str]:
    """Agent-decided `when`s: for some (usually all) of the outcomes, sometimes a stray one."""
    chosen = draw(st.lists(st.sampled_from(outcomes), unique=True)) if outcomes else []
    when = {o: f"the work calls for {o}" for o in chosen}
    if draw(st.booleans()):
        when[draw(st.sampled_from(OUTCOMES))] = "something else holds"
    return when


@st.composite
def workflows(draw: st.DrawFn, max_steps: int = 6, *, acyclic: bool = False,
              dangling: bool = True, name: str = "random-graph") -> Workflow:
    """A random workflow graph: plain, terminal (None) and rework edges with caps, dangling
    targets and exhaustion edges (when `dangling`), agent-decided `when`s, any entry.

    With `acyclic`, plain and exhaustion edges only point to later steps, so the graph minus
    its rework edges is a DAG and the first step is the entry; rework edges go anywhere.
    """
    ids = draw(st.lists(kebab, min_size=1, max_size=max_steps, unique=True))
    missing = draw(kebab.filter(lambda n: n not in ids))
    steps = []
    for i, step_id in enumerate(ids):
        anywhere, forward = list(ids), list(ids[i + 1:] if acyclic else ids)
        if dangling:
            anywhere.append(missing)
            forward.append(missing)
        outcomes = draw(st.lists(st.sampled_from(OUTCOMES), max_size=3, unique=True))
        nxt = {o: draw(targets(anywhere, forward)) for o in outcomes}
        steps.append(StepDef(step_id, f"Step {step_id}", next=nxt,
                             when=draw(conditions(outcomes))))
    entries = [st.just("")] if acyclic else [st.just(""), st.sampled_from(ids)]
    if dangling and not acyclic:
        entries.append(st.just(missing))
    return Workflow(name=name, steps=steps, entry=draw(st.one_of(entries)))


@dataclass(frozen=True)
class Texts:
    """One text for every field of a workflow that reaches the printed step."""

    description: str
    title: str
    action: str
    output: str
    forbidden: tuple[str, ...]
    describe: str
    resource_when: str
    when_go: str
    when_stop: str
    question: str
    option_yes: str
    option_no: str
    complete: str
    param: str
    memory: str


@st.composite
def field_texts(draw: st.DrawFn) -> Texts:
    """Hostile texts for every field; the values given on the command line are argv texts, and
    a param's one line of them."""
    return Texts(
        description=draw(texts()), title=draw(texts()), action=draw(texts()),
        output=draw(texts()), forbidden=tuple(draw(st.lists(texts(), max_size=3))),
        describe=draw(texts()), resource_when=draw(texts()), when_go=draw(texts()),
        when_stop=draw(texts()), question=draw(texts()), option_yes=draw(texts()),
        option_no=draw(texts()), complete=draw(texts()), param=draw(param_texts()),
        memory=draw(value_texts()))


KEYS = ("PLAN", "NOTE", "RISK")


@st.composite
def memory_workflows(draw: st.DrawFn) -> Workflow:
    """A random graph (as `workflows`) whose steps also ask for memory keys, required or not,
    on some outcomes, and read some keys; some steps are `verify` checks, which write
    VERIFY_OUTPUT on every outcome: input for the W011 dataflow check."""
    base = draw(workflows())
    steps = []
    for step in base.steps:
        args = [Arg(key, "a value", required=draw(st.booleans()),
                    outcomes=tuple(draw(st.lists(st.sampled_from(list(step.next) or ["ok"]),
                                                 max_size=1))) if step.next else ())
                for key in draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True))]
        args = [a for a in args if all(o in step.next for o in a.outcomes)]
        reads = tuple(draw(st.lists(st.sampled_from((*KEYS, VERIFY_OUTPUT)), max_size=2,
                                    unique=True)))
        verify = "true" if draw(st.integers(0, 4)) == 0 else ""
        steps.append(step._replace(args=tuple(args), reads=reads, verify=verify))
    return base._replace(steps=tuple(steps))


@st.composite
def asking_workflows(draw: st.DrawFn) -> Workflow:
    """A random graph (as `workflows`) in which some steps ask the user, an option per outcome:
    input for W008, where a question is a safe way out of an exhausted loop."""
    base = draw(workflows())
    steps = [step._replace(ask_user=AskUser("Go on?", {o: f"choose {o}" for o in step.next}),
                           when={}) if draw(st.booleans()) else step for step in base.steps]
    return base._replace(steps=tuple(steps))


#: Values a policy file's key may hold by mistake (or in a form pydantic coerces).
_ODD = st.sampled_from([None, True, False, 0, 2, 7, 3600, 3601, 0.5, 2.0, float("nan"),
                        float("inf"), 10**30, "", "2", "5", "auto", "off", "flag", "any",
                        "skill", "git", [], ["a"], ["-v"], {}, {"a": 1}])


def _mostly(valid: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(*[valid] * 7, _ODD)


def _keyed(fields: dict[str, st.SearchStrategy[object]]) -> st.SearchStrategy[object]:
    """Some of `fields` (and now and then a key the model does not know), each with a value."""
    keys = st.sampled_from([*fields, *fields, "bogus"])
    return st.dictionaries(keys, st.just(None), max_size=4).flatmap(
        lambda picked: st.fixed_dictionaries({k: fields.get(k, _ODD) for k in picked}))


_names = st.sampled_from(["git", "npm", "a.b_c+d", "ls", "git", "-x", "git status", "x/y", "",
                          "ls\n"])
_options = st.dictionaries(st.sampled_from(["-v", "--long", "--x-y", "-", "---a", "-=", "v"]),
                           _mostly(st.sampled_from(["flag", "value", "optional", "path",
                                                    "count", "bad"])), max_size=3)
_grammar = {"options": _mostly(_options),
            "operands": _mostly(st.sampled_from(["none", "any", "paths", "all"])),
            "operands_with": _mostly(st.lists(st.sampled_from(["-v", "--long", "-q"]),
                                              max_size=2)),
            "numeric": _mostly(st.booleans()), "always": _mostly(st.lists(_names, max_size=2))}
_numbers = st.sampled_from([None, 1, 5, 2.5, 600, 3600, 3600.0, 0, -1, 1_000_000])
_program = {**_grammar,
            "subcommands": _mostly(st.dictionaries(_names, _keyed(_grammar), max_size=2)),
            "interpreter": _mostly(st.sampled_from([None, "skill", "workspace", "shell"])),
            "modules": _mostly(st.lists(_names, max_size=2)), "timeout": _mostly(_numbers),
            "max_output": _mostly(_numbers), "writes": _mostly(st.booleans()),
            "local": _mostly(st.booleans())}
_plain_grammar = {"options": st.dictionaries(st.sampled_from(["-v", "--long", "-q"]),
                                             st.sampled_from(["flag", "value", "path"]),
                                             max_size=2),
                  "operands": st.sampled_from(["none", "any", "paths"]),
                  "numeric": st.booleans(), "always": st.lists(st.just("--no-pager"),
                                                                  max_size=1)}
_plain_names = st.sampled_from(["git", "npm", "a.b_c+d", "ls"])
_plain_program = st.one_of(
    _keyed(_plain_grammar),
    st.fixed_dictionaries({"subcommands": st.dictionaries(_plain_names, _keyed(_plain_grammar),
                                                          max_size=2)},
                          optional={"timeout": _numbers, "writes": st.booleans()}),
    st.fixed_dictionaries({"interpreter": st.sampled_from(["skill", "workspace"])},
                          optional={"modules": st.lists(_plain_names, max_size=2),
                                    "max_output": _numbers, "local": st.booleans()}))
#: Gateway policy data as YAML would give it: mostly plausible, now and then wrong.
policy_data = st.builds(lambda version, rest: {**version, **rest}, st.fixed_dictionaries(
    {"version": st.sampled_from([2, 2, 2, 2, 2, 1, "2", 2.0, True])}), _keyed({
    "defaults": _mostly(st.booleans()),
    "timeout": _mostly(_numbers), "max_output": _mostly(_numbers),
    "max_arg_chars": _mostly(_numbers), "max_args": _mostly(_numbers),
    "sandbox": _mostly(st.sampled_from([None, "auto", "required", "off", True, False, "on"])),
    "hide": _mostly(st.lists(st.sampled_from(["~/.x", "/srv/secret"]), max_size=2)),
    "programs": st.one_of(st.dictionaries(_plain_names, _plain_program, max_size=3),
                          _mostly(st.dictionaries(_names, _keyed(_program), max_size=3))),
    "x-options": st.just({"-v": "flag"}),
    "tests": _mostly(_keyed({
        "command": _mostly(st.sampled_from([
            ".venv/bin/python -m pytest -q", "npm test", "cargo test --offline", "", "  ",
            "pytest; rm -rf ~", "go test ${X}", "a\nb", "'unclosed", 5])),
        "timeout": _mostly(_numbers),
        "env": _mostly(st.dictionaries(st.sampled_from(
            ["CARGO_HOME", "GOPATH", "PATH", "HOME", "lower", "_X1", "1X", ""]),
            _mostly(st.sampled_from(["~/.cargo", "/opt/go", "", 3])), max_size=3))})),
    "visibility": _mostly(_keyed({
        "roles": _mostly(st.dictionaries(
            st.sampled_from(["end_user", "dev-2", "Ops", "2nd", "a b", ""]),
            _mostly(st.sampled_from(["full", "summary", "hidden", "none"])), max_size=3)),
        "sensitive_tools": _mostly(st.lists(st.sampled_from(
            ["WebFetch", "Bash(curl:*)", "mcp__github", "Bash()", "Bash(a(b))", "curl:*", ""]),
            max_size=3))})),
    "ledger": _mostly(st.sampled_from([
        None, "postgresql://db/skillrail", "postgres://u@h:5/d", "postgresql://u:pw@h/d",
        "sqlite:///x.db", "", 5]))}))


_plan_words = st.sampled_from(["x", "Do it.", "", "ünï"])
#: Odd values, among them text with a lone surrogate (JSON's "\\ud800"), which pydantic refuses
#: in a constrained string (`min_length`, `pattern`) and passes in a plain one.
_PLAN_ODD = st.sampled_from([None, 0, 1.5, True, "", "x", [], ["x"], {}, {"a": 1}, "M1",
                             "approved", "draft", "\ud800", "M1\udc80", ["a\ud800"]])


@st.composite
def plan_data(draw: st.DrawFn) -> dict[str, object]:
    """A planner plan as an agent writes it: usually valid, sometimes with one thing wrong (a
    key dropped, added or given an odd value), dependencies that may repeat or cycle."""
    ids = [f"M{n}" for n in range(1, draw(st.integers(1, 3)) + 1)]
    words = st.lists(_plan_words, min_size=1, max_size=2)
    milestones = [{"id": mid, "title": draw(_plan_words), "goal": draw(_plan_words),
                   "files": draw(words), "acceptance": draw(words),
                   **({"depends_on": draw(st.lists(st.sampled_from(ids), max_size=2))}
                      if draw(st.booleans()) else {}),
                   **({"diffs": [{"file": "a.py", "diff": draw(_plan_words)}]}
                      if draw(st.booleans()) else {})} for mid in ids]
    plan: dict[str, object] = {
        "request": draw(_plan_words), "milestones": milestones,
        "decisions": [{"decision": draw(_plan_words), "why": "It is enough.",
                       **({"rejected": draw(words)} if draw(st.booleans()) else {})}]}
    optional = {"status": st.sampled_from(["draft", "approved"]), "constraints": words,
                "risks": st.just([{"risk": "r", "mitigation": "m"}]),
                "invisible_knowledge": words}
    plan.update({k: draw(v) for k, v in optional.items() if draw(st.booleans())})
    if draw(st.booleans()):  # one thing wrong, somewhere
        records = [plan, *milestones, *plan["decisions"]]  # type: ignore[list-item]
        record = draw(st.sampled_from(records))
        key = draw(st.sampled_from([*record, "bogus"]))
        if draw(st.booleans()) and key in record:
            del record[key]
        else:
            record[key] = draw(_PLAN_ODD)
    return plan


@st.composite
def report_data(draw: st.DrawFn) -> object:
    """A review report as a reviewer writes it (conventions/qr-report.md): usually valid,
    sometimes with one thing wrong."""
    finding = st.fixed_dictionaries(
        {"id": st.sampled_from(["F1", "F2", "", "F\udc80"]),
         "severity": st.sampled_from(["MUST", "SHOULD", "COULD", "must"]),
         "location": st.sampled_from(["a.py:3", ""]), "problem": st.sampled_from(["x", ""])},
        optional={"status": st.sampled_from(["open", "resolved", "done"]),
                  "fix": st.sampled_from(["", "do y", None, "\ud800"])})
    report: dict[str, object] = {"items": draw(st.lists(finding, max_size=3))}
    if draw(st.integers(0, 3)) == 0:  # one thing wrong
        report[draw(st.sampled_from(["items", "bogus"]))] = draw(_PLAN_ODD)
    return report if draw(st.integers(0, 9)) else draw(_PLAN_ODD)


_FRONT_KEYS = st.sampled_from(["name", "description", "allowed-tools", "on", "Yes", "a_b", "1x",
                               "<<"])
_FRONT_PIECES = st.sampled_from(["a", "Bash(git diff:*)", " ", "#", " #", ":", ": ", "yes", "No",
                                 "null", "1", "2024-01-01", "-", "'", '"', "[x]", "{y}", "\t",
                                 "é", "\x85", "\u2028", ",", "*", "&", "!", "|", ">", "%", "`",
                                 "~", ".inf", "=", "0", "010", "30s", "1m30s", "500ms",
                                 "1e3", "1_000", "true", "false", "True", "0x1f", "1:30"])


@st.composite
def frontmatter_texts(draw: st.DrawFn) -> str:
    """A SKILL.md frontmatter block (the text between the --- lines): mostly `key: value`
    lines, with the characters and words YAML gives a meaning of its own."""
    lines = []
    for _ in range(draw(st.integers(0, 3))):
        value = "".join(draw(st.lists(_FRONT_PIECES, min_size=1, max_size=5)))
        if draw(st.booleans()):
            value = draw(st.sampled_from(["Finds TODOs", "tidy-todos", "Read, Grep"])) + value
        lines.append(f"{draw(_FRONT_KEYS)}: {value}" if draw(st.integers(0, 9)) else value)
    return "".join(f"{line}\n" for line in lines)
