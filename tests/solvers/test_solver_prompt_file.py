"""``-S prompt_file`` on the ALCE solvers, and the prompt file checked before generation.

Issue 40, item 4: docs/alce.md documents ``-S prompt_file`` for a solver, but the ALCE solvers
refused it; offline, README's "Your own data" example failed mid-run with a traceback that
suggested ``-T prompt_file``, which a task of one's own ignores. The solvers that give a
sample of one's own task VANILLA's prompt (``alce_vanilla``, ``alce_rerank``,
``constrained_citations`` in ALCE format) take ``prompt_file`` and read and check the file
their samples get when they are built: a refusal is one message naming ``-S prompt_file``,
before any generation. The ALCE tasks build their samples' prompts themselves (and check
their own file, ``-T prompt_file``): their solvers read no file.

Every test runs offline with an empty inspect-cite cache: ALCE's official files cannot be had.
"""

import json

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample

from alce_tasks import qampari
from inspect_cite.alce.prompts import PROMPT_DIR_ENV, PromptFileError
from solvers import alce_rerank, alce_vanilla, constrained_citations
from tests.conftest import FIXTURES, sample_prompt
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"
DOCS = [{"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower stands in Paris."}]
QUESTION = "Where is the Eiffel Tower?"
INSTRUCTION = "Answer from the documents and cite each one you use as [n]."

SOLVERS = [
    pytest.param(lambda **kw: alce_vanilla(**kw), id="alce_vanilla"),
    pytest.param(lambda **kw: alce_rerank(n=1, nli=NLI, **kw), id="alce_rerank"),
    pytest.param(
        lambda **kw: constrained_citations(format="alce", retries=0, **kw),
        id="constrained_citations",
    ),
]


@pytest.fixture
def offline(cache_root, monkeypatch):
    """No official prompt file can be had: an empty cache, no prompt folder, no network."""

    def unreachable(url, *args, **kwargs):
        raise ConnectionError(f"cannot connect to {url.split('/')[2]}")

    monkeypatch.delenv(PROMPT_DIR_ENV, raising=False)
    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", unreachable)
    return cache_root


def prompt_file(directory, **changes):
    """An ALCE-format prompt file in this project's own words (two demonstrations)."""
    demo = {
        "question": "Who built the bridge?",
        "answer": "A local guild built it [1].",
        "docs": [{"title": "Bridge", "text": "The bridge was built by a local guild."}],
    }
    data = {
        "instruction": INSTRUCTION,
        "demo_sep": "\n\n",
        "demo_prompt": "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}",
        "doc_prompt": "Document [{ID}](Title: {T}): {P}\n",
        "demos": [demo, demo],
        **changes,
    }
    path = directory / "mine.json"
    path.write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return path


@pytest.mark.parametrize("build", SOLVERS)
def test_the_solver_prompt_file_builds_a_sample_of_ones_own_task(
    build, offline, fresh_nli, tmp_path
):
    path = prompt_file(tmp_path)
    sample = Sample(input=QUESTION, target="In Paris.", metadata={"docs": DOCS})
    model, script = scripted_model(["The Eiffel Tower stands in Paris [1]."])
    task = Task(dataset=MemoryDataset([sample]), solver=build(prompt_file=str(path)))
    eval_one(task, model, log_dir=str(tmp_path / "logs"))
    [messages] = script.inputs
    prompt = messages[-1].text
    assert prompt.startswith(INSTRUCTION) and "Who built the bridge?" in prompt
    assert "Document [1](Title: Eiffel Tower): The Eiffel Tower stands in Paris." in prompt


@pytest.mark.parametrize("build", SOLVERS)
def test_a_bad_solver_prompt_file_is_one_line_when_the_solver_is_built(build, offline, tmp_path):
    path = prompt_file(tmp_path, doc_prompt=None, demos=[])
    with pytest.raises(PromptFileError) as refused:
        build(prompt_file=str(path))
    message = str(refused.value)
    assert "\n" not in message
    assert message == (
        f'prompt file {path}: missing field "doc_prompt"; shot=2 needs 2 demos, it has 0 '
        "(-S prompt_file)"
    )


@pytest.mark.parametrize("build", SOLVERS)
def test_an_official_file_that_cannot_be_had_is_refused_offering_the_solver_flag(
    build, offline, tmp_path
):
    # README's "Your own data" offline: refused when the solver is built, not mid-run.
    with pytest.raises(PromptFileError) as refused:
        build()
    message = str(refused.value)
    assert "asqa_default.json is not cached and could not be downloaded" in message
    assert "pass -S prompt_file=PATH" in message and "-T prompt_file" not in message


def test_an_alce_task_reads_no_prompt_file_for_its_solver(offline, tmp_path):
    # QAMPARI with its own prompt file: nothing reads ASQA's official one (not cached, no network).
    path = prompt_file(tmp_path)
    for strategy in ("vanilla", "rerank", "constrained"):
        task = qampari(
            dataset_path=str(FIXTURES / "alce_qampari.json"),
            prompt_file=str(path),
            nli=NLI,
            strategy=strategy,
        )
        assert sample_prompt(task.dataset[0]).startswith(INSTRUCTION)


def test_a_bad_task_prompt_file_is_refused_when_the_task_is_built(offline, tmp_path):
    path = prompt_file(tmp_path, demo_sep=None)
    with pytest.raises(PromptFileError) as refused:
        qampari(dataset_path=str(FIXTURES / "alce_qampari.json"), prompt_file=str(path), nli=NLI)
    assert str(refused.value) == f'prompt file {path}: missing field "demo_sep" (-T prompt_file)'
