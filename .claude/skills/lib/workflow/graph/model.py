"""A workflow as data, in one module: the parts a step is built from and a workflow's params,
the small value types of the graph, what a handler sees of an invocation (`StepContext`), the
forms of the original system a step takes in, `StepDef`, `Workflow`, and the helpers every
layer above reads them with. Registering a workflow (authoring/registry.py) validates it.

Every type is an immutable NamedTuple rather than a frozen dataclass: equally immutable, and
several times cheaper to define, which every `--step` invocation pays at import. A call that
does not fit one's fields is a FieldError (fields.py)."""

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple, Self, TypeVar

from ..base.errors import FieldError, Finding, UsageError, did_you_mean, raise_at_author
from ..base.paths import skill_folder as skill_folder  # named here too, as before
from .fields import built, checked, signed

# -- the parts a step is built from, and a workflow's params: instructions, the values
# the agent reports, the user's choice, files to read, sub-agents.

#: Text that may depend on the invocation (params, reported values, loop position).
Text = str | Callable[["StepContext"], str]


class Action(NamedTuple):
    """One instruction of a step's `<DO>`, shown as a line `- text` (`- KEY: text` with
    `out`). A plain string in a step's `actions` is an Action without `out`.

    A static text is substituted before it is printed: `${SKILL_DIR}`, `${WORKSPACE}`,
    `${DATE}`, `${USER}`, `${SESSION_ID}` and `$ARGUMENTS` become their values (`$${NAME}`
    stays a literal `${NAME}`), and `` !`cmd` `` runs the command through the gateway and
    shows its output as a `<context>` (docs/gateway.md). A text a function returns is
    printed exactly as returned, never substituted, since it may hold values the agent
    reported: compute what it needs in the function (`time.strftime("%Y-%m-%d")` for a date).

    Attributes:
        text: The instruction, one imperative sentence or a few; or a function of the
            `StepContext` that returns it (a `Template` is one), for text that depends on the
            params, the values reported so far or the loop's pass.
        out: Where the result of this instruction must land: the key of one of the step's
            `Arg`s (the agent reports it with the next command), or `"reply"` (it is part of
            the answer the user gets). None: the instruction produces nothing to keep. W013
            refuses an `out` that names no arg of the step.
    """

    text: Text
    out: str | None = None


class Arg(NamedTuple):
    """A value the agent reports with `--set KEY=VALUE` when it runs the next command. Each
    command of the step's `<NEXT>` lists the args it needs as `<arg>` elements; the run keeps
    each value in its memory under the key, where later steps `reads` it.

    Attributes:
        key: The memory key, in UPPER_SNAKE (W015), e.g. `ROOT_CAUSE`.
        describe: What the value holds, shown to the agent in the `<arg>`. May be left empty
            when an action of the step with `out=KEY` says what it holds: the step then says it
            once, in that action (W013 refuses an arg that neither describes).
        required: Whether the command refuses to run without the value. Only a required
            arg counts as written when W011 checks a later step's `reads`.
        choices: When given, the only values accepted (`choices=("low", "high")`).
        outcomes: Limits the arg to the commands of these outcomes; empty: every command of
            the step asks for it.
        check: `check(value, params)` returns what is wrong with a reported value and how to
            fix it, or None: a value it refuses is refused with the command, and the run does
            not move (e.g. a plan file that fails its schema).
        sample: For `skillrail simulate` only: a value `check` accepts, made in the walk's
            folder (e.g. a sample file written there, and its path returned).
        distinct: A value the run already recorded for this key is refused the same way (a
            retry must name an approach not yet tried). A run in the ledger checks it; a
            stateless invocation, which has no history, cannot.
    """

    key: str
    describe: str = ""
    required: bool = True
    choices: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()
    check: Callable[[str, Mapping[str, str]], str | None] | None = None
    sample: Callable[["StepContext"], str] | None = None
    distinct: bool = False

    def asked_on(self, outcome: str) -> bool:
        return not self.outcomes or outcome in self.outcomes


class Param(NamedTuple):
    """A workflow-level flag such as `--decision TEXT`, given on the entry step's command and
    kept by the run: every step sees it in `ctx.params`, and the generated SKILL.md section
    lists it with its help.

    Attributes:
        name: The flag's name without dashes, in lowercase-kebab; not one of the flags the
            step runner owns, such as `step` or `run` (W015).
        help: What to give, in one line (`--help` and SKILL.md show it).
        required: Whether a run refuses to start without it. A required param is shown to
            the agent with its value, in `<params>`, on the entry step and wherever the rules
            are stated in full (`ctx.params_shown`), so the step's texts need not repeat it.
        default: The value the run keeps when the flag is not given.
        choices: When given, the only values accepted.
        check: Returns what is wrong with a given value and how to fix it, or None; checked
            before a run starts, so a bad value never leaves a run behind.
        sample: The value `skillrail simulate` gives it (else it makes one up).
        samples: Further values simulate gives it, walk by walk after `sample`: one per
            branch the value leads to.
    """

    name: str
    help: str
    required: bool = False
    default: str | None = None
    choices: tuple[str, ...] = ()
    check: Callable[[str], str | None] | None = None
    sample: str | None = None
    samples: tuple[str, ...] = ()


