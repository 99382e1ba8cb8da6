"""The strategies of the invariant matrix: each one's real run, and how it writes an answer.

For every strategy of every family (ALCE, FullCite, ALCE with ``-T trust=true``, HELMET's
``-T context`` ladder, LongBench-Cite; :mod:`tests.invariants.families` builds the last three),
:func:`captured` runs its task once through Inspect (the task builder, the strategy's solver,
every scorer the task adds) with a scripted model, two epochs, and keeps the samples: their
metadata (the documents and the evidence record the solver wrote) and conversation are what the
solver really left. :func:`answer_state` then puts any answer in such a sample as that
strategy's solver writes a model's answer into the output: as it is, through POSTCITE's
retrieval (ALCE's ``postcite``/``posthoc``), through FullCite's snippet alignment
(``posthoc``), rendered from a provider's cited text blocks (``native``), or as LongBench-Cite's
statements citing chunk ranges. The property tests score those states with every scorer that
applies.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import (
    ChatMessageTool,
    ContentText,
    DocumentCitation,
    ModelName,
    ModelOutput,
)
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

import tests.helpers.native_models  # noqa: F401 - registers the citingdocs/ provider
from alce_tasks import asqa as alce_asqa
from alce_tasks import eli5 as alce_eli5
from alce_tasks import expertqa as alce_expertqa
from alce_tasks import qampari as alce_qampari
from alce_tasks.options import TRUST_STRATEGIES
from fullcite_tasks import bioasq
from inspect_cite.citations.native import AnswerBlock, render_native
from inspect_cite.evidence.record import EVIDENCE_KEY, read_evidence
from inspect_cite.models.retrieval import get_retriever
from longcite_tasks import longbench_cite
from solvers.alce_postcite import post_hoc_cite
from solvers.posthoc import align_answer
from tests.conftest import BIOASQ_ARGS, FIXTURES
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.tiny_eval_models import minilm_path
from tests.invariants.families import (
    LONGCITE_DATA,
    helmet_args,
    longcite_grader,
    longcite_text,
    trust_files,
    word_tokenizer,
)

NLI = "python:tests.helpers.nli_fns:word_entail"

ALCE_STRATEGIES = (
    "vanilla",
    "closedbook",
    "summ",
    "snippet",
    "oracle",
    "rerank",
    "postcite",
    "interact",
    "inlinesearch",
    "prompt",
    "constrained",
    "posthoc",
    "native",
    "agent",
)
FULLCITE_STRATEGIES = ("prompt", "constrained", "posthoc", "native", "agent")
# -T trust=true answers from the authors' refusal prompt as it is: ALCE's datasets take these
# three, ExpertQA the first two (alce_tasks/options.py refuses the others).
TRUST_RUNS = {"asqa": TRUST_STRATEGIES, "qampari": ("vanilla",), "expertqa": TRUST_STRATEGIES[:2]}
# HELMET's ladder runs the vanilla prompt only (the others are refused); its settings: the 8k
# row, and the row's no-citation control.
HELMET_SETTINGS = ("8k", "8k_nocite")
# LongBench-Cite has one solver (longcite_one_shot), named here as its strategy.
LONGCITE_STRATEGIES = ("one_shot",)
# Families whose answers cite documents by place, as ALCE's [n].
ALCE_FORMAT = {"alce", "trust", "helmet"}

# ALCE strategies whose output POSTCITE rewrites (closedbook's citations come from retrieval).
_POSTCITE = {"postcite", "posthoc"}
_QUESTION = re.compile(r"Question: (.*)")


def _tool_call(function: str, arguments: dict[str, Any]) -> ModelOutput:
    output = ModelOutput.for_tool_call("mockllm/model", function, arguments)
    output.usage = scripted_output("").usage
    return output


def _agent_model(alce: bool) -> Any:
    """Searches the question, reads the first result, answers citing it."""

    def respond(input, tools, tool_choice, config):
        results = [m for m in input if isinstance(m, ChatMessageTool)]
        if not results:
            question = _QUESTION.search(input[-1].text)
            return _tool_call("search", {"query": question.group(1) if question else "doctor"})
        if results[-1].function == "search" and len(results) == 1:
            found = json.loads(results[-1].text) if results[-1].text.startswith("[") else []
            if found:
                return _tool_call("read", {"doc_id": found[0]["doc_id"]})
        if alce:
            return scripted_output("The Doctor was played [1].")
        return scripted_output("The answer {doc_id: x, snippet: y}.")

    return scripted_model(respond)[0]


def _model(family: str, strategy: str) -> Any:
    if strategy == "native":
        return "citingdocs/model"
    if strategy == "agent":
        return _agent_model(family == "alce")
    answer = {
        "fullcite": "It is so {doc_id: x, snippet: y}.",
        "longcite": "<statement>It is so.<cite>[0-1]</cite></statement>",
    }.get(family, "The Doctor was played [1].")

    def respond(input, tools, tool_choice, config):
        last = input[-1].text
        if strategy == "interact" and "Output:" not in last.rsplit("\n", 1)[-1]:
            return scripted_output("Output: " + answer if "Output: " not in last else "End.")
        if strategy == "inlinesearch" and "Search:" not in last:
            return scripted_output("Search: Doctor")
        return scripted_output(answer)

    return scripted_model(respond)[0]


def _task(family: str, dataset: str, strategy: str, setting: str) -> Task:
    if family == "trust":
        data, prompt = trust_files(dataset)
        args = {"dataset_path": data, "prompt_file": prompt, "nli": NLI, "ndoc": 3, "shot": 2}
        if dataset == "expertqa":
            return alce_expertqa(strategy=strategy, **args)
        build = alce_asqa if dataset == "asqa" else alce_qampari
        return build(trust=True, strategy=strategy, **args)
    if family == "helmet":
        build = alce_asqa if dataset == "asqa" else alce_qampari
        nocite = setting.endswith("nocite")
        # The control has no citations to diagnose (refused).
        return build(nli=NLI, diagnose=not nocite, **helmet_args(dataset, nocite))
    if family == "longcite":
        return longbench_cite(dataset_path=str(LONGCITE_DATA), tokenizer=word_tokenizer())
    if family == "fullcite":
        return bioasq(
            **BIOASQ_ARGS,
            strategy=strategy,
            nli=NLI,
            attribution=True,
            judge=True,
            similarity_model=minilm_path(),
        )
    build = alce_asqa if dataset == "asqa" else alce_eli5
    return build(
        dataset_path=str(FIXTURES / f"alce_{dataset}.json"),
        nli=NLI,
        strategy=strategy,
        retrieval_model=minilm_path(),
        diagnose=True,
    )


@dataclass
class Captured:
    """A strategy's real run: its log and its samples (both epochs)."""

    family: str
    dataset: str
    strategy: str
    setting: str
    log: EvalLog
    samples: list[EvalSample] = field(default_factory=list)

    def first_epoch(self) -> list[EvalSample]:
        """The samples of the first epoch (the answers of both are the same)."""
        return [s for s in self.samples if s.epoch == 1]


