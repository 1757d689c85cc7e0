"""Build the protocol's element tree from a StepView, and serialize it. The only place markup is
made: every text passes `clean` before it enters the tree, and ElementTree does the escaping."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .constants import MEMORY_CUT_NOTE, PROTOCOL_VERSION
from .view import (
    ActionView,
    AskUserView,
    BannerView,
    ContextView,
    ConventionView,
    DispatchView,
    DoItem,
    ExpectedView,
    ForbiddenView,
    InvokeView,
    ResourceView,
    StepView,
)

# Everything outside XML 1.0 `Char` (C0 controls but tab, LF and CR; surrogates; U+FFFE/FFFF).
# Written as the forbidden set rather than the complement of the allowed one: same characters,
# and the regex compiles ten times faster, which every step invocation pays.
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: object) -> str:
    """The one text sanitizer: a str holding only characters XML 1.0 allows, with line ends
    as \\n (a parser turns a raw CR in text into LF anyway; doing it here keeps every format
    saying the same)."""
    return _NOT_XML_CHAR.sub("", str(text)).replace("\r\n", "\n").replace("\r", "\n")


def _el(parent: ET.Element | None, tag: str, text: str | None = None,
        **attrs: object) -> ET.Element:
    clean_attrs = {k: clean(v) for k, v in attrs.items() if v is not None}
    node = ET.Element(tag, clean_attrs) if parent is None else ET.SubElement(parent, tag,
                                                                              clean_attrs)
    if text is not None:
        node.text = clean(text)
    return node


def build_step(view: StepView) -> ET.Element:
    """The `<step>` document of PROTOCOL.md section 2, children in protocol order. The
    protocol, and in a run the skill and the run, are named only where the full mandate is (the
    first step an agent is shown, every reprint): elsewhere the agent's own command said them,
    and the commands in `<NEXT>` name the run again; a run's last step, with no command, names
    it on the root."""
    full = view.mandate is not None
    named = full or view.run is None  # a stateless step has no run to name its skill
    root = _el(None, "step", protocol=PROTOCOL_VERSION if full else None,
               skill=view.skill if named else None, workflow=view.workflow if named else None,
               id=view.id, run=view.run if full or view.complete is not None else None,
               title=view.title)
    if full:
        _el(root, "mandate", view.mandate)
    for step_id, outcome, said in view.decided:  # "check-plan: valid. The plan passed ..."
        _el(root, "decided", f"{step_id}: {outcome}." + (f" {said}" if said else ""))
    for banner in view.banners:
        _banner(root, banner)
    if view.params:
        given = _el(root, "params")
        for name, given_value in view.params:
            _el(given, "param", given_value, name=name)
    if view.memory:
        cut = any(item.show for item in view.memory)
        memory = _el(root, "memory", note=MEMORY_CUT_NOTE if cut else None)
        for value in view.memory:  # the key is the element's name: <PLAN_FILE>...</PLAN_FILE>
            _el(memory, value.key, value.text, length=value.length,
                show=value.show)
    _do(_el(root, "DO"), view.do)
    _next(_el(root, "NEXT"), view)
    return root


def _banner(root: ET.Element, b: BannerView) -> None:
    # Its text says the pass, the limit and whose work it is: no attribute repeats them.
    _el(root, "banner", b.text)


def _do(do: ET.Element, items: tuple[DoItem, ...]) -> None:
    """`<DO>`: what is only instructions is a line of text (an action, `KEY: ` before it when
    its result is reported as KEY; a forbidden thing; a resource or convention to read); what
    the agent reads as data or passes on (a dispatch, a question, a command's output, an
    inlined file) is an element, in the order the step gives them."""
    lines: list[str] = []
    last: ET.Element | None = None
    # Beside a dispatch, what is forbidden binds the orchestrator; an agent doing a prompt
    # itself (--self) acts as the sub-agent (the full mandate says so).
    forbidden = ("Forbidden to the orchestrator: "
                 if any(isinstance(item, DispatchView) for item in items) else "Forbidden: ")

    def flush() -> None:
        if lines:
            text = "\n" + "\n".join(clean(line) for line in lines) + "\n"
            if last is None:
                do.text = text
            else:
                last.tail = text
            lines.clear()

    for item in items:
        line = _line(item, forbidden)
        if line is not None:
            lines.extend(line)
            continue
        flush()
        last = _do_element(do, item)
    flush()


def _line(item: DoItem, forbidden: str) -> list[str] | None:
    """The lines an instruction-only item reads as, or None for an element."""
    if isinstance(item, ActionView):
        key = {None: "", "reply": "Your reply: "}.get(item.out, f"{item.out}: ")
        if not key and KEYED.match(item.text):  # its own text must not read as a key
            key = "Do: "
        return _indented(f"- {key}{item.text}")
    if isinstance(item, ForbiddenView):
        return [line for text in item.items for line in _indented(forbidden + text)]
    if isinstance(item, ResourceView) and item.content is None:
        return _indented(f"Resource {item.path}: {item.when}")
    if isinstance(item, ConventionView) and item.content is None:
        return _indented(f"Convention {item.path}: {item.when}")
    if isinstance(item, ExpectedView):
        return _indented(f"Expected output: {item.text}")
    return None


#: How a `<DO>` line names the key its action's result is reported as (reading.py reads it).
KEYED = re.compile(r"(?P<key>[A-Z][A-Z0-9_]*|Your reply|Do): ")


def _indented(text: str) -> list[str]:
    """An item's lines, the second and later indented, so a line of its own text that starts
    like an item ('- ...') still reads as part of it."""
    first, *rest = clean(text).split("\n")
    return [first, *(f"  {line}" for line in rest)]


def _do_element(do: ET.Element, item: DoItem) -> ET.Element:
    if isinstance(item, ResourceView):
        return _el(do, "resource", f"{item.when}\n\n{item.content}", path=item.path)
    if isinstance(item, ConventionView):
        return _el(do, "convention", f"{item.when}\n\n{item.content}".strip(),
                   name=item.name, path=item.path)
    if isinstance(item, DispatchView):
        return _dispatch(do, item)
    if isinstance(item, ContextView):
        return _el(do, "context", item.text, name=item.name,
                   status=None if item.status == "ok" else item.status)
    assert isinstance(item, AskUserView), item
    ask = _el(do, "ask_user", id=item.id)
    _el(ask, "question", item.question)
    for outcome, label in item.options:
        _el(ask, "option", label, outcome=outcome)
    return ask


def _dispatch(do: ET.Element, d: DispatchView) -> ET.Element:
    # context, count and required only where they differ from the usual: one sub-agent, in a
    # fresh context, that must reply.
    # No mode: a prompt with a script says "First run this command"; one without is the brief.
    node = _el(do, "dispatch", agent=d.agent,
               context=d.context if d.context != "fresh" else None, model=d.model,
               count=d.instances if d.instances != 1 else None,
               required=None if d.required else "false")
    # The prompt holds the variables, the sub-agent's command and the reply format already:
    # printing them again (as <var>, <subagent_cmd>, <expected_output>) said each thing twice.
    # One <prompt> per sub-agent, in order (each says its item, "Your item: ...").
    for _, prompt in d.prompts:
        _el(node, "prompt", prompt)
    return node


def _next(nxt: ET.Element, view: StepView) -> None:
    if view.complete is not None:
        _el(nxt, "complete", view.complete)
        return
    # An arg is described once: by the action whose `out` names it, else by its first invoke.
    described = {item.out for item in view.do if isinstance(item, ActionView) and item.out}
    said: set[tuple[str, str]] = set()
    for inv in view.invokes:
        _invoke(nxt, inv, described, said, len(view.invokes) == 1)


def piece(item: DoItem | BannerView) -> ET.Element:
    """One element of a step on its own (a `<DO>` item or a banner), for the legacy format_*
    functions, which return pieces that callers put together: an instruction line is the text
    of a `<DO>`."""
    holder = ET.Element("holder")
    if isinstance(item, BannerView):
        _banner(holder, item)
        return holder[0]
    do = _el(None, "DO")
    _do(do, (item,))
    return do if len(do) == 0 else do[0]


def _invoke(nxt: ET.Element, inv: InvokeView, described: set[str],
            said: set[tuple[str, str]], lone: bool) -> None:
    """Args that need no words of their own (required, no choices, described by an action or
    an earlier invoke) are named in `set`; the others are `<arg>` elements. The outcome is in
    the command (`--outcome`), so the invoke does not repeat it."""
    plain, rest = [], []
    for arg in inv.args:
        quiet = (not arg.describe or arg.key in described or (arg.key, arg.describe) in said)
        said.add((arg.key, arg.describe))
        if quiet and arg.required and not arg.choices:
            plain.append(arg.key)
        else:
            rest.append((arg, quiet))
    # The one command of a linear step needs no wrapper: NEXT holds it and says what to set.
    # With no <arg> beside it, a command is its holder's own text.
    node = nxt if lone else _el(nxt, "invoke", when=inv.when)
    if plain:
        node.set("set", " ".join(plain))
    if not rest:
        node.text = clean(inv.cmd)
        return
    _el(node, "cmd", inv.cmd)
    for arg, quiet in rest:
        _el(node, "arg", key=arg.key, required=None if arg.required else "false",
            describe=None if quiet else arg.describe, choices=" ".join(arg.choices) or None)


#: Texts an agent reads as data or copies out (params, memory values it may report again, a
#: prompt it passes on verbatim): printed as CDATA when they hold markup characters, so they
#: read exactly as written.
_VERBATIM = ("params/param", "memory/*", "DO/dispatch/prompt")
_GT = re.compile(r"(?<!\]\])&gt;")


def to_xml(root: ET.Element) -> str:
    """The one serializer: one element a line, unindented (indentation cost every step a
    tenth of its size and told an agent nothing), UTF-8-safe text of a document. `>` is left
    as it is (XML needs it escaped only after `]]`), and the verbatim texts are CDATA
    sections, so what an agent copies from the document is the text itself, never `&lt;` or
    `-&gt;`."""
    ET.indent(root, space="")
    verbatim: dict[str, str] = {}
    for path in _VERBATIM:
        for node in root.iterfind(path):
            if node.text and ("<" in node.text or "&" in node.text):
                token = f"SKILLRAILVERBATIM{len(verbatim)}X{id(root)}"
                verbatim[token], node.text = node.text, token
    text = _GT.sub(">", ET.tostring(root, encoding="unicode"))
    for token, value in verbatim.items():
        text = text.replace(token, "<![CDATA[" + value.replace("]]>", "]]]]><![CDATA[>") + "]]>")
    return text + "\n"