class AskUser(NamedTuple):
    """Makes the user decide a step: `ask_user=AskUser("Approve the plan?", {"approve": "Yes,
    go on", "reject": "No, revise it"})`. The step shows an `<ask_user>` question; the agent
    must put it to the user and wait, and the option the user picks is the outcome that
    routes the run (the commands of `<NEXT>`, one per option).

    Attributes:
        question: The question, as the user should read it; or a function of the
            `StepContext` that returns it.
        options: Each outcome of the step's `next`, mapped to the option's label the user
            chooses from. Every outcome needs an option (W010).
        in_advance: The option a standing approval chooses: the user may approve the
            question before it is put (`--approve STEP` in their prompt, or `skillrail
            approve`), and the run then passes it without waiting. None (the default): the
            question is always asked, whatever the user approved in advance; leave it so for a
            destructive or irreversible action. A function of the `StepContext` may return
            None for a visit that must be asked (the plan proposes a command the policy
            refuses, say).
        kind: A name for what the question decides ("plan approval"), which a standing
            approval may name instead of the step's id; '' for none.
    """

    question: Text
    options: Mapping[str, str]
    in_advance: str | Callable[["StepContext"], str | None] | None = None
    kind: str = ""

    def advance(self, ctx: "StepContext") -> str | None:
        """The option a standing approval chooses at this visit, or None: ask the user."""
        return self.in_advance(ctx) if callable(self.in_advance) else self.in_advance


class Resource(NamedTuple):
    """A supporting file of the skill, in its folder (e.g. `resources/plan-format.md`), listed
    in the step's `<DO>` for the agent to read when it needs it, or inlined.

    Attributes:
        name: A short name for it (the step shows the file's path).
        path: Where it is, relative to the skill folder; W016 refuses a file that does not
            exist.
        when: When to read it, shown as the element's text.
        inline: Show the file's whole text in the step instead of its path, for a step that
            needs it verbatim.
    """

    name: str
    path: str
    when: str
    inline: bool = False


class ConventionRef(NamedTuple):
    """A shared convention, `conventions/<name>.md` at the repository root (severity,
    qr-report, diff-format, ...), listed in the step's `<DO>` or inlined.

    Attributes:
        name: The convention's name: its file name without `.md`.
        when: When to read it, for a listed one.
        inline: Show its whole text in the step instead of its path.
    """

    name: str
    when: str = ""
    inline: bool = False


class Dispatch(NamedTuple):
    """Hands work to a sub-agent (PROTOCOL.md section 4), as a step's `dispatch`: the step
    shows a `<dispatch>` whose prompt the orchestrator passes to its sub-agent tool unchanged,
    and runs the step's `<NEXT>` once every reply is in. With `script`, the sub-agent follows
    that step script, started as a sub-run of this run; without, the prompt is the whole brief.

    As a step's `handler` (the original system's form), the step's actions become the brief
    and the sub-agent's verdict picks the outcome (see StepDef).

    Attributes:
        agent: The sub-agent type to start (e.g. `"quality-reviewer"`), or a function of the
            `StepContext` that picks it at run time.
        prompt: The brief, verbatim. The prompt shown adds the item, the variables, the start
            command (with `script`) and the reply format.
        expect: The reply the sub-agent must give, shown as `Reply with: ...`.
        script: A step script for the sub-agent to follow, relative to the skill folder (e.g.
            `scripts/qr/review.py`); W012 refuses one that does not exist or does not accept
            `params`. None: the prompt is the whole brief.
        items: A function of the `StepContext` that returns the items to hand out: one
            parallel sub-agent per item, each told its item (`each_line("AREAS")`). An empty
            list starts none.
        instances: Without `items`, how many identical sub-agents to start in parallel.
        vars: Named values the prompt lists, each a text or a function of the `StepContext`
            (`value_of(KEY)` passes a reported value); a function that returns None leaves
            its variable out of that prompt.
        model: The model to ask for, or a function that picks it; None: the agent's default.
        context: The sub-agent's context: `"fresh"`, none of the parent conversation; the
            protocol's schema reserves `"fork"` for one that inherits it.
        required: Whether the orchestrator must wait for the replies before it runs
            `<NEXT>`; False: `<NEXT>` may be run without them.
        params: Flags the sub-agent's script takes on its first command
            (`--name=value`), each a text or a function of the `StepContext`.
        fix: What the sub-agent must fix this time (qr_loop sets it on a review loop's work
            step: the last review's blocking findings on a fix pass, "" on the first). With
            `script`, the sub-run starts with `--fix` and holds it as FIX_FINDINGS, for its
            steps to work from; without, the prompt carries it.
    """

    agent: Text
    prompt: Text = ""
    expect: str = ""
    script: str | None = None
    items: Callable[["StepContext"], list[str]] | None = None
    instances: int = 1
    vars: Mapping[str, Text] = MappingProxyType({})
    model: Text | None = None
    context: str = "fresh"
    required: bool = True
    params: Mapping[str, Text] = MappingProxyType({})
    fix: Text | None = None


