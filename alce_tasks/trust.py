"""``-T trust=true``: TRUST-SCORE on ALCE's datasets and ExpertQA (grounded refusals).

The data is the authors' Trust-Score evaluation file of the dataset (ALCE's questions and
top-100 documents, each document marked per gold answer: ``answers_found``;
:mod:`alce_tasks.trust_data`), the prompt their refusal-instructed prompt file
(:class:`inspect_cite.alce.trust.prompts.TrustPromptBuilder`: answer when the documents hold
the answer, else refuse), and the scorer ``trust_score`` (trust-eval 0.1.5's metrics). The
strategies that answer from the prompt as it is apply (``vanilla``, ``prompt``, and on ALCE's
datasets ``rerank``); the others build prompts of their own, force citations or add them, and
are refused. docs/alce.md, "Grounded refusals".
"""

from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset

from alce_tasks.options import TRUST_NOT_READ, AlceRun
from alce_tasks.run_task import run_task
from alce_tasks.trust_data import (
    TrustDataError,
    alce_file_problem,
    load_trust_items,
    trust_data_path,
    trust_record_to_sample,
)
from inspect_cite import __version__
from inspect_cite.alce.trust.prompts import (
    TrustPromptBuilder,
    TrustPromptFile,
    prompt_name,
    trust_prompt_path,
)
from inspect_cite.benchmarks.trust import TrustDatasetName
from inspect_cite.checks.errors import Refusals
from inspect_cite.downloads.hub_files import file_provenance
from inspect_cite.nli.checked import given_as
from inspect_cite.options.task_options import recorded_options, unique_sample_ids
from scorers.trust_score import trust_score

TRUST_TASK_VERSION = 1


def trust_task(run: AlceRun) -> Task:
    """The TRUST-SCORE task of an ALCE run with ``trust`` on (data, prompts, solver, scorer).

    Every file and model it needs is checked together: one message lists what is missing.
    """
    o, name = run.options, cast(TrustDatasetName, run.dataset)
    assert o.ndoc is not None  # resolved
    refusals = Refusals()
    items: list[dict[str, Any]] = []
    data_info: dict[str, Any] = {}
    location = ""
    with refusals.check():
        path, data_info = trust_data_path(name, o.dataset_path)
        try:
            items, location = load_trust_items(path, name), str(path)
        except TrustDataError as e:
            # An ALCE file with -T trust=true: say what it is, not its first missing field.
            if o.dataset_path is not None and (problem := alce_file_problem(path, name)):
                raise TrustDataError(problem) from e
            raise
    builder = None
    with refusals.check():
        if o.prompt_file:
            prompt_path, prompt_info = Path(o.prompt_file), file_provenance(o.prompt_file)
        else:
            prompt_path, prompt_info = trust_prompt_path(prompt_name(name))
        file = TrustPromptFile.load(prompt_path, flag="-T prompt_file")
        builder = TrustPromptBuilder(
            file, shot=o.shot, ndoc=o.ndoc, seed=o.seed, ndoc_in_demo=run.demo_docs
        )
    scorers = []
    with refusals.check(), given_as("-T nli"):
        scorers = [trust_score(dataset=name, nli=o.nli, corrected=o.corrected)]
    refusals.raise_any()
    assert builder is not None
    samples, demos = [], []
    for i, item in enumerate(items):
        prompt, drawn = builder.build(item)
        demos.append(drawn)
        samples.append(trust_record_to_sample(item, i, name, prompt, o.ndoc))
    dataset = MemoryDataset(unique_sample_ids(samples), name=f"trust_{name}", location=location)
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "trust",
        "dataset": name,
        "data": data_info,
        "prompt_file": prompt_info,
        "parameters": recorded_options(
            asdict(o),
            # The authors' data and prompt decide these: no ALCE retriever, no config.
            omit=(*TRUST_NOT_READ, "retriever", "prompt"),
            max_tokens=run.generate_config.max_tokens,
        ),
        "demos_drawn": demos[:1],
    }
    return run_task(
        run, dataset=dataset, scorers=scorers, version=TRUST_TASK_VERSION, metadata=info
    )
