#!/usr/bin/env python3
"""A scripted fake model server that drives three real coding agents from one script format:
Claude Code (Anthropic Messages API), the Codex CLI (OpenAI Responses API) and the Gemini CLI
(Gemini API, generateContent).

    python3 fakeapi.py --port 8765 --script scripts/a.json --log logs/a.jsonl

(It began as the team's harness, ../shared/claude-code-harness/fakeapi.py, copied into the project
so that a fresh clone can run the real-client tests. Two things were added to it: `--port 0` picks
a free port and prints it, and a `follow` may carry "template": "PREFIX {cmd} SUFFIX", in which
{cmd} is the command it worked out and {run} is the run id of the step it read.)

The SCRIPT is a JSON list. Each main-conversation call, whichever API it comes through, plays the
next entry:

    {"text": "..."}                               a text reply (stop_reason end_turn)
    {"tool": "Bash", "input": {"command": "...", "description": "..."}}   one tool call
    {"tool": "Write", "input": {"file_path": "...", "content": "..."}}
    {"follow": {"prefer": "iterate", "values": {"CONFIDENCE": "low"}, "default": "x"}}
        a Bash call worked out from the newest tool result that holds a skillrail step. It
        takes the command whose --outcome is `prefer` (the first one if none is), and --set
        KEY='VALUE' for each key its `set` and <arg>s name: values[KEY], else the arg's first
        choice, else `default`. Add "text": "..." to put a text block before the call.
    any entry may carry "delay": SECONDS, slept before the answer goes out.

The SCRIPT may instead be {"main": [...], "sub": [...]}. Then calls whose first message holds the
marker SUBAGENT-TASK (a sub-agent's prompt) play "sub", and the rest play "main". Once a script
runs out, the server answers with the text "(script exhausted)". Calls that are not part of the
main conversation get a short text and leave the script where it is. Each request (path, the
fields of interest, body, reply) is logged as one JSON object per line.

Claude Code posts to /v1/messages. A call counts as main-conversation when its `tools` list has a
tool named "Bash". Compaction ("CRITICAL: Respond with TEXT ONLY" in the last message) gets a
short summary; titles, quota probes and other side calls get "OK".

Codex (a custom model provider, wire_api "responses", base_url http://127.0.0.1:PORT/v1) posts to
/v1/responses, and the answer is a Responses stream of output items. "text" becomes an assistant
message. A Bash tool, scripted or followed, becomes a call of Codex's shell tool exec_command with
{"cmd": COMMAND}, and the other fields of the Bash input are dropped. Any other tool goes out as a
function call of that name, with `input` as its arguments. A `follow` reads the newest
function_call_output that holds a step, with Codex's "Chunk ID: ... Output:" header taken off.
Codex's compaction request (its last input item asks for a CONTEXT CHECKPOINT COMPACTION) gets a
short summary. Every other call to /v1/responses plays "main".

The Gemini CLI (GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT, API-key auth) posts each turn of a
conversation to /v1beta/models/MODEL:streamGenerateContent?alt=sse, and every streamed call plays
the script: "sub" when its first content holds SUBAGENT-TASK (the prompt given to invoke_agent),
"main" otherwise. The answer is one GenerateContentResponse in one SSE event, its finishReason
always "STOP". "text" becomes a text part. A Bash tool, scripted or followed, becomes a
functionCall of Gemini's shell tool run_shell_command with {"command": COMMAND}, and the other
fields of the Bash input are dropped. Any other tool goes out as a functionCall of that name,
with `input` as its args. A `follow` reads the newest functionResponse that holds a step: its
response.output, with Gemini's <untrusted_context> wrapper, the "Output: " label and the closing
"Process Group PGID: N" line taken off, or its response.error (a hook's refusal).
Gemini's utility calls go to MODEL:generateContent, not streamed, and leave the script where it
is. Its compression (a summary of the history, then a check of it; the last content asks for a
<state_snapshot>) gets a short snapshot. A call that asks for JSON (responseMimeType
application/json: the model router when no -m is given, the next-speaker check when
model.skipNextSpeakerCheck is false, the loop check after 30 turns of one prompt) gets an object
shaped by its schema: "user" where an enum offers it (so nobody asks the model to go on), else
the enum's first value; 0 for a number (no loop), false for a boolean, [] for an array and
"fake" for a string. Any other utility call gets "OK".
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"script": [], "i": 0, "log": None, "n": 0}


def log(entry: dict) -> None:
    with LOCK:
        STATE["n"] += 1
        entry = {"n": STATE["n"], "t": round(time.time(), 3), **entry}
        with open(STATE["log"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, ensure_ascii=False) + "\n")


def is_compact(body: dict) -> bool:
    """Claude Code's compaction call: the conversation plus a final summary request."""
    msgs = body.get("messages") or []
    return bool(msgs) and "CRITICAL: Respond with TEXT ONLY" in text_of(msgs[-1].get("content"))