for _part in (Action, Arg, Param, AskUser, Resource, ConventionRef, Dispatch):
    checked(_part)


# -- the small value types a workflow graph is made of.

class Outcome(StrEnum):
    """The standard outcome labels (PROTOCOL.md section 3): the keys of a step's `next` and
    `when`. Each is a string (`Outcome.OK == "ok"`), so a workflow may use labels of its own
    beside them (`"design"`, `"retry"`), in lowercase-kebab.

    Attributes:
        OK: The step did what it set out to do; the usual way on. A `verify` check whose
            command exits 0 decides it.
        FAIL: It did not (a check or a test failed); a `verify` check whose command exits with
            any other status decides it.
        ITERATE: Go round a loop once more, usually by a `Rework` edge.
        SKIP: The step's work does not apply this time; go past it.
        APPROVE: A reviewer or the user accepts the work.
        REJECT: A reviewer or the user sends it back.
        ESCALATE: Hand the decision to the user.
    """

    OK = "ok"
    FAIL = "fail"
    ITERATE = "iterate"
    SKIP = "skip"
    APPROVE = "approve"
    REJECT = "reject"
    ESCALATE = "escalate"


#: The memory key of a `verify` step's check output (written by the script, read by fix steps).
VERIFY_OUTPUT = "VERIFY_OUTPUT"
#: The outcomes a `verify` check decides: its command's exit status 0 is 'ok', else 'fail'.
VERIFY_OUTCOMES = frozenset({"ok", "fail"})

#: A script-decided step's handler: computes the outcome from the invocation, or the outcome and
#: the step's state (a dict of JSON values, kept in the run and seen next time as
#: `ctx.step_state`). Declaring the outcomes it may return with `@decides(...)` lets validation
#: compare them with `next` (W009); undeclared, it may return any outcome `next` maps.
Handler = Callable[["StepContext"], "str | tuple[str, Mapping[str, Any]]"]
#: Memory keys under which the runner keeps each step's state: `step_state:<step id>`. No arg can
#: name one (a key is a word), so the agent cannot forge a handler's state.
STEP_STATE = "step_state:"
#: Memory keys the runner writes when an orchestrator does a sub-agent's work itself (`--self`,
#: for want of a sub-agent tool): `run_by` = "self" in the sub-run, and `self_done` in the
#: parent run, one line per such sub-run, which the parent's final step reports to the user.
RUN_BY, SELF_DONE = "run_by", "self_done"
#: A fix pass handed to a sub-run (`Dispatch.fix`): the step that dispatches it writes what to
#: fix as `fix_brief` when it is printed; a sub-run started with `--fix` then holds it as
#: FIX_FINDINGS, which its steps read.
FIX_BRIEF, FIX_FINDINGS = "fix_brief", "FIX_FINDINGS"
#: The request in the user's own words: what the user last typed in the session before the run
#: started (the hooks record it), kept by the run and its sub-runs, and given to every reviewer
#: sub-agent as USER_REQUEST beside the agent's restatement.
USER_WORDS = "user_words"


#: The function `@decides` marks, returned unchanged.
HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


def decides(*outcomes: str) -> Callable[[HandlerT], HandlerT]:
    """Declare the outcomes a handler may return: `@decides("ok", "iterate")` above
    `def assess(ctx): ...`. Registration then compares them with the step's `next` (W009): an
    outcome the handler may return that `next` does not map, or one `next` maps that it never
    returns, is a finding. An undeclared handler may return any outcome `next` maps; another is
    an error naming the step when the step runs."""

    def mark(fn: HandlerT) -> HandlerT:
        # A function takes attributes; its type does not declare this one.
        fn.outcomes = frozenset(str(o) for o in outcomes)  # type: ignore[attr-defined]  # above
        return fn

    return mark


def handler_outcomes(fn: Handler) -> frozenset[str] | None:
    """The outcomes a handler declared with `@decides`, or None when it declared none."""
    return getattr(fn, "outcomes", None)


