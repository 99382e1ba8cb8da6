"""Native citations and agents through Inspect's CLI by registry name (installed copy).

Like ``test_cli_e2e.py``: skipped unless the installed inspect-cite matches this tree (CI
installs it and sets INSPECT_CITE_REQUIRE_INSTALLED=1).
"""

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

# require_installed is an autouse fixture: importing it applies it here too.
from tests.cli.test_cli_e2e import INSPECT, require_installed, run  # noqa: F401
from tests.conftest import ROOT
from tests.native.test_source_support import acceptance_answer, agent_messages, eval_log, sample

pytestmark = pytest.mark.slow


def test_source_support_rescores_an_agent_log_by_registry_name(tmp_path, cache_root):
    """Pages fetched with a fetch(url) tool; the answer's blocks carry UrlCitations: one
    supported by its page, one fetched but not supporting, one never fetched, one uncited."""
    log_path = tmp_path / "agent.eval"
    write_eval_log(eval_log([sample(agent_messages(acceptance_answer()))]), str(log_path))
    out = tmp_path / "rescored.eval"
    nli = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:claim_overlap"
    run(
        [
            INSPECT, "score", str(log_path), "--scorer", "scorers/source_support",
            "-S", f"nli={nli}", "--output-file", str(out), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    rescored = read_eval_log(str(out))
    value = rescored.samples[0].scores["source_support"].value
    assert value["cited_source_seen"] == pytest.approx(66.67, abs=0.01)
    assert value["supported_claims"] == 25
    assert value["uncited_claims"] == 25
    assert value["n_citations"] == 3
    metrics = {s.name: s.metrics for s in rescored.results.scores}
    assert metrics["supported_claims"]["mean"].value == 25
