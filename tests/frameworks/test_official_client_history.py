"""For every recorded scenario, the history Tandem would send next says what the official TypeScript client keeps.

See `tests.helpers.official_history`: the official client (`@ag-ui/client` 1.0.0, tests/node) is
run over the same recorded events; order, grouping and the clients' own ids aside, both lists
must say the same texts, calls and results — no message missing, none twice. Needs `node` and
`npm ci` in tests/node (or `TANDEM_NODE_MODULES`); skipped, saying which, without them.
"""

from __future__ import annotations

import pytest

from tests.helpers.official_history import items, node_modules, official_messages, tandem_next_messages
from tests.helpers.recorded import recorded
from tests.helpers.recorded_checks import prefetch, scenario_run

MODULES = node_modules()

pytestmark = pytest.mark.skipif(MODULES is None, reason="node or @ag-ui/client missing: run `npm ci` in tests/node")


@pytest.fixture(scope="module", autouse=True)
def _replay_all_first() -> None:
    prefetch()


@pytest.mark.parametrize(("framework", "scenario"), recorded(), ids=[f"{f}-{s}" for f, s in recorded()])
def test_the_next_history_says_what_the_official_client_keeps(framework: str, scenario: str) -> None:
    assert MODULES is not None
    theirs = items(official_messages(framework, scenario, MODULES))
    ours = items(tandem_next_messages(scenario_run(framework, scenario)))
    assert ours == theirs, f"only Tandem's: {dict(ours - theirs)}; only the official client's: {dict(theirs - ours)}"
