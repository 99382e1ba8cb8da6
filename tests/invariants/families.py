"""The invariant matrix's runs of TRUST-SCORE, HELMET's ladder, LongBench-Cite, and MiniCheck.

What :mod:`tests.invariants.strategies` needs to run these like the other strategies: each
task built offline from files written here at test time (no hub, no download), and how a
LongBench-Cite answer is written.

- **TRUST-SCORE** (``-T trust=true``, ``alce_tasks/expertqa``): two records of the TRUST
  fixtures of each dataset (tests/trust/fixtures/, Trust-Score's format), one answerable from
  its documents and one not, without their outputs; a refusal-instructed prompt file in the
  authors' layout and this project's words.
- **HELMET** (``-T context=8k``, and ``-T nocite=true``): HELMET-format data of a few items with
  the 30 passages 8k shows, and its demonstration files (:mod:`tests.helpers.helmet_files`).
- **LongBench-Cite**: the fixture items (tests/fixtures/longcite/), LongCite-format prompt and
  grader files in the project's words (:mod:`tests.helpers.longcite_files`), a one-word-a-token
  tokenizer for ``citation_length``, and a grader whose reply is a function of its prompt (the
  scripted grader's fixed rules: no per-call script, so scoring an answer twice gets the same
  verdicts).
- **MiniCheck**: a random Flan-T5 stand-in (:mod:`inspect_cite.testing.tiny_minicheck`), as
  ``minicheck:<dir>``: a judge whose verdicts follow no rule, which the properties must survive.
"""

from __future__ import annotations

import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from inspect_ai.model import Model, ModelOutput, get_model

from inspect_cite.alce.trust.refusal import REFUSAL_FLAG
from tests.conftest import FIXTURES, fixture_corpus, fullcite_fixture_corpus
from tests.helpers.longcite_grader import citation_key, default_citation_reply
from tests.helpers.scripted_models import scripted_output

TRUST_FIXTURES = Path(__file__).parents[1] / "trust" / "fixtures"
LONGCITE_DATA = FIXTURES / "longcite" / "longbench_cite.json"
HELMET_CONTEXT = "8k"
HELMET_ITEMS = 4
HELMET_DOCS = 30
"""HELMET's 8k row shows 30 passages; a few items keep the run small."""

# The authors' layout (positive and refusal demonstrations), in this project's words.
TRUST_PROMPT = {
    "instruction": "Answer from the documents and cite them as [1]. If the documents do not "
    f'hold the answer, say "{REFUSAL_FLAG}."',
    "demo_sep": "\n\n\n",
    "demo_prompt": "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}",
    "doc_prompt": "Document [{ID}](Title: {T}): {P}\n",
    "positive_demos": [
        {
            "question": "Where is the tower?",
            "answer": "It is in Paris [1].",
            "docs": [{"title": "Tower", "text": "The tower is in Paris."}],
        },
    ],
    "reject_demos": [
        {
            "question": "Who owns the moon?",
            "answer": f"{REFUSAL_FLAG}.",
            "docs": [{"title": "Sea", "text": "The sea is salty."}],
        }
    ],
}


@cache
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="invariant-families-"))


@cache
def trust_files(dataset: str) -> tuple[str, str]:
    """A Trust-Score data file (an answerable and an unanswerable record) and a prompt file."""
    records = json.loads((TRUST_FIXTURES / f"trust_{dataset}.json").read_text())["data"]

    def answerable(r: dict[str, Any]) -> bool:
        return any(any(d["answers_found"]) for d in r["docs"])

    chosen = [
        next(r for r in records if answerable(r)),
        next(r for r in records if not answerable(r)),
    ]
    folder = _root() / f"trust-{dataset}"
    folder.mkdir()
    data, prompt = folder / "trust.json", folder / f"{dataset}_rejection.json"
    data.write_text(json.dumps([{k: v for k, v in r.items() if k != "output"} for r in chosen]))
    prompt.write_text(json.dumps(TRUST_PROMPT))
    return str(data), str(prompt)


