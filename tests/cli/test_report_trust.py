"""A TRUST-SCORE run in the report: its headline first, its counts not "higher is better"."""

import json

from inspect_ai import eval as inspect_eval

from alce_tasks import asqa
from inspect_cite.app import report
from inspect_cite.app.log_metrics import HIGHER_IS_BETTER, NO_DIRECTION
from tests.trust.helpers import MAIN_FILES, NLI, items
from tests.trust.test_trust_task import answering_model, trust_prompts  # noqa: F401


def test_trust_panels_lead_with_the_headline_and_counts_have_no_direction(
    tmp_path,
    fresh_nli,
    cache_root,
    trust_prompts,  # noqa: F811
    monkeypatch,
):
    records = list({r["question"]: r for r in items(MAIN_FILES["asqa"])}.values())
    data = tmp_path / "trust.json"
    data.write_text(json.dumps([{k: v for k, v in r.items() if k != "output"} for r in records]))
    task = asqa(dataset_path=str(data), nli=NLI, ndoc=5, shot=2, trust=True)
    logs = tmp_path / "logs"
    inspect_eval(task, model=answering_model(records), display="none", log_dir=str(logs))
    titles: list[list[str]] = []

    def keep(fig, path):
        if path.name.endswith("_metrics.png"):
            titles.append([ax.get_title() for ax in fig.axes if ax.get_visible()])

    monkeypatch.setattr(report, "_save", keep)
    report.write_report(logs, tmp_path / "report")
    [panels] = titles
    names = [t.split("\n")[0] for t in panels]
    assert names[0] == "trust_score (trust_score)", names
    directions = {t.split("\n")[0]: t.split("\n")[-1] for t in panels}
    assert directions["trust_score (trust_score)"] == HIGHER_IS_BETTER
    for key in ("num_samples", "answered_num", "regular_length", "answered_length"):
        assert directions[f"trust_score ({key})"] == NO_DIRECTION, key
