"""Secret redaction for run history shown to people (`skillrail trace`, `report`): pure functions
over text.

A value is redacted when it has the shape of a known credential (every format the major
providers document by a prefix: OpenAI and Anthropic keys, Google, AWS, GitHub, GitLab, Slack,
Stripe, npm, PyPI, Hugging Face and others, plus JWTs and PEM private keys), sits in a URL's
password slot, or is assigned to a key that looks secret (`PASSWORD=...`, `"api_key": "..."`,
`--token ...`). Nothing is judged by entropy: git SHAs, UUIDs, paths and prose stay as they
are. Replacements read `[REDACTED]` or `[REDACTED:kind]`, which no rule matches again, so
redacting twice changes nothing.
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
                 "sessiontoken", "sessionkey", "accountkey")
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
        text = _prefixed(text)
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
_B = r"(?<![A-Za-z0-9])"  # a short prefix starts a word: `xhf_...` is not a token
#: (kind, needles, shape) of the credentials each provider documents by a fixed prefix and
#: length: AI providers, clouds, forges, package registries, chat and payment services. A shape
#: is compiled and tried only when one of its needles is in the text, so they cost a step
#: nothing until a credential-looking text comes by.
_PREFIXED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # OpenAI project, service-account and admin keys, the legacy form (its T3BlbkFJ is
    # base64 of 'OpenAI'), Anthropic API, admin and OAuth keys: digits or not.
    ("api-key", ("sk-",), r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),
    ("api-key", ("sk-ant-",), r"(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}"),
    ("api-key", ("T3BlbkFJ",), r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"),
    ("api-key", ("gsk_",), _B + r"gsk_[A-Za-z0-9]{40,}"),  # Groq
    ("api-key", ("xai-",), _B + r"xai-[A-Za-z0-9]{60,}"),  # xAI
    ("api-key", ("pplx-",), _B + r"pplx-[A-Za-z0-9]{40,}"),  # Perplexity
    ("api-key", ("r8_",), _B + r"r8_[A-Za-z0-9]{37,}"),  # Replicate
    ("api-key", ("tvly-",), _B + r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{30,}"),  # Tavily
    ("api-key", ("pcsk_",), _B + r"pcsk_[A-Za-z0-9_]{40,}"),  # Pinecone
    ("google-key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    ("google-token", ("ya29.",), _B + r"ya29\.[0-9A-Za-z_-]{20,}"),
    ("google-token", ("1//0",), _B + r"1//0[0-9A-Za-z_-]{40,}"),  # an OAuth refresh token
    ("google-secret", ("GOCSPX-",), r"GOCSPX-[0-9A-Za-z_-]{28}"),
    ("gitlab-token", ("gl",), _B + r"gl(?:pat|dt|rt|ptt|cbt|imt|ft|soat|agent|oas|ffct)-"
                                   r"[0-9A-Za-z_-]{20,}"),
    ("gitlab-token", ("GR1348941",), r"GR1348941[0-9A-Za-z_-]{20,}"),  # runner registration
    ("slack-token", ("xapp-", "xoxe"),
     r"(?<![A-Za-z0-9-])(?:xapp|xoxe(?:\.xox[bp])?)-\d-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", ("hooks.slack.com",),
     r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}"),
    ("stripe-key", ("whsec_",), _B + r"whsec_[A-Za-z0-9]{24,}"),
    ("npm-token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}"),
    ("pypi-token", ("pypi-AgE",), _B + r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", ("hf_", "api_org_"), _B + r"(?:hf|api_org)_[A-Za-z0-9]{34,}"),
    ("databricks-token", ("dapi",), _B + r"dapi[0-9a-f]{32}(?:-\d)?"),
    ("digitalocean-token", ("_v1_",), _B + r"do[opr]_v1_[0-9a-f]{64}"),
    ("sendgrid-key", ("SG.",), _B + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("shopify-token", ("shp",), _B + r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}"),
    ("docker-token", ("dckr_pat_",), _B + r"dckr_pat_[A-Za-z0-9_-]{27,}"),
    ("vault-token", ("hvs.", "hvb.", "hvr."), _B + r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("age-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("telegram-token", (":AA",), _B + r"\d{8,10}:AA[0-9A-Za-z_-]{33}"),
    ("azure-secret", ("Q~",), _B + r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("sentry-token", ("sntry",), _B + r"sntry[su]_[A-Za-z0-9+/=_-]{40,}"),
    ("linear-key", ("lin_api_",), _B + r"lin_api_[A-Za-z0-9]{40}"),
    ("notion-token", ("ntn_", "secret_"),
     _B + r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})"),
    ("postman-key", ("PMAK-",), _B + r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    ("grafana-token", ("glsa_", "glc_"),
     _B + r"(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|glc_[A-Za-z0-9+/=]{32,})"),
    ("newrelic-key", ("NRAK-",), _B + r"NRAK-[A-Z0-9]{27}"),
    ("atlassian-token", ("ATATT3",), _B + r"ATATT3[A-Za-z0-9_=-]{100,}"),
    ("planetscale-token", ("pscale_",), _B + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}"),
    ("supabase-key", ("sbp_", "sb_secret_"),
     _B + r"(?:sbp_[0-9a-f]{40}|sb_secret_[A-Za-z0-9_-]{20,})"),
    ("fly-token", ("fo1_",), _B + r"fo1_[A-Za-z0-9_-]{40,}"),
    ("twilio-key", ("SK",), _B + r"SK[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    ("mailchimp-key", ("-us",), _B + r"[0-9a-f]{32}-us\d{1,2}(?![0-9])"),
)


def _prefixed(text: str) -> str:
    """`text` with every provider-prefixed credential replaced."""
    for kind, needles, shape in _PREFIXED:
        if any(needle in text for needle in needles):
            text = re.sub(shape, _kind(kind), text)  # compiled once, by re's cache
    return text


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
    (re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"), _kind("aws-key")),
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
