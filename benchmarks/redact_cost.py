#!/usr/bin/env python3
"""Benchmark: what redaction costs on the longest, most hostile values a run can hold. Each text
of tests/test_redact.py's HOSTILE (20,000 characters, the most --set accepts, built so that a
backtracking rule would take seconds: repeated prefixes, separators and near-credentials) and a
text of back-to-back credential shapes is redacted, in this process, a few times.

Run: python benchmarks/redact_cost.py [--rounds N]
Goal (the redaction issue): linear time, milliseconds per text, never seconds: under 0.5 s each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.test_redact

from skills.lib.workflow.guard.redact import redact

from tests.test_redact import HOSTILE

GOAL_SECONDS = 0.5
TEXTS = [*HOSTILE, "AI" "za" * 5_000]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="redactions of each text")
    args = parser.parse_args()
    redact("warm up: compile the rules")
    worst = 0.0
    for text in TEXTS:
        times = []
        for _ in range(args.rounds):
            began = time.perf_counter()
            redact(text)
            times.append(time.perf_counter() - began)
        worst = max(worst, *times)
        shown = f"{text[:12]!r}... ({len(text)} chars)"
        print(f"{shown:34} median {statistics.median(times) * 1000:7.1f} ms  "
              f"max {max(times) * 1000:7.1f} ms")
    print(f"goal: under {GOAL_SECONDS} s a text; worst {worst * 1000:.1f} ms "
          f"({'met' if worst < GOAL_SECONDS else 'MISSED'})")
    return 0 if worst < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