class Rework(NamedTuple):
    """A counted edge back into a loop, as the target of an outcome in `next`:
    `next={"iterate": Rework("draft", 3, "ask-user")}`. Taking it is one more pass through
    the loop; once the passes are used up, the same outcome leads to `on_exhausted` instead.
    Each step of the loop shows the pass it is in and what happens at the limit.

    Attributes:
        target: The step the edge leads back to.
        max_iterations: The passes through the loop at most, the first pass included; at
            least 2 (W008), since a cap of 1 leaves nothing to redo. "At most 3 fixes" after
            a first try is `Rework("fix", 4, "ask-user")`: the first pass and three more.
        on_exhausted: The step the outcome leads to once the passes are used up: outside the
            loop, and one that asks the user or leads to the end without entering the loop
            again (W008).
        counter: The name of a count several rework edges share (lowercase-kebab): their
            passes add up against one cap, a budget of the whole run, and such an edge may
            lead forward as well as back. Empty: the edge counts alone, as `step:outcome`.
    """

    target: str
    max_iterations: int
    on_exhausted: str
    counter: str = ""


class QRRole(NamedTuple):
    """A step's part in a quality-review loop built by `qr_loop`: 'work', 'review', 'gate' or
    'escalate' of the loop named `checkpoint`, whose failed gates the edge `counter` counts."""

    checkpoint: str
    role: str
    counter: str
    limit: int
    extra: tuple[str, ...] = ()  # counters of the extra rounds the user may grant


#: A transition target: a step id, a counted rework edge, or None (the run ends).
Target = str | Rework | None


def target_id(target: Target) -> str | None:
    """The step a target names, or None for a terminal."""
    return target.target if isinstance(target, Rework) else target


class Edge(NamedTuple):
    """One transition of the graph, as validation and rendering see it."""

    source: str
    outcome: str
    target: str | None
    rework: Rework | None = None

    @property
    def key(self) -> str:
        """How a loop counter names this edge: `step:outcome`, or the counter it shares."""
        if self.rework is not None and self.rework.counter:
            return self.rework.counter
        return f"{self.source}:{self.outcome}"


checked(Rework)


# -- what a handler or a dynamic text sees of the current invocation (`StepContext`): the
# workflow and step, the run's params, values and loop counters, and the step's own kept state.

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class StepContext(NamedTuple):
    """What a handler, a `verify` function or a dynamic text (a function given where a text
    goes) sees of the current invocation; the framework makes it. Besides its fields:
    `ctx.passes("step:outcome")` is how often a rework edge has been taken in this run;
    `ctx.params_shown` says whether the step prints the required params (`<params>`), so a
    text need not repeat them; `ctx.step_state` is what the step's handler last returned as
    its state; `ctx.workflow_params` holds the params and reported values under the original
    system's names.

    Attributes:
        workflow: The workflow being run.
        step: The step being printed or decided.
        params: The run's params, given on the entry step's command (defaults filled in).
        values: The run's memory: the latest value reported for each key.
        counts: How often each rework edge has been taken, by `step:outcome`.
        run: The run's id; None in stateless mode.
        hops: The run's position: the moves it has made.
        arrived: The edge `step:outcome` of the move that led here, when known.
        fresh: The keys the agent reported with the command that led here, which the step
            does not echo back to it.
        full: Whether the step states the protocol's rules in full (the first step an agent
            is shown, a reprint) or points back to them.
    """

    workflow: "Workflow"
    step: "StepDef"
    params: Mapping[str, str] = _EMPTY
    values: Mapping[str, str] = _EMPTY
    counts: Mapping[str, int] = _EMPTY
    run: str | None = None
    hops: int = 0
    arrived: str | None = None
    fresh: frozenset[str] = frozenset()
    full: bool = True

    def passes(self, edge_key: str) -> int:
        """How many times the rework edge `step:outcome` has been taken in this run."""
        return self.counts.get(edge_key, 0)

    @property
    def params_shown(self) -> bool:
        """Whether the step prints the workflow's required params with their values
        (`<params>`): its entry step does, a loop back to it included, as does every step
        that states the rules in full (the first one an agent is shown, a reprint). A text of
        such a step need not repeat them."""
        return self.full or self.step.id == self.workflow.entry

    @property
    def step_state(self) -> dict[str, Any]:
        """What this step's handler returned as its state the last time it ran in this run
        (a fresh dict: {} before that). A stateless invocation keeps it only while the script
        passes through steps itself; a run in the ledger keeps it for the run's life."""
        raw = self.values.get(STEP_STATE + self.step.id)
        if not raw:
            return {}
        import json

        state: dict[str, Any] = json.loads(raw)
        return state

    @property
    def workflow_params(self) -> dict[str, str]:
        """The run's parameters (`Param`s, given on the entry step) and the values the agent
        reported so far (`--set KEY=VALUE`), each under its key and its key in lowercase (the
        original system's names: `workflow_params["confidence"]` is a reported CONFIDENCE); a
        reported value wins over a param of the same name."""
        reported = {k: v for k, v in self.values.items() if not k.startswith(STEP_STATE)}
        return {**self.params, **{k.lower(): v for k, v in reported.items()}, **reported}


