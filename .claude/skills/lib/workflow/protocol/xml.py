"""Build the protocol's element tree from a StepView, and serialize it. The only place markup is
made: every text passes `clean` before it enters the tree, and ElementTree does the escaping."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .constants import MEMORY_CUT_NOTE, MEMORY_NOTE, PROTOCOL_VERSION
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
    """The `<step>` document of PROTOCOL.md section 2, children in protocol order."""
    root = _el(None, "step", protocol=PROTOCOL_VERSION, skill=view.skill,
               workflow=view.workflow, id=view.id, n=view.n, run=view.run)
    _el(root, "title", view.title)
    _el(root, "mandate", view.mandate)
    for step_id, outcome, said in view.decided:
        _el(root, "decided", said or None, step=step_id, outcome=outcome)
    for banner in view.banners:
        _banner(root, banner)
    if view.params:
        given = _el(root, "params")
        for name, given_value in view.params:
            _el(given, "param", given_value, name=name)
    if view.memory:
        cut = any(item.show for item in view.memory)
        memory = _el(root, "memory", note=MEMORY_NOTE + (MEMORY_CUT_NOTE if cut else ""))
        for value in view.memory:
            _el(memory, "item", value.text, key=value.key, length=value.length,
                show=value.show)
    do = _el(root, "DO")
    for item in view.do:
        _do_item(do, item)
    _next(_el(root, "NEXT"), view)
    return root


def _banner(root: ET.Element, b: BannerView) -> None:
    _el(root, "banner", b.text, kind=b.kind, checkpoint=b.checkpoint, iteration=b.iteration,
        limit=b.limit, mode=b.mode, audience=b.audience)


def _do_item(do: ET.Element, item: DoItem) -> None:
    if isinstance(item, ActionView):
        _el(do, "action", item.text, out=item.out)
    elif isinstance(item, ForbiddenView):
        forbidden = _el(do, "forbidden")
        for text in item.items:
            _el(forbidden, "item", text)
    elif isinstance(item, ResourceView):
        inline = "true" if item.content is not None else None
        res = _el(do, "resource", item.when, name=item.name, path=item.path, inline=inline)
        if item.content is not None:
            res.text = clean(f"{item.when}\n\n{item.content}")
    elif isinstance(item, ConventionView):
        inline = "true" if item.content is not None else None
        text = item.when if item.content is None else f"{item.when}\n\n{item.content}".strip()
        _el(do, "convention", text, name=item.name, path=item.path, inline=inline)
    elif isinstance(item, DispatchView):
        _dispatch(do, item)
    elif isinstance(item, ExpectedView):
        _el(do, "expected_output", item.text, audience="you")
    elif isinstance(item, ContextView):
        _el(do, "context", item.text, name=item.name, status=item.status)
    elif isinstance(item, AskUserView):
        ask = _el(do, "ask_user", id=item.id)
        _el(ask, "question", item.question)
        for outcome, label in item.options:
            _el(ask, "option", label, outcome=outcome)


def _dispatch(do: ET.Element, d: DispatchView) -> None:
    # context, count and required only where they differ from the usual: one sub-agent, in a
    # fresh context, that must reply.
    node = _el(do, "dispatch", agent=d.agent, mode=d.mode,
               context=d.context if d.context != "fresh" else None, model=d.model,
               count=d.instances if d.instances != 1 else None,
               required=None if d.required else "false")
    _el(node, "role", d.role)
    # The prompt holds the variables, the sub-agent's command and the reply format already:
    # printing them again (as <var>, <subagent_cmd>, <expected_output>) said each thing twice.
    if len(d.prompts) == 1 and d.prompts[0][0] is None:
        _el(node, "prompt", d.prompts[0][1])
    else:
        for item_id, prompt in d.prompts:
            _el(_el(node, "item", id=item_id), "prompt", prompt)


def _next(nxt: ET.Element, view: StepView) -> None:
    if view.complete is not None:
        _el(nxt, "complete", view.complete)
        return
    # An arg is described once: by its first invoke (an arg without a description is said by
    # the action whose `out` names it).
    described: set[tuple[str, str]] = set()
    for inv in view.invokes:
        _invoke(nxt, inv, described)


def piece(item: DoItem | BannerView) -> ET.Element:
    """One element of a step on its own (a `<DO>` item or a banner), for the legacy format_*
    functions, which return pieces that callers put together."""
    holder = ET.Element("holder")
    if isinstance(item, BannerView):
        _banner(holder, item)
    else:
        _do_item(holder, item)
    return holder[0]


def _invoke(nxt: ET.Element, inv: InvokeView, described: set[tuple[str, str]]) -> None:
    """An arg already described (`described`: key and text) is listed by its key alone."""
    node = _el(nxt, "invoke", outcome=inv.outcome, when=inv.when)
    _el(node, "cmd", inv.cmd)
    for arg in inv.args:
        said = (arg.key, arg.describe) in described
        described.add((arg.key, arg.describe))
        _el(node, "arg", key=arg.key, required=None if arg.required else "false",
            describe=None if said or not arg.describe else arg.describe,
            choices=" ".join(arg.choices) or None)


#: Texts an agent reads as data or copies out (params, memory values it may report again, a
#: prompt it passes on verbatim): printed as CDATA when they hold markup characters, so they
#: read exactly as written.
_VERBATIM = ("params/param", "memory/item", "DO/dispatch/prompt", "DO/dispatch/item/prompt")
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