def is_main(body: dict) -> bool:
    if is_compact(body):
        return False
    tools = body.get("tools") or []
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in tools)


def is_sub(body: dict) -> bool:
    """A sub-agent's conversation: its first message carries the marker SUBAGENT-TASK."""
    msgs = body.get("messages") or []
    return bool(msgs) and msgs[0].get("role") == "user" and "SUBAGENT-TASK" in text_of(
        msgs[0].get("content"))


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c.get("text") if c.get("type") == "text" else c.get("content"))
                         for c in content if isinstance(c, dict))
    return ""


def tool_results(body: dict) -> list[str]:
    """The text of every tool result in a request: a Messages body's tool_result blocks, a
    Responses body's function_call_output items, or a Gemini body's functionResponse parts."""
    out = []
    for msg in body.get("messages", []):
        if msg.get("role") != "user" or not isinstance(msg.get("content"), list):
            continue
        for block in msg["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out.append(text_of(block.get("content")))
    inputs = body.get("input")
    for item in inputs if isinstance(inputs, list) else []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            out.append(output_text(item.get("output")))
    contents = body.get("contents")
    for content in contents if isinstance(contents, list) else []:
        if not isinstance(content, dict) or content.get("role") != "user":
            continue
        for part in content.get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                out.append(output_text(part["functionResponse"].get("response")))
    return out


#: The header Codex puts before a command's output: Chunk ID, Wall time, exit code, ...
CHUNK_HEADER = re.compile(r"Chunk ID: [^\n]*\n(?:[^\n]*\n)*?Output:\n")


#: How Gemini wraps a tool's output (`</untrusted_context>` inside it comes escaped).
UNTRUSTED = re.compile(r"<untrusted_context>\n(.*)\n</untrusted_context>", re.S)
#: The process group line Gemini's shell tool puts last in its output.
PGID_LINE = re.compile(r"\nProcess Group PGID: \d+\Z")


def gemini_output(response: dict) -> str:
    """The text of a Gemini functionResponse's `response`: its `output`, with Gemini's
    <untrusted_context> wrapper, the shell tool's "Output: " label and its closing
    "Process Group PGID: N" line taken off (any "Exit Code: N" stays); or its `error`
    ("Tool execution blocked: REASON" for a hook's refusal); or the object as JSON."""
    output = response.get("output")
    if isinstance(output, str):
        wrapped = UNTRUSTED.fullmatch(output)
        text = wrapped.group(1) if wrapped else output
        text = PGID_LINE.sub("", text)
        return text[len("Output: "):] if text.startswith("Output: ") else text
    if isinstance(response.get("error"), str):
        return response["error"]
    return json.dumps(response, ensure_ascii=False)


def output_text(output) -> str:
    """A tool result's text: a function_call_output's output, a string (its Codex header
    taken off) or the text of its content items; or a Gemini functionResponse's `response`
    object (see gemini_output)."""
    if isinstance(output, dict):
        return gemini_output(output)
    if isinstance(output, list):
        return "\n".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    if not isinstance(output, str):
        return ""
    header = CHUNK_HEADER.match(output)
    return output[header.end():] if header else output


INVOKE = re.compile(r"<invoke([^>]*)>(.*?)</invoke>", re.S)
#: A linear step's NEXT holds its one command itself (protocol 2.0).
LONE = re.compile(r"<NEXT([^>]*)>\s*((?:<cmd>|[^<\s]).*?)</NEXT>", re.S)
ATTR = re.compile(r'(\w+)="([^"]*)"')


def unxml(s: str) -> str:
    return (s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def follow(spec: dict, body: dict) -> str:
    for result in reversed(tool_results(body)):
        invokes = INVOKE.findall(result) or LONE.findall(result)
        if invokes:
            break
    else:
        return "echo 'fakeapi: no command found in any tool_result'"
    chosen = None
    for attrs, inner in invokes:
        if spec.get("prefer") and f"--outcome {spec['prefer']}" in inner:
            chosen = attrs, inner
            break
    attrs, inner = chosen or invokes[0]
    held = re.search(r"<cmd>(.*?)</cmd>", inner, re.S)
    cmd = unxml((held.group(1) if held else inner).strip())
    run = (re.search(r'<step [^>]*\brun="([^"]*)"', result)
           or re.search(r"--run ([\w.-]+)", cmd))
    values = spec.get("values", {})
    asked = [{"key": key} for key in dict(ATTR.findall(attrs)).get("set", "").split()]
    asked += [dict(ATTR.findall(m.group(1))) for m in re.finditer(r"<arg ([^>]*)/?>", inner)]
    for a in asked:
        key = a.get("key")
        if not key:
            continue
        if key in values:
            v = values[key]
        elif a.get("choices"):
            v = a["choices"].split()[0]
        else:
            v = spec.get("default", "fake value")
        cmd += f" --set {key}={shlex.quote(v)}"
    return spec.get("template", "{cmd}").format(cmd=cmd, run=run.group(1) if run else "")


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def next_entry(key: str) -> dict | None:
    """The next entry of script `key` (None once it is exhausted); the script moves on."""
    with LOCK:
        script, i = STATE["scripts"][key], STATE["pos"][key]
        entry = script[i] if i < len(script) else None
        STATE["pos"][key] += 1
        STATE["i"] = STATE["pos"][key]
        STATE["last_key"] = key
    return entry


def reply_blocks(body: dict) -> tuple[list[dict], str, dict]:
    """(content blocks, stop_reason, script entry or {})"""
    if is_compact(body):
        return [{"type": "text", "text": "<analysis>fake</analysis>\n<summary>Fake summary: "
                 "the user asked why the login test fails; a problem-analysis run is active."
                 "</summary>"}], "end_turn", {}
    if not is_main(body):
        return [{"type": "text", "text": "OK"}], "end_turn", {}
    key = "sub" if is_sub(body) and "sub" in STATE["scripts"] else "main"
    entry = next_entry(key)
    if entry is None:
        return [{"type": "text", "text": "(script exhausted)"}], "end_turn", {"exhausted": True}
    blocks: list[dict] = []
    if "text" in entry:
        blocks.append({"type": "text", "text": entry["text"]})
    if "tool" in entry or "follow" in entry:
        if "follow" in entry:
            name, inp = "Bash", {"command": follow(entry["follow"], body),
                                 "description": "Run the next skillrail step"}
        else:
            name, inp = entry["tool"], entry["input"]
        blocks.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20],
                       "name": name, "input": inp})
        return blocks, "tool_use", entry
    return blocks, "end_turn", entry


