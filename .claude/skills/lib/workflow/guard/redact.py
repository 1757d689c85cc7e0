"""Secret redaction for run history shown to people (`skillrail trace`, `report`): pure functions
over text.

A value is redacted when it has the shape of a known credential (cloud, forge and chat tokens,
API keys, JWTs, PEM private keys), sits in a URL's password slot, or is assigned to a key that
looks secret (`PASSWORD=...`, `"api_key": "..."`, `--token ...`). Nothing is judged by entropy:
git SHAs, UUIDs, paths and prose stay as they are. Replacements read `[REDACTED]` or
`[REDACTED:kind]`, which no rule matches again, so redacting twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

MASK = "[REDACTED]"

# A squashed key (lowercase letters and digits only) holding one of these is secret; they are
# long enough not to occur inside ordinary words.
_SECRET_PARTS = ("password", "passwd", "passphrase", "secret", "credential", "apikey",
                 "privatekey", "accesskey", "signingkey", "encryptionkey", "sessioncookie",
                 "sessiontoken", "sessionkey")
# These must be whole words of the key: as substrings they hit 'author', 'tokenizer', 'path'.
_SECRET_WORDS = frozenset({"pwd", "token", "tokens", "auth", "oauth", "authorization", "cookie",
                           "cookies", "creds", "jwt", "bearer", "pat"})
# Beside 'token(s)' alone, these make the key a count of tokens (max_tokens), not a credential.
_COUNT_WORDS = frozenset({"max", "min", "num", "count", "limit", "total", "budget", "used",
                          "remaining", "per"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def is_secret_key(key: str) -> bool:
    """Whether a key (memory key, param, header, variable name) names a secret."""
    squashed = re.sub(r"[^a-z0-9]", "", key.lower())
    if any(part in squashed for part in _SECRET_PARTS):
        return True
    words = {w.lower() for w in _WORD.findall(key)}
    hits = words & _SECRET_WORDS
    if hits <= {"token", "tokens"} and words & _COUNT_WORDS:
        return False
    return bool(hits)


def redact_pair(key: str, value: str) -> str:
    """`value` with secrets redacted; all of it when `key` looks secret."""
    if is_secret_key(key) and value:
        return MASK
    return redact(value)


def redact(text: str) -> str:
    """`text` with every secret-shaped part replaced by `[REDACTED]` or `[REDACTED:kind]`.
    Repeated until nothing changes: a replacement can open a boundary another rule needs
    (a key glued to `https://u:p@h` hides the URL until the key is masked)."""
    for _ in range(5):  # a bound, though no rule matches a mask: two passes settle it
        before = text
        for pattern, replace in _RULES:
            text = pattern.sub(replace, text)
        text = _assignments(text)
        if text == before:
            break
    return text


def _kind(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"[REDACTED:{kind}]"


_TOKEN_CHARS = r"[A-Za-z0-9._~+/=-]"
_NOT_DONE = r"(?!\[REDACTED)"  # a value already replaced is left alone

#: (pattern, replacement), applied in order: whole blocks first, then token shapes, so that the
#: assignment rule below sees `KEY=[REDACTED:kind]` and leaves it.
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    # A PEM private key block; an unterminated one (a truncated paste) to the end of the text.
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?"
                r"(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)", re.DOTALL),
     _kind("private-key")),
    # scheme://user:password@host keeps the user: it says whose access it was.
    (re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*):([^\s/?#@]+)@"),
     lambda m: f"{m[1]}:{MASK}@"),
    # Fixed-length and prefixed shapes are matched even inside a longer word: a token pasted
    # against other text is still a token. A GitHub token ends where another one begins.
    (re.compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}"), _kind("aws-key")),
    (re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}?(?=gh[pousr]_|[^A-Za-z0-9]|\Z)"),
     _kind("github-token")),
    (re.compile(r"github_pat_[A-Za-z0-9_]{20,}?(?=github_pat_|gh[pousr]_|[^A-Za-z0-9_]|\Z)"),
     _kind("github-token")),
    (re.compile(r"(?<![A-Za-z0-9-])xox[abprs]-[A-Za-z0-9-]{10,}"), _kind("slack-token")),
    (re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"), _kind("stripe-key")),
    # OpenAI and Anthropic style (sk-..., sk-proj-..., sk-ant-...); a digit is required so a
    # long kebab-case name starting with 'sk-' is not taken for a key.
    (re.compile(r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}"), _kind("api-key")),
    # header.payload.signature; header and signature stop where another JWT begins ('eyJ' is
    # '{"' in base64), which also keeps the scan linear on runs of 'eyJ'.
    (re.compile(r"eyJ(?:(?!eyJ)[A-Za-z0-9_-]){10,}\.[A-Za-z0-9_-]{2,}\."
                r"(?:(?!eyJ)[A-Za-z0-9_-]){10,}"), _kind("jwt")),
    # A bearer token: 8+ characters with a digit, or 20+; 'Bearer tokens expire' stays prose.
    (re.compile(rf"\b([Bb]earer)\s+{_NOT_DONE}(?:(?={_TOKEN_CHARS}*\d){_TOKEN_CHARS}{{8,}}"
                rf"|{_TOKEN_CHARS}{{20,}})"),
     lambda m: f"{m[1]} {MASK}"),
)

# A quoted value; an unterminated one runs to the end of the line.
_QUOTED = r""""(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?"""
# KEY=value, KEY: value, "key": "value", key='value', API key: value. An auth scheme word
# before the value (Authorization: Basic ...) is kept, and never taken for the value itself.
# A key starts where no key character precedes it, so each run of key characters is tried once,
# and a value is matched only after a secret-looking key: the scan stays linear.
_ASSIGNED_KEY = re.compile(r"""(?<![A-Za-z0-9_.-])(?P<key>["']?[A-Za-z_][A-Za-z0-9_.-]*"""
                           r"""(?: [A-Za-z_][A-Za-z0-9_.-]*)?["']?)"""
                           r"[ \t]*[:=][ \t]*(?:(?:Basic|Bearer|Token|Digest)[ \t]+)?+")
_ASSIGNED_VALUE = re.compile(rf"""{_NOT_DONE}(?:{_QUOTED}|[^\s"',;&}}\])]+)""")
# --token VALUE: a command line's secret-looking flag with its value after a space.
_FLAG_KEY = re.compile(r"(?<![A-Za-z0-9_-])(?P<key>--?[A-Za-z][A-Za-z0-9_-]*)[ \t]+")
_FLAG_VALUE = re.compile(rf"""{_NOT_DONE}(?:{_QUOTED}|(?!-)[^\s"']+)""")


def _assignments(text: str) -> str:
    return _masked(_FLAG_KEY, _FLAG_VALUE, _masked(_ASSIGNED_KEY, _ASSIGNED_VALUE, text))


def _masked(key: re.Pattern[str], value: re.Pattern[str], text: str) -> str:
    """`text` with the value after each secret-looking `key` match masked (quotes kept)."""
    out, pos = [], 0
    while (found := key.search(text, pos)) is not None:
        out.append(text[pos:found.end()])
        pos = found.end()
        if is_secret_key(found["key"].strip("\"'-")):
            masked = value.match(text, pos)
            if masked is not None:
                quote = masked[0][0] if masked[0][0] in "'\"" else ""
                out.append(quote + MASK + quote)
                pos = masked.end()
    return "".join(out) + text[pos:]


def redact_data(data: Any) -> Any:
    """A copy of plain data (dicts, lists, scalars) with every string redacted, keys included."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {redact_data(k): redact_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_data(item) for item in data]
    return data
