"""Which keys an empty answer scores 0 and which nan, exactly as docs/alce.md ("An empty answer") says
(issue 52, item 7): eval.py scores an empty answer, so its correctness keys are 0; only what
eval.py skips (citations of an ASQA/ELI5 answer with no statements) is nan."""

import math
import re

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa, eli5, qampari
from tests.conftest import FIXTURES, ROOT
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"

EXPECTED = {
    "asqa": (
        asqa,
        {"length": 0, "str_em": 0, "str_hit": 0, "rougeLsum": 0},
        {"citation_rec", "citation_prec"},
    ),
    "eli5": (
        eli5,
        {"length": 0, "rougeLsum": 0, "claims_nli": 0},
        {"citation_rec", "citation_prec"},
    ),
    "qampari": (
        qampari,
        {
            "length": 0,
            "num_preds": 0,
            "qampari_prec": 0,
            "qampari_rec": 0,
            "qampari_rec_top5": 0,
            "qampari_f1": 0,
            "qampari_f1_top5": 0,
            "citation_rec": 0,
            "citation_prec": 0,
        },
        set(),
    ),
}


@pytest.mark.parametrize("name", EXPECTED)
def test_an_empty_answer_scores_what_readme_says(name, own_prompts, fresh_nli, tmp_path):
    factory, zero, unknown = EXPECTED[name]
    model, _ = scripted_model([""])
    task = factory(dataset_path=str(FIXTURES / f"alce_{name}.json"), nli=NLI)
    [log] = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path), limit=1)
    assert log.status == "success", log.error
    values = {k: v for score in log.samples[0].scores.values() for k, v in score.value.items()}
    assert {k: v for k, v in values.items() if not math.isnan(v)} == zero
    assert {k for k, v in values.items() if math.isnan(v)} == unknown


def test_the_docs_name_the_keys_an_empty_answer_scores_0():
    docs = (ROOT / "docs" / "alce.md").read_text()
    section = docs[docs.index("### An empty answer") : docs.index("### Correctness")]
    said = " ".join(section.split())
    readme = (ROOT / "README.md").read_text()
    assert "([which keys](docs/alce.md#an-empty-answer))" in " ".join(readme.split())
    zero_part = said[said.index("so these keys are 0 for it") :]
    named = set(re.findall(r"`([A-Za-z_0-9*]+)`", zero_part))
    for _, zero, _ in EXPECTED.values():
        for key in zero:
            assert key in named or (key.startswith("qampari_") and "qampari_*" in named), key
    assert "citation_rec`/`citation_prec` of an ASQA or ELI5 answer with no statements" in said
