"""Every case of the attack corpus, run end to end the way an agent meets it: a trusted skill's
step carries the case as a `` !`cmd` `` (or, when that cannot hold it, as its `verify=`), and
the step script is run as a subprocess. Nothing may run: no canary, no ref or repository
config changed, no byte of the secret outside the workspace printed, and every case the step
shows is refused by the gateway. Under the policy layer alone, and inside bubblewrap."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from .gateway_support import (
    HAS_BWRAP,
    SECRET_MARK,
    STEP_SCRIPT,
    UNWRITABLE,
    World,
    attacks,
    expected_rules,
)

#: A trusted skill holds no link out of its folder (World.trust removes it first): end to end,
#: the link's case finds no script where the policy layer alone would see where it leads.
EXPECTED = {**expected_rules(), **UNWRITABLE,
            "python3 ${SKILL_DIR}/scripts/link-to-outside.py": "script-missing"}
CASES = attacks() + list(UNWRITABLE)
MODES = [pytest.param("off", id="policy-only"),
         pytest.param("required", id="bwrap", marks=pytest.mark.skipif(
             not HAS_BWRAP, reason="bubblewrap is not installed (apt-get install bubblewrap)"))]


@pytest.fixture(scope="module", params=MODES)
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> World:
    made = World(tmp_path_factory.mktemp("attacks"))
    made.unrestricted()  # the policy alone must hold, whatever allowed-tools would add
    (made.skill / "scripts" / "attack.py").write_text(STEP_SCRIPT)
    made.sandbox(request.param)
    made.home = str(tmp_path_factory.mktemp("home"))  # one ledger: one trust for every case
    made.trust(SKILLRAIL_HOME=made.home)
    return made


#: Cases also run with the step script in a process of its own, as an agent runs it: one for
#: each rule the corpus expects, so the whole path from argv to the refusal is walked in a real
#: interpreter for every rule (the corpus itself runs the step in-process, harness.agent).
IN_A_PROCESS = sorted({rule: case for case, rule in EXPECTED.items()}.values())


@pytest.mark.parametrize("case, process", [
    *(pytest.param(case, False, id=case[:40]) for case in CASES),
    *(pytest.param(case, True, id=f"process-{case[:40]}") for case in IN_A_PROCESS)])
def test_nothing_of_an_attack_runs_end_to_end(world: World, case: str, process: bool) -> None:
    refs = world.refs()
    proc = world.step(case, process=process)
    assert "Traceback" not in proc.stderr
    assert not world.canary.exists(), "the canary was created"
    assert world.refs() == refs, "a ref or the repository's config changed"
    assert not world.leaked(proc.stdout, proc.stderr), "the secret was printed"
    if proc.returncode == 0:  # the step printed: the gateway must have refused the case
        contexts = ET.fromstring(proc.stdout).findall("DO/context")
        assert contexts and {c.get("status") for c in contexts} == {"refused"}, proc.stdout
        assert f"rule '{EXPECTED[case]}'" in (contexts[0].text or ""), contexts[0].text
    else:  # registration refused a verify command the gateway could never run (W018)
        assert proc.returncode == 1 and "W018" in proc.stderr, proc.stderr
        assert f"rule '{EXPECTED[case]}'" in proc.stderr, proc.stderr


def test_the_world_is_hostile_enough() -> None:
    """The corpus aims at what the world holds: a secret behind a symlink, a root link."""
    text = "\n".join(CASES)
    assert "pw" in text and "rootlink" in text and "hl" in text and SECRET_MARK not in text
