"""The parts a step is built from, and a workflow's params: instructions, the values the agent
reports, the user's choice, files to read, sub-agents. Immutable NamedTuples, as every graph
type (types.py says why); a call that does not fit one's fields is a FieldError."""

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from .fields import checked

if TYPE_CHECKING:
    from .context import StepContext

#: Text that may depend on the invocation (params, reported values, loop position).
Text = str | Callable[["StepContext"], str]


class Action(NamedTuple):
    """One instruction of a step's `<DO>`, shown as an `<action>`. A plain string in a step's
    `actions` is an Action without `out`.

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
        required: Whether a run refuses to start without it.
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
        name: A short name for it, shown in the `<resource>` element.
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
            (`value_of(KEY)` passes a reported value).
        model: The model to ask for, or a function that picks it; None: the agent's default.
        context: The sub-agent's context: `"fresh"`, none of the parent conversation; the
            protocol's schema reserves `"fork"` for one that inherits it.
        required: Whether the orchestrator must wait for the replies before it runs
            `<NEXT>`; False: `<NEXT>` may be run without them.
        params: Flags the sub-agent's script takes on its first command
            (`--name=value`), each a text or a function of the `StepContext`.
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


for _part in (Action, Arg, Param, AskUser, Resource, ConventionRef, Dispatch):
    checked(_part)
