"""Claude Code hooks that turn a skill's advice into enforcement (docs/DESIGN.md section 4).

`entry.py` is what `.claude/settings.json` runs (interpreter and script by absolute path, so no
`skillrail` on PATH is needed): it reads the hook's JSON payload, lets `decisions` judge it, and
prints the documented JSON answer or nothing. It fails safe: any doubt, error or missing ledger
lets the agent's action through. `payload` reads the stdin JSON, `shell` a Bash command line,
`rules` Claude Code permission rules, `settings` merges the hooks into a settings file.
"""
