"""The base layer: the one error hierarchy and where things are (the package, the state
folder). It imports nothing of skillrail's; every other layer may import it."""