# -- the forms of the original system that a StepDef takes in: actions holding the pieces the
# format_* functions make (`Fragment`s, each becoming the step's own part), and a `Dispatch`
# given as the handler (the step handed to a sub-agent whose verdict picks the outcome). StepDef
# applies them when it is made; `check_pieces` (W019) refuses what cannot be placed.

class Fragment(str):
    """A piece of protocol markup made by a format_* function (formatters/). It prints as
    well-formed XML (it is a str, as the original functions returned), and remembers what it
    stands for, so actions may hold it: `part` is (kind, value), kind one of 'action',
    'forbidden', 'expect', 'dispatch', 'banner' (whose value is the banner as the protocol
    layer draws it)."""

    part: tuple[str, Any]

    def __new__(cls, markup: str, kind: str, value: Any) -> "Fragment":
        made = super().__new__(cls, markup)
        made.part = (kind, value)
        return made


def fragment_parts(actions: "tuple[Action | str, ...] | list[Any]",
                   banners: bool) -> dict[str, list[Any]]:
    """Sort actions that may hold format_* pieces into the StepDef parts they stand for:
    'actions', 'forbidden', 'expect' and 'dispatch'. A banner becomes an action when `banners`,
    else it is dropped (a review loop draws its own)."""
    parts: dict[str, list[Any]] = {"actions": [], "forbidden": [], "expect": [], "dispatch": []}
    for item in actions:
        if not isinstance(item, Fragment):
            parts["actions"].append(item)
            continue
        kind, value = item.part
        if kind == "forbidden":
            parts["forbidden"].extend(value)
        elif kind in ("expect", "dispatch"):
            parts[kind].append(value)
        elif kind == "action":
            parts["actions"].append(value)
        elif kind == "banner" and banners:  # its value is the banner's view: keep its text
            parts["actions"].append(getattr(value, "text", str(value)))
    return parts


def with_fragments(step: "StepDef") -> "StepDef":
    """Actions holding format_* pieces: each piece becomes the step's own part. With more than
    one dispatch the pieces stay where they are, for validation to refuse (W019)."""
    parts = fragment_parts(step.actions, banners=True)
    if len(parts["dispatch"]) + (step.dispatch is not None) > 1:
        return step
    return step._replace(actions=tuple(parts["actions"]),
                         forbidden=step.forbidden + tuple(parts["forbidden"]),
                         expect="\n".join(filter(None, [step.expect, *parts["expect"]])),
                         dispatch=step.dispatch or (parts["dispatch"] or [None])[0])


#: The word a sub-agent answers with for each standard outcome of a dispatching step.
_VERDICT = {"ok": "PASS", "fail": "FAIL"}


def handed_over(step: "StepDef") -> "StepDef":
    """`handler=Dispatch(...)`: the sub-agent does the step's actions (its brief, unless the
    Dispatch gives a prompt) and answers with a verdict word per outcome; the orchestrator
    relays the verdict by choosing that outcome's command."""
    dispatch = step.handler
    assert isinstance(dispatch, Dispatch)
    words = {o: _VERDICT.get(o, o.upper()) for o in step.next}
    actions = step.actions if dispatch.prompt else ()
    brief = dispatch.prompt or _brief_of(step.actions, step.title)
    expect = dispatch.expect or (f"First line: {' or '.join(words.values())}; then what you "
                                 "found, with file paths")
    when = {o: f"the sub-agent's verdict is {w}" for o, w in words.items()} | dict(step.when)
    return step._replace(handler=None, actions=actions, when=MappingProxyType(when),
                         dispatch=dispatch._replace(prompt=brief, expect=expect))


def _brief_of(actions: tuple[Action | str, ...], title: str) -> Text:
    """The step's actions as a sub-agent's brief (rendered when the step is printed)."""
    def brief(ctx: "StepContext") -> str:
        texts = [_text(a.text if isinstance(a, Action) else a, ctx) for a in actions]
        return "\n".join(t.strip() for t in texts if t.strip()) or title

    return brief


def _text(text: Text, ctx: "StepContext") -> str:
    return text(ctx) if callable(text) else text


def check_pieces(wf: "Workflow", _: object) -> Iterator[Finding]:
    """W019: format_* pieces left in a step's actions: they could not become the step's own
    parts, because the step would dispatch more than once."""
    for step in wf.steps:
        if any(isinstance(a, Fragment) for a in step.actions):
            yield Finding("W019", wf.name, "the actions hold more than one sub-agent dispatch "
                          "(format_subagent_dispatch, or one beside dispatch=)", step.id,
                          fix="Dispatch once per step, or use Dispatch(items=...) for "
                              "parallel sub-agents")


# -- `StepDef`, one step of a workflow: its fields, and what is derived from them (who decides
# it, the memory keys it writes).

# The graph types are NamedTuples rather than frozen dataclasses: as immutable, and defining
# dataclasses (and importing `dataclasses`) costs ~7 ms that every `--step` invocation would pay.
# Each public class normalises what authors pass (lists, dicts) in __new__.