@cache
def helmet_folder() -> Path:
    """HELMET-format data (a few items of 30 passages) and demonstration files."""
    from tests.helpers.helmet_files import write_helmet_files

    return write_helmet_files(_root() / "helmet", n_items=HELMET_ITEMS, n_docs=HELMET_DOCS)


def helmet_args(dataset: str, nocite: bool) -> dict[str, Any]:
    """The task arguments of HELMET's 8k row (or its no-citation control) on these files."""
    folder = helmet_folder()
    return {
        "context": HELMET_CONTEXT,
        "nocite": nocite,
        "dataset_path": str(folder / f"{dataset}_eval_gtr_top2000.json"),
        "prompt_file": str(folder / f"{dataset}_{'nocite' if nocite else 'revised'}.json"),
        # HELMET's cut to the row's budget counts with it (a task built in Python has no model).
        "tokenizer": helmet_tokenizer(),
    }


@cache
def helmet_tokenizer() -> str:
    """A word-level tokenizer with a chat template (HELMET's rows cut their passages with it)."""
    from tests.helpers.helmet_files import build_word_tokenizer

    return str(build_word_tokenizer(_root() / "helmet-tokenizer"))


@cache
def longcite_folder() -> Path:
    """LongCite-format prompt and grader files (read through ``INSPECT_CITE_LONGCITE_DIR``)."""
    from tests.helpers.longcite_files import write_longcite_files

    return write_longcite_files(_root() / "longcite")


@cache
def word_tokenizer() -> str:
    """A tokenizer counting one token per whitespace-separated word (``citation_length``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(vocab={"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    folder = _root() / "word-tokenizer"
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(folder)
    return str(folder)


def longcite_grade(input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """LongCite's grader questions answered by a fixed rule of the prompt.

    Citation questions: the scripted grader's rules (need-citation by digits, support and
    relevance by text lengths: every verdict occurs). Correctness: a rating from 1 to 3 (the QA
    scale of the items the matrix runs) read off the prompt, which holds the answer without its
    citations.
    """
    prompt = input[-1].text
    key = citation_key(prompt)
    if key is not None:
        return scripted_output(default_citation_reply(key[0], key[2], key[3]))
    return scripted_output(f"[[{1 + len(prompt.split()) % 3}]]")


def longcite_grader() -> Model:
    """The ``grader`` role's model for LongBench-Cite: :func:`longcite_grade`."""
    return get_model("mockllm/longcite-grader", custom_outputs=longcite_grade, memoize=False)


# A LongBench-Cite answer: claims, each citing chunk ranges (start, end), 0-based, inclusive.
LongciteClaim = tuple[str, tuple[tuple[int, int], ...]]


def longcite_text(claims: list[LongciteClaim]) -> str:
    """``<statement>Claim.<cite>[a-b][c-d]</cite></statement>`` per claim.

    An uncited claim is written as LongCite's answers write one: alternately as text between
    statements and as a statement with an empty ``<cite>`` (both are statements without
    citations to LongCite's reader).
    """
    parts = []
    for i, (text, ranges) in enumerate(claims):
        if not ranges and i % 2 == 0:
            parts.append(f"{text}.")
            continue
        cites = "".join(f"[{a}-{b}]" for a, b in ranges)
        parts.append(f"<statement>{text}.<cite>{cites}</cite></statement>")
    return "\n".join(parts)


@cache
def minicheck_spec() -> str:
    """``minicheck:<dir>`` of a random MiniCheck-Flan-T5 stand-in knowing the fixtures' words."""
    from inspect_cite.testing.tiny_minicheck import build_tiny_flan_t5

    vocabulary = " ".join(fixture_corpus() + fullcite_fixture_corpus())
    return f"minicheck:{build_tiny_flan_t5(_root() / 'minicheck', vocabulary=vocabulary)}"
