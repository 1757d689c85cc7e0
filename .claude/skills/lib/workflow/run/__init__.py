"""The run layer: one `--step` invocation, from argv through the ledger, the decision and the
view to the printed document (cli.main), and the runs the ledger keeps. It imports `guard` and
every layer below it."""