class _StepFields(NamedTuple):
    id: str
    title: str
    actions: tuple[Action | str, ...] = ()
    next: Mapping[str, Target] = _EMPTY
    when: Mapping[str, str] = _EMPTY
    handler: Handler | None = None
    args: tuple[Arg, ...] = ()
    reads: tuple[str, ...] = ()
    optional_reads: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    resources: tuple[Resource, ...] = ()
    conventions: tuple[ConventionRef, ...] = ()
    ask_user: AskUser | None = None
    dispatch: Dispatch | None = None
    complete: str = "The workflow is finished. Give the user the result of your last step."
    expect: str = ""
    verify: Text = ""
    tools: tuple[str, ...] | None = None
    prepare: Callable[["StepContext", str], None] | None = None


_Marked = TypeVar("_Marked", "StepDef", "Workflow")


class _Marks:
    """What the framework records on a step or a workflow beside the author's fields: a step's
    part in a review loop, a workflow's script and origin. They are attributes, not fields,
    so an author's call cannot set them and `help(StepDef)` does not offer them; `marked`
    sets them, and `_replace` carries them to the copy. Each graph type names its own in
    `_MARKS`, each kept as `_NAME`, whose class attribute is the default: an unmarked step
    reads it there and never needs an instance dict."""

    _MARKS: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a {type(self).__name__} is immutable; _replace({name}=...) makes "
                             "a new one")

    def _replace(self, /, **changes: Any) -> Self:
        made: Self = super()._replace(**changes)  # type: ignore[misc]  # the NamedTuple beside us
        for name in self._MARKS:
            value = getattr(self, "_" + name)
            if value is not getattr(type(self), "_" + name):
                object.__setattr__(made, "_" + name, value)
        return made


def marked(item: _Marked, **marks: Any) -> _Marked:
    """A copy of the step or workflow `item` with the framework's own attributes `marks` set
    (`marked(step, qr=role)`, `marked(workflow, source=path)`); authors never call it."""
    unknown = set(marks) - set(item._MARKS)
    if unknown:
        raise TypeError(f"{type(item).__name__} has no mark {', '.join(sorted(unknown))}")
    made = item._replace()
    for name, value in marks.items():
        object.__setattr__(made, "_" + name, value)
    return made