def grade(input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """A deterministic Support/Relevance grader: full support when the words match."""
    prompt = input[-1].text
    statement = prompt.split("Statement: ", 1)[-1].split("\n", 1)[0].lower().split()
    snippet = prompt.split("Snippet: ", 1)[-1].split("\n", 1)[0].lower()
    support = 5 if statement and all(w in snippet for w in statement[:3]) else 2
    return scripted_output(f"Support: {support}\nRelevance: 3")


def grader() -> Any:
    """The ``grader`` role's model: :func:`grade`."""
    from inspect_ai.model import get_model

    return get_model("mockllm/grader", custom_outputs=grade, memoize=False)


@cache
def captured(family: str, dataset: str, strategy: str, setting: str = "") -> Captured:
    """Run the strategy's task once (two epochs) and keep what its solver left (cached).

    ``setting``: HELMET's row (``8k``, ``8k_nocite``); empty for the other families.
    """
    graders = {"fullcite": grader, "longcite": longcite_grader}
    roles = {"grader": graders[family]()} if family in graders else None
    [log] = inspect_eval(
        _task(family, dataset, strategy, setting),
        model=_model(family, strategy),
        model_roles=roles,
        epochs=2,
        limit=2,
        display="none",
        log_dir=None,
        log_samples=True,
    )
    assert log.status == "success", (family, strategy, log.error)
    return Captured(family, dataset, strategy, setting, log, list(log.samples or []))


def task_state(sample: EvalSample, model: str) -> TaskState:
    """A logged sample as its scorers saw it."""
    return TaskState(
        model=ModelName(model),
        sample_id=sample.id,
        epoch=sample.epoch,
        input=sample.input,
        target=Target(sample.target),
        messages=copy.deepcopy(sample.messages),
        output=copy.deepcopy(sample.output),
        metadata=copy.deepcopy(sample.metadata),
    )


# An answer, as a model writes it: claims, each with its citations. ALCE citations are
# 1-based document positions; FullCite citations are (doc_id, snippet); native citations are
# (0-based document index, cited text).
AlceClaim = tuple[str, tuple[int, ...]]
FullciteClaim = tuple[str, tuple[tuple[str, str], ...]]


def alce_text(claims: list[AlceClaim]) -> str:
    """``Claim [1][2]. Other claim.`` (markers before the period, as ALCE's answers)."""
    parts = []
    for text, refs in claims:
        markers = "".join(f"[{r}]" for r in refs)
        parts.append(f"{text} {markers}." if markers else f"{text}.")
    return " ".join(parts)


def fullcite_text(claims: list[FullciteClaim]) -> str:
    """``Claim {doc_id: X, snippet: Y}.`` per claim."""
    parts = []
    for text, cites in claims:
        marks = " ".join(f"{{doc_id: {d}, snippet: {s}}}" for d, s in cites)
        parts.append(f"{text} {marks}." if marks else f"{text}.")
    return " ".join(parts)


def native_blocks(claims: list[tuple[str, tuple[int, ...]]], docs: list[dict]) -> list[AnswerBlock]:
    """One text block per claim, citing the given documents (by 0-based index) natively."""
    blocks, pos = [], 0
    for text, indexes in claims:
        citations = tuple(
            DocumentCitation(
                cited_text=docs[i]["text"] if i < len(docs) else "not a document",
                internal={"document_index": i},
            )
            for i in indexes
        )
        block = f"{text}. "
        blocks.append(AnswerBlock(block, pos, pos + len(block), citations))
        pos += len(block)
    return blocks


def _set_output(state: TaskState, text: str) -> None:
    state.output = ModelOutput.from_content(model=str(state.model), content=text)
    state.messages = [*state.messages, state.output.message]


@cache
def _searcher(texts: tuple[tuple[str, str], ...]) -> Callable[[str], int]:
    docs = [{"id": str(i), "title": t, "text": x} for i, (t, x) in enumerate(texts)]
    return get_retriever(minilm_path()).searcher(docs).search


def answer_state(
    base: TaskState, strategy: str, family: str, answer: list[Any], *, native_fmt: bool = False
) -> TaskState:
    """``base`` (a sample the strategy's solver left) with ``answer`` as its final output.

    Written as the strategy's solver writes a model's answer: ALCE's POSTCITE cites its
    uncited statements by retrieval over the sample's documents; FullCite's posthoc aligns
    its snippets and records each citation; native renders cited blocks in the task's format
    (``answer`` then holds (text, document indexes) claims).
    """
    state = copy.copy(base)
    state.metadata = copy.deepcopy(base.metadata)
    state.messages = list(base.messages)
    docs = state.metadata.get("docs") or []
    if strategy == "native":
        fmt = "alce" if family in ALCE_FORMAT else "fullcite"
        text, records = render_native(native_blocks(answer, docs), docs, fmt)
        state.metadata["native"] = {"format": fmt, "citations": records}
        _set_output(state, text)
        return state
    if family == "longcite":
        _set_output(state, longcite_text(answer))
        return state
    if family in ALCE_FORMAT:
        text = alce_text(answer)
        if strategy in _POSTCITE and docs:
            search = _searcher(tuple((d["title"], d["text"]) for d in docs))
            text = post_hoc_cite(text, state.metadata.get("question", ""), search, False)
        _set_output(state, text)
        return state
    text = fullcite_text(answer)
    if strategy == "posthoc":
        text, records = align_answer(text, docs)
        state.metadata["posthoc"] = {"original": text, "threshold": 0.7, "citations": records}
    _set_output(state, text)
    return state


def renumbered(base: TaskState, order: list[int], family: str) -> TaskState:
    """``base`` with its documents in another order (``order[i]``: the old index now at i).

    ALCE numbers documents by place, so their ids become their new places; the evidence
    record follows them (positions, ids, refs).
    """
    state = copy.copy(base)
    state.metadata = copy.deepcopy(base.metadata)
    docs = state.metadata["docs"]
    new_docs = [dict(docs[old]) for old in order]
    if family in ALCE_FORMAT:
        for i, doc in enumerate(new_docs):
            doc["id"] = str(i + 1)
    new_place = {old: new for new, old in enumerate(order)}
    record = state.metadata.get(EVIDENCE_KEY)
    if isinstance(record, dict):
        for entry in record["seen"]:
            new = new_place[entry["position"] - 1]
            entry["position"] = new + 1
            entry["id"] = new_docs[new]["id"]
            if family in ALCE_FORMAT:
                entry["ref"] = f"[{new + 1}]"
            if "document_index" in entry:
                entry["document_index"] = new
        record["seen"].sort(key=lambda e: e["position"])
    state.metadata["docs"] = new_docs
    return state


def seen_places(state: TaskState) -> tuple[list[int], list[int]]:
    """0-based places of the documents the model saw, and of the others (unseen)."""
    evidence = read_evidence(state.metadata)
    seen = sorted(evidence.seen)
    return seen, [i for i in range(len(evidence.docs)) if i not in evidence.seen]


def _first_words(text: str) -> str:
    # Not ending in a one-letter word: "is a. Next" reads as an initial to a sentence
    # splitter (nltk, as eval.py), so two such claims in one block would be one sentence.
    words = text.split()[:6]
    while words and len(words[-1].strip(".,;:")) <= 1:
        words.pop()
    return " ".join(words).rstrip(".,;:")


def claim_texts(docs: list[dict]) -> list[str]:
    """Claims a document supports (its first words) and two no document supports."""
    claims = [_first_words(d["text"]) for d in docs]
    return [c for c in claims if c] + ["Bananas grow on the moon", "Nobody wrote this"]


def clean(text: str) -> str:
    """A claim as text in an answer: no brace, bracket or period of its own."""
    return re.sub(r"[{}\[\].]", " ", text).strip() or "Nothing"


def native_blocks_split(claims: list[tuple[str, tuple[int, ...]]], docs: list[dict]):
    """Each claim of two sentences as two blocks, each with the claim's citations."""
    return native_blocks([(p, refs) for text, refs in claims for p in text.split(". ")], docs)


__all__ = [
    "ALCE_FORMAT",
    "ALCE_STRATEGIES",
    "FULLCITE_STRATEGIES",
    "HELMET_SETTINGS",
    "LONGCITE_STRATEGIES",
    "TRUST_RUNS",
    "ContentText",
    "answer_state",
    "captured",
    "renumbered",
    "seen_places",
    "task_state",
]
