"""What the framework promises about text, restated from the promise itself, for property tests
to compare its output against: never the code under test, whose bug would agree with itself."""

from __future__ import annotations

import string


def xml_chars(text: str) -> str:
    """`text` restricted to the XML 1.0 Char production, line ends as LF (what survives into a
    document)."""
    def allowed(c: str) -> bool:
        n = ord(c)
        return (c in "\t\n\r" or 0x20 <= n <= 0xD7FF or 0xE000 <= n <= 0xFFFD
                or 0x10000 <= n <= 0x10FFFF)
    kept = "".join(c for c in text if allowed(c))
    return kept.replace("\r\n", "\n").replace("\r", "\n")  # line ends normalised to LF


def loop_id(name: str) -> str:
    """A review loop's name as a step id names it ('QR-Completeness' -> 'qr-completeness'): the
    lowercased name's runs of ASCII letters and digits, joined by one hyphen each; 'qr' when
    it has none."""
    runs, current = [], ""
    for c in name.lower():
        if c in string.ascii_lowercase or c in string.digits:
            current += c
        elif current:
            runs.append(current)
            current = ""
    runs += [current] if current else []
    return "-".join(runs) or "qr"