class StepDef(_Marks, _StepFields):
    """One step of a workflow: what the agent is told to do, the values it reports, and where
    each outcome leads. `StepDef("gather", "Gather evidence", actions=[...], next={"ok":
    "report"})`; lists and dicts given for its fields are kept as tuples and read-only maps.

    Who decides the outcome: the script when `handler` is set or `verify` names a check (the
    run passes through such a step without printing it, and the next printed step notes the
    decision), the user when `ask_user` is set, otherwise the agent, choosing by `when`.

    Attributes:
        id: The step's name, unique in its workflow, in lowercase-kebab (W015); `--step ID`
            names it, as does its 1-based position.
        title: A short title, shown at the head of the step and in the lists of steps.
        actions: The step's instructions, in order: strings, `Action`s, and the pieces the
            `format_*` functions make (a forbidden list, an expected output, a dispatch, a
            banner), each of which becomes the step's own part.
        next: Each outcome mapped to where it leads: a step id, a `Rework` edge (a counted
            loop), or None (the run ends). Every outcome of the step is a key here.
        when: For a step the agent decides with more than one outcome: each outcome mapped to
            the condition under which the agent picks it (W010).
        handler: Makes the script decide: a function of the `StepContext` that returns the
            outcome, or `(outcome, state)`, whose state (a dict of JSON values) the run keeps
            and the handler's next call reads as `ctx.step_state`. `@decides(...)` declares
            its outcomes. A `Dispatch` here (the original system's form, docs/original-api.md)
            hands the actions to that sub-agent, whose verdict picks the outcome.
        args: The values the next command asks the agent to report (`Arg`); the keys they
            write are the step's `writes`.
        reads: Memory keys the step shows, in `<memory>`; every path to the step must have
            written them (W011).
        optional_reads: Memory keys shown when present, e.g. what the previous pass of a
            loop reported.
        forbidden: What the agent must not do in this step, one item each; nothing carries
            over from earlier steps.
        resources: Supporting files of the skill the step lists or inlines (`Resource`).
        conventions: Shared conventions the step lists or inlines (`ConventionRef`).
        ask_user: Makes the user decide the step (`AskUser(question, {outcome: label})`).
        dispatch: Hands the step's work to sub-agents (`Dispatch`).
        complete: What the agent tells the user when an outcome of this step ends the run,
            shown as `<complete>`.
        expect: The shape of what the step must produce, shown as its `Expected output:` line.
        verify: A check that decides the step: a command (e.g. `"python3
            ${SKILL_DIR}/scripts/check.py"`), or a function of the `StepContext` that returns
            one. The script runs it through the security gateway (docs/gateway.md: no shell,
            the project's allow-list, paths kept in the project, once the user has trusted
            the skill); exit status 0 is the outcome `"ok"`, anything else (a refusal and a
            timeout included) `"fail"`, so `next` maps those two. The tail of its output is
            kept in memory as `VERIFY_OUTPUT`, for a fix step to read. W018 refuses a command
            with shell syntax, or a step that also has a `handler`.
        tools: The tools the agent may use during this step, in Claude Code's permission-rule
            syntax (`"Read"`, `"Bash(git:*)"`); None: the skill's `allowed-tools`, or any.
            The PreToolUse hook enforces it where hooks are installed.
        prepare: For `skillrail simulate` only: `prepare(ctx, outcome)` sets up the world the
            handler or the check reads (files, say) so that it decides `outcome`, in the walk's
            scratch folder, where the skill is trusted and the project's policy applies. A
            check of `${PROJECT_TESTS}` needs none: the walk gives it the outcome it wants.
    """

    _MARKS = ("qr",)
    _qr: QRRole | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> "StepDef":
        raw: StepDef = built(_StepFields, cls, args, kwargs)
        _no_bare_strings(raw)
        # Authors write plain lists and dicts; freeze them so a registered graph cannot change.
        made = raw._replace(
            actions=tuple(raw.actions), args=tuple(raw.args), reads=tuple(raw.reads),
            optional_reads=tuple(raw.optional_reads), forbidden=tuple(raw.forbidden),
            resources=tuple(raw.resources), conventions=tuple(raw.conventions),
            next=_frozen(raw.next), when=_frozen(raw.when),
            tools=None if raw.tools is None else tuple(raw.tools))
        if any(isinstance(a, Fragment) for a in made.actions):
            made = with_fragments(made)
        return handed_over(made) if isinstance(made.handler, Dispatch) else made

    @property
    def qr(self) -> QRRole | None:
        """The step's part in a review loop (work, review, gate, escalate), which `qr_loop`
        marks; None outside one."""
        return self._qr

    @property
    def decided_by(self) -> str:
        """'script', 'user' or 'agent': who picks the outcome. A `verify` check is the
        script's: its command's exit status decides (routing.decide)."""
        if self.handler is not None or self.verify:
            return "script"
        return "user" if self.ask_user is not None else "agent"

    @property
    def is_terminal(self) -> bool:
        """A step some outcome of which ends the run."""
        return any(t is None for t in self.next.values())

    @property
    def writes(self) -> tuple[str, ...]:
        """The memory keys this step's commands may write: its args, derived, never declared
        twice; and VERIFY_OUTPUT, which a `verify` step's check writes."""
        keys = [a.key for a in self.args] + ([VERIFY_OUTPUT] if self.verify else [])
        return tuple(dict.fromkeys(keys))

    def written_on(self, outcome: str) -> set[str]:
        """The keys a move by `outcome` certainly writes: its required args, and the check's
        output of a `verify` step."""
        keys = {a.key for a in self.args_for(outcome) if a.required}
        return keys | {VERIFY_OUTPUT} if self.verify else keys

    def args_for(self, outcome: str) -> tuple[Arg, ...]:
        """The args the command of `outcome` asks for."""
        return tuple(a for a in self.args if a.asked_on(outcome))


#: The StepDef fields that hold a list: a bare string there would become one item per character.
_LISTS = ("actions", "args", "reads", "optional_reads", "forbidden", "resources", "conventions",
          "tools")


def _no_bare_strings(step: "_StepFields") -> None:
    for name in (n for n in _LISTS if isinstance(getattr(step, n), str)):
        raise_at_author(FieldError, f"StepDef '{step.id}': {name} is a string, not a list (each "
                        "of its characters would be one item)", f"Write {name}=[...]")


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[str, Any]:
    return MappingProxyType({str(k): v for k, v in mapping.items()})


signed(StepDef, _StepFields)


# -- `Workflow`, a named graph of steps: its fields, and the views of its edges and loop
# counters that validation, rendering and the runner share.

class _WorkflowFields(NamedTuple):
    name: str
    steps: tuple[StepDef, ...]
    description: str = ""
    skill: str = ""
    entry: str = ""
    params: tuple[Param, ...] = ()
    approved_commands: "tuple[str, ...] | Callable[[StepContext], tuple[str, ...]]" = ()
    result: "Callable[[StepContext], str] | None" = None
    timeout: float | None = None


