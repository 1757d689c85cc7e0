"""The guard layer: enforcement that needs no run: the security gateway (policy, allow-list
grammar, path confinement, environment, sandbox, bounded execution), trust, the evidence store
and the ask_user gate's reading of it, redaction. It imports the layers below `run`."""
