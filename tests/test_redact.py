"""Secret redaction: each credential shape is caught, ordinary text is left alone, and redacting
twice changes nothing. Token-shaped values are assembled from parts, so no credential-looking
literal sits in this file."""

from __future__ import annotations

import time

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


@pytest.mark.parametrize("text", ["a" * 20_000, "a=b" * 7_000, "https://" * 3_000,
                                  "sk-" * 7_000, "a:" * 10_000, "a b:" * 5_000])
def test_long_hostile_text_is_redacted_in_linear_time(text: str) -> None:
    """A 20,000-character value (the most --set accepts) takes milliseconds, not seconds."""
    began = time.perf_counter()
    redact(text)
    assert time.perf_counter() - began < 0.5


def test_a_secret_glued_to_another_is_found_in_one_pass() -> None:
    """Found by hypothesis: masking the AWS key opened the boundary the URL rule needs."""
    once = redact("-----BEGINAKIAIOSFODNN7EXAMPLEhttps://u:p@h/")
    assert "u:p@" not in once and redact(once) == once