COMPACTION = "CONTEXT CHECKPOINT COMPACTION"


def is_responses_compact(body: dict) -> bool:
    """Codex's compaction call: the conversation plus a final request for a handoff summary."""
    items = body.get("input")
    if not isinstance(items, list) or not items or not isinstance(items[-1], dict):
        return False
    content = items[-1].get("content")
    parts = content if isinstance(content, list) else [{"text": content}]
    return any(isinstance(part, dict) and COMPACTION in str(part.get("text") or "")
               for part in parts)


def message_item(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex[:20],
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def call_item(name: str, arguments: dict) -> dict:
    return {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20],
            "call_id": "call_" + uuid.uuid4().hex[:20], "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}


def reply_items(body: dict) -> tuple[list[dict], dict]:
    """(Responses output items, script entry or {}) for a call to /v1/responses."""
    if is_responses_compact(body):
        return [message_item("Fake summary: the user asked why the login test fails; a "
                             "problem-analysis run is active.")], {}
    entry = next_entry("main")
    if entry is None:
        return [message_item("(script exhausted)")], {"exhausted": True}
    items: list[dict] = []
    if "text" in entry:
        items.append(message_item(entry["text"]))
    if "follow" in entry:
        items.append(call_item("exec_command", {"cmd": follow(entry["follow"], body)}))
    elif "tool" in entry and entry["tool"] == "Bash":
        items.append(call_item("exec_command", {"cmd": entry["input"]["command"]}))
    elif "tool" in entry:
        items.append(call_item(entry["tool"], entry["input"]))
    return items, entry


GEMINI_CALL = re.compile(r"/v1beta/models/([^/:]+):(streamGenerateContent|generateContent)$")
#: Gemini's compression call ends with a request for a <state_snapshot> of the history.
SNAPSHOT = "<state_snapshot>"


def gemini_text(content) -> str:
    """The text parts of one Gemini content, joined."""
    parts = content.get("parts") if isinstance(content, dict) else None
    return "\n".join(str(part.get("text") or "") for part in parts or []
                     if isinstance(part, dict))


def is_gemini_compress(body: dict) -> bool:
    """The Gemini CLI's compression call (and its check of the summary): the history plus a
    final request for a <state_snapshot>."""
    contents = body.get("contents")
    return isinstance(contents, list) and bool(contents) and SNAPSHOT in gemini_text(
        contents[-1])


def is_gemini_main(stream: bool, body: dict) -> bool:
    """A turn of a Gemini conversation (or a sub-agent's): Gemini streams those, and only
    those; its utility calls (routing, compression, next speaker, loop check) are not."""
    return stream


def is_gemini_sub(body: dict) -> bool:
    """A sub-agent's conversation: its first content carries the marker SUBAGENT-TASK."""
    contents = body.get("contents")
    return isinstance(contents, list) and bool(contents) and "SUBAGENT-TASK" in gemini_text(
        contents[0])


def json_dummy(schema) -> object:
    """A value that fits `schema`: the "user" of an enum that has it, else its first choice;
    0 for numbers (its minimum if it has one); false; [] for arrays; "fake" for strings."""
    if not isinstance(schema, dict):
        return "fake"
    kind = str(schema.get("type") or ("object" if "properties" in schema else "string")).lower()
    if schema.get("enum"):
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "object":
        return {key: json_dummy(sub) for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return "fake"


def reply_parts(stream: bool, body: dict) -> tuple[list[dict], dict]:
    """(Gemini content parts, script entry or {}) for a call to generateContent."""
    if not is_gemini_main(stream, body):
        if is_gemini_compress(body):
            return [{"text": "<state_snapshot>Fake summary: the user asked why the login test "
                             "fails; a problem-analysis run is active.</state_snapshot>"}], {}
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json":
            schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
            return [{"text": json.dumps(json_dummy(schema))}], {}
        return [{"text": "OK"}], {}
    key = "sub" if is_gemini_sub(body) and "sub" in STATE["scripts"] else "main"
    entry = next_entry(key)
    if entry is None:
        return [{"text": "(script exhausted)"}], {"exhausted": True}
    parts: list[dict] = []
    if "text" in entry:
        parts.append({"text": entry["text"]})
    if "follow" in entry:
        parts.append({"functionCall": {"name": "run_shell_command",
                                       "args": {"command": follow(entry["follow"], body)}}})
    elif "tool" in entry and entry["tool"] == "Bash":
        parts.append({"functionCall": {"name": "run_shell_command",
                                       "args": {"command": entry["input"]["command"]}}})
    elif "tool" in entry:
        parts.append({"functionCall": {"name": entry["tool"], "args": entry["input"]}})
    return parts, entry


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, code: int, payload: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        log({"method": "GET", "path": self.path})
        self._send(200, b"{}")

    def do_HEAD(self):
        log({"method": "HEAD", "path": self.path})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            log({"method": "POST", "path": self.path, "kind": "count_tokens"})
            self._send(200, json.dumps({"input_tokens": 1000}).encode())
            return
        if path.endswith("/v1/responses"):
            self._responses(body)
            return
        gemini = GEMINI_CALL.search(path)
        if gemini:
            self._gemini(gemini.group(1), gemini.group(2) == "streamGenerateContent", body)
            return
        if not path.endswith("/v1/messages"):
            log({"method": "POST", "path": self.path, "body": body})
            self._send(200, b"{}")
            return
        blocks, stop_reason, entry = reply_blocks(body)
        if entry.get("delay"):
            time.sleep(float(entry["delay"]))
        main = is_main(body)
        log({"method": "POST", "path": self.path, "main": main, "model": body.get("model"),
             "stream": body.get("stream"), "body": body, "reply": blocks,
             "stop_reason": stop_reason, "script_index": STATE["i"] - 1 if main else None,
             "script_key": ("sub" if is_sub(body) else "main") if main else None})
        model = body.get("model") or "claude-fake"
        msg_id = "msg_" + uuid.uuid4().hex[:20]
        usage = {"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if not body.get("stream"):
            self._send(200, json.dumps({
                "id": msg_id, "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": usage}).encode())
            return
        out = [sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1}}})]
        for idx, b in enumerate(blocks):
            if b["type"] == "text":
                out.append(sse("content_block_start", {"type": "content_block_start",
                               "index": idx, "content_block": {"type": "text", "text": ""}}))
                out.append(sse("content_block_delta", {"type": "content_block_delta",
                               "index": idx, "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                out.append(sse("content_block_start", {"type": "content_block_start",
                               "index": idx, "content_block": {"type": "tool_use", "id": b["id"],
                                                               "name": b["name"], "input": {}}}))
                js = json.dumps(b["input"])
                for k in range(0, len(js), 40):
                    out.append(sse("content_block_delta", {"type": "content_block_delta",
                                   "index": idx, "delta": {"type": "input_json_delta",
                                                           "partial_json": js[k:k + 40]}}))
            out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
        out.append(sse("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop_reason,
                                                   "stop_sequence": None},
                                         "usage": {"output_tokens": 20}}))
        out.append(sse("message_stop", {"type": "message_stop"}))
        self._send(200, b"".join(out), "text/event-stream")

    def _responses(self, body: dict) -> None:
        """A Responses API call (Codex): its output items as a stream."""
        items, entry = reply_items(body)
        if entry.get("delay"):
            time.sleep(float(entry["delay"]))
        main = not is_responses_compact(body)
        calls = any(item["type"] == "function_call" for item in items)
        log({"method": "POST", "path": self.path, "main": main, "model": body.get("model"),
             "stream": body.get("stream"), "body": body, "reply": items,
             "stop_reason": "tool_use" if calls else "end_turn",
             "script_index": STATE["i"] - 1 if main else None,
             "script_key": "main" if main else None})
        resp_id = "resp_" + uuid.uuid4().hex[:20]
        out = [sse("response.created", {"type": "response.created", "response": {
            "id": resp_id, "object": "response", "status": "in_progress"}})]
        for index, item in enumerate(items):
            out.append(sse("response.output_item.done", {"type": "response.output_item.done",
                                                         "output_index": index, "item": item}))
        out.append(sse("response.completed", {"type": "response.completed", "response": {
            "id": resp_id, "object": "response", "status": "completed",
            "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 120}}}))
        self._send(200, b"".join(out), "text/event-stream")

    def _gemini(self, model: str, stream: bool, body: dict) -> None:
        """A Gemini API call: one GenerateContentResponse, as an SSE event when streamed."""
        parts, entry = reply_parts(stream, body)
        if entry.get("delay"):
            time.sleep(float(entry["delay"]))
        main = is_gemini_main(stream, body)
        calls = any("functionCall" in part for part in parts)
        log({"method": "POST", "path": self.path, "main": main, "model": model,
             "stream": stream, "body": body, "reply": parts,
             "stop_reason": "tool_use" if calls else "end_turn",
             "script_index": STATE["i"] - 1 if main else None,
             "script_key": ("sub" if is_gemini_sub(body) and "sub" in STATE["scripts"]
                            else "main") if main else None})
        response = {"candidates": [{"content": {"role": "model", "parts": parts},
                                    "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                                      "totalTokenCount": 120},
                    "modelVersion": model, "responseId": "resp_" + uuid.uuid4().hex[:20]}
        if not stream:
            self._send(200, json.dumps(response).encode())
            return
        self._send(200, f"data: {json.dumps(response)}\r\n\r\n".encode(), "text/event-stream")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    with open(args.script, encoding="utf-8") as fh:
        loaded = json.load(fh)
    STATE["scripts"] = loaded if isinstance(loaded, dict) else {"main": loaded}
    STATE["pos"] = {k: 0 for k in STATE["scripts"]}
    STATE["script"] = STATE["scripts"]["main"]
    STATE["log"] = args.log
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = srv.server_address[1]
    print(f"fakeapi on 127.0.0.1:{port}, {len(STATE['script'])} entries", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
