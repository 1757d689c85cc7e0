"""Secret redaction: each credential shape is caught, ordinary text is left alone, and redacting
twice changes nothing. Token-shaped values are assembled from parts, so no credential-looking
literal sits in this file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skills.lib.workflow.guard.redact import MASK, is_secret_key, redact, redact_data, redact_pair

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "aB3dE6gH9j" * 4
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
       + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd==\n"
       "-----END RSA PRIVATE KEY-----")

#: Long texts that would make a backtracking rule take seconds (benchmarks/redact_cost.py
#: times them), none holding a credential.
HOSTILE = ["a" * 20_000, "a=b" * 7_000, "https://" * 3_000, "sk-" * 7_000, "a:" * 10_000,
           "a b:" * 5_000, "h" "f_" * 7_000, ":AA" * 7_000, "Q~" * 10_000, "1" * 20_000,
           "SK" + "f" * 20_000]

#: (what, text, the text redacted)
SHAPES = [
    ("aws access key id", f"key {AWS} here", "key [REDACTED:aws-key] here"),
    ("aws session key id", "ASIA" + "Y34FZKBOKMUTVV7A", "[REDACTED:aws-key]"),
    ("github classic token", f"use {GITHUB}.", "use [REDACTED:github-token]."),
    ("github app token", "ghs_" + "x" * 36, "[REDACTED:github-token]"),
    ("github oauth token", "gho_" + "Z9" * 18, "[REDACTED:github-token]"),
    ("github refresh token", "ghr_" + "k1" * 20, "[REDACTED:github-token]"),
    ("github fine-grained token", "github_pat_" + "11ABC_" * 8, "[REDACTED:github-token]"),
    ("slack bot token", "xox" + "b-1234567890-abcdefABCDEF", "[REDACTED:slack-token]"),
    ("slack user token", "xox" + "p-99-88-77-abcdef", "[REDACTED:slack-token]"),
    ("stripe live key", "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe-key]"),
    ("openai project key", "sk-" + "proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7", "[REDACTED:api-key]"),
    ("anthropic key", "sk-" + "ant-api03-" + "q" * 30 + "9", "[REDACTED:api-key]"),
    ("jwt", f"cookie {JWT};", "cookie [REDACTED:jwt];"),
    ("bearer token", "Authorization: Bearer abc123def456ghi",
     "Authorization: Bearer [REDACTED]"),
    ("basic auth header", "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"),
    ("pem private key", f"before\n{PEM}\nafter", "before\n[REDACTED:private-key]\nafter"),
    ("truncated pem", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn", "[REDACTED:private-key]"),
    ("url credentials", "git clone https://bob:s3cr3t@example.com/r.git",
     "git clone https://bob:[REDACTED]@example.com/r.git"),
    ("url password only", "redis://:pw@cache:6379/0", "redis://:[REDACTED]@cache:6379/0"),
    ("url query token", "GET https://h.example/api?token=abc123&page=2",
     "GET https://h.example/api?token=[REDACTED]&page=2"),
    ("env assignment", "export DB_PASSWORD=hunter2; run", "export DB_PASSWORD=[REDACTED]; run"),
    ("json password", '{"password": "hu\\"nter2", "user": "bob"}',
     '{"password": "[REDACTED]", "user": "bob"}'),
    ("yaml secret", "client_secret: 'abc def'", "client_secret: '[REDACTED]'"),
    ("api key words", "API key: abc123", "API key: [REDACTED]"),
    ("camel case key", "dbPassword=xyz", "dbPassword=[REDACTED]"),
    ("session cookie", "session_cookie=abc", "session_cookie=[REDACTED]"),
    ("private key var", "PRIVATE_KEY=abc", "PRIVATE_KEY=[REDACTED]"),
    ("command flag", "login --token abc123 --user bob", "login --token [REDACTED] --user bob"),
    ("skillrail --set", "--set API_TOKEN='abc'", "--set API_TOKEN='[REDACTED]'"),
    ("unterminated quote", 'password="abc', 'password="[REDACTED]"'),
    ("shape under a secret key", f"GITHUB_TOKEN={GITHUB}", "GITHUB_TOKEN=[REDACTED:github-token]"),
]

LETTERS = "AbCdEfGhIjKlMnOpQrStUvWxYzaBcDeFgHiJkLmNoPqRsTuVwXyZ"  # no digit: a key may have none
MIXED = "q7Rk2Vx9Lm4Tz8Wc3Nb6Hd1Gf5Js0Yp"
HEX = "9f86d081884c7d659a2feaa0c55ad015"


def body(alphabet: str, length: int) -> str:
    """`length` characters cycled from `alphabet`: a fake key body of the documented size."""
    return (alphabet * (length // len(alphabet) + 1))[:length]


#: (what, the key, its kind): each provider's documented format, a fake of the right shape.
PROVIDER_KEYS = [
    ("openai project key", "sk-" + "proj-" + body(LETTERS + "_-", 74) + "T3Blbk" + "FJ"
     + body(LETTERS, 74), "api-key"),
    ("openai service account key", "sk-" + "svcacct-" + body(LETTERS + "-_", 80), "api-key"),
    ("openai admin key", "sk-" + "admin-" + body(LETTERS, 64), "api-key"),
    ("openai legacy key", "sk-" + body(LETTERS, 20) + "T3Blbk" + "FJ" + body(LETTERS, 20),
     "api-key"),
    ("anthropic key", "sk-" + "ant-api03-" + body(MIXED + "-_", 93) + "AA", "api-key"),
    ("anthropic admin key", "sk-" + "ant-admin01-" + body(LETTERS, 93) + "AA", "api-key"),
    ("google api key", "AI" + "za" + "Sy" + body(MIXED + "-_", 33), "google-key"),
    ("google oauth token", "ya" + "29." + body(MIXED + "-_", 120), "google-token"),
    ("google oauth client secret", "GOC" + "SPX-" + body(MIXED + "-_", 28), "google-secret"),
    ("gitlab personal token", "gl" + "pat-" + body(LETTERS, 20), "gitlab-token"),
    ("gitlab runner token", "gl" + "rt-" + body(MIXED, 20), "gitlab-token"),
    ("gitlab deploy token", "gl" + "dt-" + body(MIXED, 20), "gitlab-token"),
    ("slack app token", "xa" + "pp-1-A0" + body(MIXED.upper(), 9) + "-" + "1" * 13 + "-"
     + HEX * 2, "slack-token"),
    ("slack webhook", "https://hooks.slack.com/services/T" + "0" * 8 + "/B" + "0" * 8 + "/"
     + body(LETTERS, 24), "slack-webhook"),
    ("stripe restricted key", "rk" + "_live_" + body(MIXED, 24), "stripe-key"),
    ("stripe webhook secret", "wh" + "sec_" + body(MIXED, 32), "stripe-key"),
    ("npm token", "np" + "m_" + body(MIXED, 36), "npm-token"),
    ("pypi token", "py" + "pi-AgEIcHlwaS5vcmc" + body(MIXED + "-_", 70), "pypi-token"),
    ("hugging face token", "h" + "f_" + body(LETTERS, 34), "huggingface-token"),
    ("databricks token", "da" + "pi" + HEX, "databricks-token"),
    ("digitalocean token", "do" + "p_v1_" + HEX * 2, "digitalocean-token"),
    ("sendgrid key", "S" + "G." + body(MIXED, 22) + "." + body(MIXED + "-_", 43),
     "sendgrid-key"),
    ("shopify token", "sh" + "pat_" + HEX, "shopify-token"),
    ("groq key", "gs" + "k_" + body(MIXED, 52), "api-key"),
    ("xai key", "x" + "ai-" + body(MIXED, 80), "api-key"),
    ("docker hub token", "dc" + "kr_pat_" + body(MIXED + "-_", 27), "docker-token"),
    ("vault token", "hv" + "s." + body(MIXED, 90), "vault-token"),
    ("age secret key", "AGE-SECRET" + "-KEY-1" + body(MIXED.upper(), 58), "age-key"),
    ("telegram bot token", "123456789" + ":AA" + body(MIXED + "-_", 33), "telegram-token"),
    ("azure client secret", "abc" + "8Q~" + body(MIXED + "~.", 34), "azure-secret"),
]
SHAPES += [(what, f"key: {key} ", f"key: [REDACTED:{kind}] ")
           for what, key, kind in PROVIDER_KEYS]
SHAPES += [(f"{what} alone", key, f"[REDACTED:{kind}]") for what, key, kind in PROVIDER_KEYS]
SHAPES += [("azure storage key", "AccountName=x;AccountKey=" + body(MIXED, 86) + "==;",
            "AccountName=x;AccountKey=[REDACTED];")]

#: Text that must come back unchanged.
ORDINARY = [
    ("prose", "The password policy requires twelve characters; rotate tokens yearly."),
    ("git sha", "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f fixed it"),
    ("short sha", "see 3f2a9c1 and abc1234"),
    ("uuid", "run 123e4567-e89b-12d3-a456-426614174000 ended"),
    ("paths", "/home/bob/.ssh/id_rsa.pub and C:\\Users\\bob\\token-list.txt and ./sk-learn/x"),
    ("url without credentials", "https://example.com/a/b?page=2#top and redis://user@host"),
    ("kebab names", "disk-usage sk-learn task-runner-20240101"),
    ("bearer in prose", "Bearer tokens expire after an hour."),
    ("counts of tokens", "max_tokens=4096 total_tokens: 12 token_budget=3"),
    ("keys that only look close", "author=bob tokenizer=bpe passes=3 keyboard: us"),
    ("times and ratios", "at 12:00:01, ratio=3:4"),
    ("base64 without a key", "data: aGVsbG8gd29ybGQ="),
    ("step ids and outcomes", "check --iterate--> gather  [loop-exhausted]"),
    ("empty", ""),
    ("git output", "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b (HEAD -> main)\n"
                   "Merge: 3f2a9c1 abc1234\n:100644 100644 e69de29 0cfbf08 M\tsrc/app.py\n"
                   "index e69de29bb2d1d6434b8b29ae775ad8c2e48c5391..0cfbf08886fca9a91cb753ec8734c"
                   "84fcbe52c9f 100644"),
    ("ids and digests", "request 123e4567-e89b-12d3-a456-426614174000 image sha256:9f86d0818"
                        "84c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 go h1:Wx7Y4+"
                        "9f86d081884c7d659a2feaa0c55ad=="),
    ("integrity hashes", '"integrity": "sha512-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c'
                         'd15d6c15b0f00a089f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6'
                         'c15b0f00a08=="'),
    ("base64 of ordinary data", "payload: eyJuYW1lIjogImJvYiJ9 and aGVsbG8gd29ybGQgaGVsbG8gd29"
                                "ybGQgaGVsbG8gd29ybGQ="),
    ("identifiers", "hf_hub_download npm_config_cache gsk_utils sk_live_mode AIza skills "
                    "dapi_client glpat- xai-sdk r8_retry secret_key_base"),
    ("kebab and snake", "sk-learn-compat ya29-notes shpat_helper SG.config AccountKeyVault"),
]


@pytest.mark.parametrize(("what", "text", "expected"), SHAPES, ids=[s[0] for s in SHAPES])
def test_each_secret_shape_is_redacted(what: str, text: str, expected: str) -> None:
    """Each credential shape is replaced, and the text around it kept."""
    assert redact(text) == expected


@pytest.mark.parametrize(("what", "text"), ORDINARY, ids=[o[0] for o in ORDINARY])
def test_ordinary_text_is_left_alone(what: str, text: str) -> None:
    """Prose, SHAs, UUIDs, paths and plain URLs are not secrets."""
    assert redact(text) == text


@pytest.mark.parametrize("key", ["password", "DB_PASSWD", "apiKey", "api key", "API-KEY",
                                 "X-Auth-Token", "Authorization", "client_secret", "GH_PAT",
                                 "aws_secret_access_key", "private key", "session cookie",
                                 "credentials", "oauth_refresh_token", "pwd"])
def test_secret_looking_keys_mask_the_whole_value(key: str) -> None:
    """redact_pair masks any value, whatever its shape, when the key looks secret."""
    assert is_secret_key(key)
    assert redact_pair(key, "plain words") == MASK


@pytest.mark.parametrize("key", ["NOTE", "author", "tokenizer", "max_tokens", "passes",
                                 "QR_VERDICT", "keyboard", "session", "path"])
def test_ordinary_keys_redact_only_secret_shapes(key: str) -> None:
    """Under an ordinary key, only secret-shaped parts of the value are replaced."""
    assert not is_secret_key(key)
    assert redact_pair(key, f"saw {GITHUB} there") == "saw [REDACTED:github-token] there"


def test_an_empty_secret_value_stays_empty() -> None:
    """Nothing to hide in an empty value: it stays empty, so a missing value still shows."""
    assert redact_pair("password", "") == ""


def test_data_is_redacted_everywhere_keys_included() -> None:
    """redact_data walks dicts and lists, redacting keys and values, leaving numbers alone."""
    data = {GITHUB: ["password=x", 3, None], "n": {"url": "https://a:b@h"}}
    assert redact_data(data) == {"[REDACTED:github-token]": ["password=[REDACTED]", 3, None],
                                 "n": {"url": "https://a:[REDACTED]@h"}}


_PIECES = st.sampled_from([GITHUB, AWS, JWT, PEM, "password=x", "Bearer abc123def", " ", "\n",
                           "=", ":", '"', "'", "https://u:p@h/", "--token", "[REDACTED]",
                           "sk-", "eyJ", "-----BEGIN", "token"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=12).map("".join))
def test_redacting_twice_changes_nothing(text: str) -> None:
    """redact is idempotent: a redacted text has nothing left to redact."""
    once = redact(text)
    assert redact(once) == once


@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=12).map("".join))
@settings(max_examples=300, deadline=None)
def test_no_known_token_survives(text: str) -> None:
    """Whatever surrounds them, the token-shaped values never come out whole."""
    out = redact(text)
    for token in (GITHUB, AWS, JWT):
        assert token not in out


@pytest.mark.parametrize("text", HOSTILE)
def test_long_hostile_text_without_a_credential_comes_back_whole(text: str) -> None:
    """A 20,000-character value (the most --set accepts) built to make the rules backtrack,
    holding no credential, is left as it is. How long it takes: benchmarks/redact_cost.py."""
    assert redact(text) == text


def test_long_hostile_text_of_credentials_leaves_none_of_them() -> None:
    """20,000 characters of back-to-back Google key shapes (AIza and 35 more characters): what
    is left holds no 39 characters of them in a row, and redacting it again changes nothing."""
    out = redact("AI" "za" * 5_000)
    assert out.startswith("[REDACTED:google-key]") and "AIza" * 9 not in out
    assert redact(out) == out


def test_a_secret_glued_to_another_is_found_in_one_pass() -> None:
    """Found by hypothesis: masking the AWS key opened the boundary the URL rule needs."""
    once = redact("-----BEGINAKIAIOSFODNN7EXAMPLEhttps://u:p@h/")
    assert "u:p@" not in once and redact(once) == once