class Workflow(_Marks, _WorkflowFields):
    """A named graph of steps, which a skill script registers (`register_workflow`) and runs
    (`main`): `Workflow("my-skill", description=..., steps=[StepDef(...), ...])`. The form the
    original system documented, the steps after the name, works as well (docs/original-api.md).

    Attributes:
        name: The workflow's name, in lowercase-kebab, unique among the registered ones.
        steps: The steps, in the order `--step N` numbers them.
        description: One sentence on what the workflow is for, shown on the first step the
            agent sees, in `--help` and in the generated SKILL.md section.
        skill: The skill (SKILL.md `name`) the workflow belongs to; empty: its `name`. A skill
            may own several workflows (a planner and an executor, a sub-agent's script).
        entry: The step a run starts at; empty: the first step.
        params: The workflow's flags (`Param`), given on the entry step's command.
        approved_commands: Commands the user approved, word for word, for this workflow's
            `verify` checks beyond the gateway's policy; they still run through the gateway.
            Or a function of the `StepContext` that returns them, when the approval is the
            run's (read from its plan and ledger).
        result: How a completed run ended, from the step it ends at: a function of the
            `StepContext` that returns `"success"` or `"partial"`, which the ledger records;
            None: always `"success"`.
        timeout: Seconds each `verify` check may take at most, under the gateway's own limit;
            None: that limit.
    """

    # The instance dict holds the marks and what is derived from the steps once (`by_id`).
    # The fields stay read-only, and __setattr__ refuses any other attribute, so the cache
    # cannot go stale: `_replace` makes a new Workflow, which carries the marks only.

    _MARKS = ("source", "legacy", "generated")
    _source = ""
    _legacy = False
    _generated = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "Workflow":
        if len(args) > 1 and all(isinstance(a, StepDef) for a in args[1:]):
            if "steps" in kwargs:
                raise TypeError("Workflow: give the steps either after the name or as "
                                "steps=[...], not both")
            args = (args[0], args[1:])
        elif len(args) == 1 and "steps" not in kwargs:
            args = (args[0], ())  # no step yet: registration says so (W002), not a TypeError
        raw: Workflow = built(_WorkflowFields, cls, args, kwargs)
        steps = tuple(raw.steps)
        return raw._replace(steps=steps, params=tuple(raw.params), skill=raw.skill or raw.name,
                            entry=raw.entry or (steps[0].id if steps else ""))

    @property
    def source(self) -> str:
        """The script that defines the workflow, which `register_workflow` marks; empty when
        it was never registered."""
        return self._source

    @property
    def legacy(self) -> bool:
        """Adapted from a script written against the original system's API."""
        return self._legacy

    @property
    def generated(self) -> bool:
        """Built at run time from data (a skill-runner plan): its steps differ per run, so the
        generated SKILL.md and README sections do not list it as the skill's way in."""
        return self._generated

    @cached_property
    def by_id(self) -> Mapping[str, StepDef]:
        """Each step by id (of a duplicated id, the last; W001 reports it). Built on first use
        and read-only: validation looks steps up once per edge."""
        return MappingProxyType({s.id: s for s in self.steps})

    @property
    def edges(self) -> tuple[Edge, ...]:
        """Every transition, rework edges included (exhaustion edges are listed separately)."""
        found: list[Edge] = []
        for step in self.steps:
            for outcome, target in step.next.items():
                if isinstance(target, Rework):
                    found.append(Edge(step.id, outcome, target.target, target))
                else:
                    found.append(Edge(step.id, outcome, target))
        return tuple(found)

    @property
    def rework_edges(self) -> tuple[Edge, ...]:
        """Every counted rework edge, in step order."""
        return tuple(Edge(s.id, outcome, target.target, target) for s in self.steps
                     for outcome, target in s.next.items() if isinstance(target, Rework))

    @property
    def reworks(self) -> dict[str, Edge]:
        """The loop counters, each by its key (Edge.key: `step:outcome`, or the name a shared
        counter's edges share) with its first edge."""
        found: dict[str, Edge] = {}
        for edge in self.rework_edges:
            found.setdefault(edge.key, edge)
        return found

    def position(self, step_id: str) -> int:
        """1-based position in definition order."""
        return [s.id for s in self.steps].index(step_id) + 1

    def step(self, ref: str) -> StepDef:
        """The step named by id or by 1-based number; UsageError with did-you-mean otherwise."""
        by_id = self.by_id
        if ref in by_id:
            return by_id[ref]
        if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= len(self.steps):
            return self.steps[int(ref) - 1]
        raise UsageError(
            f"unknown step '{ref}'", f"workflow '{self.name}'",
            f"Use a step id or a number from 1 to {len(self.steps)}; `--help` lists them."
            + did_you_mean(ref, by_id))


signed(Workflow, _WorkflowFields)


# -- reading a graph: a workflow's skill folder (a step script's is base/paths.skill_folder, which
# the hooks read without this module), and a text resolved for an invocation.

def skill_dir(workflow: Workflow) -> str:
    """The skill folder of a workflow: the parent of the scripts/ folder holding its script."""
    return skill_folder(os.path.realpath(workflow.source or sys.argv[0]))


def render_text(text: Text, ctx: StepContext) -> str:
    """Resolve a static or invocation-dependent text."""
    return text(ctx) if callable(text) else text
