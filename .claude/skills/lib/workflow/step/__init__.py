"""The step path: one `--step` invocation, from argv through the run's checks, the decision and
the view to the printed document (cli.main). It imports `ledger`, `guard` and every layer below
them; the imports a `--step` makes stay lazy here (the step-path contract in pyproject.toml)."""
