"""The log viewer shows the scorers' explanations: `inspect view` in headless Chromium."""

import os
import shutil

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def test_viewer_shows_explanations(own_prompts, tmp_path):
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not shutil.which(chromium) or not shutil.which(
        "inspect", path=os.path.dirname(os.sys.executable)
    ):
        if os.environ.get("INSPECT_CITE_REQUIRE_INSTALLED") == "1":
            pytest.fail(
                f"{chromium} or the inspect command is missing (CI installs Debian's chromium)"
            )
        pytest.skip(f"{chromium} not installed")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "viewer_screenshots", ROOT / "docs" / "viewer_screenshots.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--chromium", chromium]) == 0
    for name in ("viewer_alce.png", "viewer_fullcite.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# An answer holding every character markdown, HTML or the viewer reads: the viewer must show
# each explanation's copy of it exactly as written.
HOSTILE = (
    'Adults > 65 & kids < 5 (p < 0.05) aren\'t "at risk" *per se*, see `code`, '
    "snake_case_name, {braces} | pipes, [x] ~~no~~ $5 and $6 \\ cited"
)
ENTITIES = ("&lt;", "&gt;", "&amp;", "&apos;", "&quot;")


def _fullcite_answer(prompt: str) -> str:
    import re

    m = re.search(r"^Document 1 \(doc_id: (.+?)\): .*\n(.+)$", prompt, re.MULTILINE)
    assert m, "the FullCite prompt shows its first document"
    snippet = " ".join(m.group(2).split()[:6])
    # The citation right after a word: bold there needs its delimiters inside the citation.
    return f"{HOSTILE}{{doc_id: {m.group(1)}, snippet: {snippet}}}. Second_claim *x* here."


def _hostile_logs(log_dir, nli):
    """An ALCE and a FullCite log whose answers are HOSTILE, scored by every explaining scorer."""
    from inspect_ai import score as inspect_score
    from inspect_ai.log import write_eval_log

    from alce_tasks import asqa
    from fullcite_tasks import bioasq
    from scorers.source_support import source_support
    from tests.conftest import FIXTURES
    from tests.helpers.evals import eval_one
    from tests.helpers.scripted_models import scripted_model, scripted_output

    alce_answer = f"{HOSTILE} [1]. Also E[2] held."
    alce = eval_one(
        asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=nli, diagnose=True),
        scripted_model([alce_answer])[0], limit=1, log_dir=str(log_dir),
    )  # fmt: skip
    fullcite = eval_one(
        bioasq(
            dataset_path=str(FIXTURES / "fullcite_bioasq.json"),
            abstracts_path=str(FIXTURES / "fullcite_bioasq_abstracts.json"),
            similarity_model=None, attribution=True, diagnose=True, nli=nli,
        ),
        scripted_model(lambda input, *_: scripted_output(_fullcite_answer(input[-1].text)))[0],
        limit=1, log_dir=str(log_dir),
    )  # fmt: skip
    # source_support on the same answer (it scores any log).
    fullcite = inspect_score(fullcite, [source_support(nli=nli)], action="append", display="none")
    write_eval_log(fullcite)
    return [(alce, alce_answer), (fullcite, fullcite.samples[0].output.completion)]


def test_viewer_shows_every_explanation_of_hostile_answers_literally(
    own_prompts, fresh_nli, tmp_path
):
    """Each scorer's explanation shows the answer's characters as written: no HTML entity, no
    backslash or emphasis marker left over, and the citations in bold wherever they stand."""
    from inspect_cite.citations.alce import alce_scoring_output, remove_citations
    from tests.helpers.viewer import open_scoring_tab, require_viewer, viewer_page

    require_viewer()
    nli = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:word_entail"
    logs = _hostile_logs(tmp_path / "logs", nli)
    with viewer_page(tmp_path / "logs") as (base, page):
        for log, answer in logs:
            [sample] = log.samples
            scorers = set(sample.scores)
            text = open_scoring_tab(page, base, log.location, sample)
            bold = [t.strip() for t in page.locator(".markdown-content strong").all_inner_texts()]
            for entity in ENTITIES:
                assert entity not in text, f"{entity} shown in {log.eval.task}"
            assert "**" not in text and "\\*" not in text and "\\_" not in text
            # Every explanation's "Answer:" line is the answer, character for character (the
            # prompt's demonstrations have "Answer:" lines too).
            lines = [line for line in text.splitlines() if line.startswith("Answer: Adults")]
            assert lines and all(line == f"Answer: {answer}" for line in lines), lines
            if "citation_nli" in scorers:
                assert {"citation_nli", "alce_correctness"} <= scorers
                assert "[1]" in bold and "2]" in bold  # "E[2]": bold from its digit on
                scored = remove_citations(alce_scoring_output(answer))
                lines = text.splitlines()
                heading = next(i for i, line in enumerate(lines) if "Scored text" in line)
                shown = next(line for line in lines[heading + 1 :] if line.strip())
                assert shown == scored.strip()
                assert "Diagnose:" in text  # diagnose's lines too
                assert sum(HOSTILE in line for line in text.splitlines()) >= 3
            else:
                assert {"doc_snippet_f1", "claim_support", "source_support"} <= scorers
                # The citation stands right after a word: bold from "doc_id" on.
                assert any(b.startswith("doc_id: ") and b.endswith("}") for b in bold), bold
                assert "Second_claim *x* here." in text
                assert sum(HOSTILE in line for line in text.splitlines()) >= 4
