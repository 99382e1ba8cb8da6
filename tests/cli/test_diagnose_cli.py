"""``-S diagnose=true`` through ``inspect score`` on the installed plugin, by registry name.

Like ``test_cli_e2e.py``: skipped unless the installed inspect-cite matches this tree (CI
installs it and sets INSPECT_CITE_REQUIRE_INSTALLED=1).
"""

import pytest
from inspect_ai.log import read_eval_log

from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.nli.diagnose import DIAGNOSE_CLASSES, DIAGNOSE_KEYS

# require_installed is an autouse fixture: importing it applies it here too.
from tests.cli.test_cli_e2e import INSPECT, require_installed, run  # noqa: F401
from tests.conftest import ROOT
from tests.helpers.diagnose_cases import ALCE_FOUR, FULLCITE_FOUR, alce_sample, fullcite_sample
from tests.helpers.evals import score_answers

pytestmark = pytest.mark.slow

# The judge by file path: the subprocess runs outside the repository.
NLI = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:word_entail"


@pytest.mark.parametrize(
    ("scorer", "sample", "answer"),
    [("citation_nli", alce_sample, ALCE_FOUR), ("claim_support", fullcite_sample, FULLCITE_FOUR)],
)
def test_inspect_score_diagnose_gives_each_class_25(scorer, sample, answer, tmp_path, cache_root):
    log = score_answers([sample(answer)], {answer: answer}, [], log_dir=str(tmp_path / "logs"))
    out = tmp_path / "rescored.eval"
    run(
        [
            INSPECT, "score", log.location, "--scorer", f"scorers/{scorer}",
            "-S", f"nli={NLI}", "-S", "diagnose=true", "--action", "append",
            "--output-file", str(out), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    rescored = read_eval_log(str(out))
    [scored] = rescored.samples
    value = scored.scores[scorer].value
    assert {k: value[k] for k in DIAGNOSE_CLASSES} == dict.fromkeys(DIAGNOSE_CLASSES, 25.0)
    assert value["uncited_but_supported"] == 25.0
    metrics = log_metrics(rescored)
    assert {k: metrics[k]["mean"] for k in DIAGNOSE_KEYS} == dict.fromkeys(DIAGNOSE_KEYS, 25.0)
