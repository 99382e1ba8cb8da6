"""LongBench-Cite's citation recall, precision, F1 and length, as LongCite's ``auto_scorer.py``.

Per sample (LongCite's ``get_citation_score``; rates x100):

- The answer is read into statements and their chunk citations
  (:mod:`inspect_cite.longcite.statements`); the first ``max_statements`` (40, as
  ``eval_cite.py``) are scored.
- **Recall**: a statement with citations is rated against its cited chunks, joined by a blank
  line, on LongCite's support prompt: ``[[Fully supported]]`` 1, ``[[Partially supported]]``
  0.5, anything else in double brackets 0. A statement without citations is asked about on
  the need-citation prompt (the question, the answer without citations, the statement): one
  that needs none scores 1 (``[[No]]``), one that does scores 0. Recall is the mean over
  statements.
- **Precision**: each citation is rated alone on the relevance prompt: ``[[Unrelevant]]`` 0,
  anything else in double brackets 1. Precision is the mean over citations.
- **F1**: ``2RP / (R + P)``, 0 when both are 0. An answer without statements scores 0, 0, 0,
  and one without citations has precision 0, as LongCite scores them.
- **Citation length**: the mean number of tokens (``tokenizer``, LongCite's GLM-4 by default,
  without special tokens) of the sample's citations, over all its statements
  (``cnt_citation_len.py``); the ``longbench_cite`` metric pools it over every citation of
  the run, as the paper's figure, and under ``--epochs`` the tasks' reducer
  (``scorers/epoch_mean``) pools a sample's epochs the same way (:mod:`scorers._epoch_weights`).

The grader is the ``grader`` model role, asked as LongCite asks (:mod:`scorers._longcite_grader`:
up to ``attempts`` tries, the first at temperature 0, then 1; at most ``max_tokens`` tokens,
stopping at ``Analysis:``), in LongCite's order: the statements' recall, then each citation's
relevance. A reply that stays unreadable makes the sample nan on every key with the reason
(LongCite drops such an item from its averages without a word, which gives the same means). A
grader call that raises (after Inspect's retries) makes the sample an error, for
``--retry-on-error`` or ``inspect eval-retry`` to run again.

``strict=True`` corrects what docs/longcite.md lists as LongCite's defects: an answer without
statements is nan, precision (and F1) without citations is nan, and a range naming no chunk
shown (``[50-52]`` in a 40-chunk context, or reversed) is a citation that supports nothing and
is not relevant, instead of being dropped unseen.
"""

import math
import re
from functools import partial
from threading import Lock
from typing import Any

import anyio
from inspect_ai.model import ChatMessageUser, GenerateConfig, Model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.downloads.download import describe_failure
from inspect_cite.evidence.documents import DocumentError, get_docs
from inspect_cite.generation.thinking import split_output
from inspect_cite.longcite.chunks import citation_texts
from inspect_cite.longcite.prompts import CitationPrompts, citation_prompts
from inspect_cite.longcite.statements import (
    Citation,
    Statement,
    read_statements,
    restore_open_tag,
    without_citations,
)
from inspect_cite.options.cli_values import accept_cli_values
from scorers._epoch_weights import EPOCH_WEIGHTS_KEY
from scorers._longcite_grader import Asked, ask_until_read, grader_model
from scorers._longcite_metrics import longbench_cite, longbench_cite_by_dataset
from scorers._no_answer import no_answer_score, unscored_score

CITATION_KEYS = ("citation_recall", "citation_precision", "citation_f1", "citation_length")
GLM4_TOKENIZER = "THUDM/glm-4-9b-chat"
MAX_STATEMENTS = 40
"""Statements scored per answer (``eval_cite.py``'s ``max_statement_num``)."""

_VERDICT = re.compile(r"\[\[([ /a-zA-Z]+)\]\]")


def _first_verdict(reply: str) -> str | None:
    found = _VERDICT.findall(reply)
    return found[0].lower() if found else None


def read_need_citation(reply: str) -> int | None:
    """1 when the first ``[[...]]`` holds "yes" (needs a citation), 0 for other words, or None."""
    verdict = _first_verdict(reply)
    return None if verdict is None else int("yes" in verdict)


def read_support(reply: str) -> float | None:
    """``[[...fully...]]`` 1, ``[[...partially...]]`` 0.5, other words 0, or None."""
    verdict = _first_verdict(reply)
    if verdict is None:
        return None
    return 1.0 if "fully" in verdict else 0.5 if "partially" in verdict else 0.0


def read_relevant(reply: str) -> int | None:
    """``[[...unrelevant...]]`` 0, other words 1, or None."""
    verdict = _first_verdict(reply)
    return None if verdict is None else int("unrelevant" not in verdict)


# One tokenizer per (name, trust_remote_code) and process: the tokenizer or why it cannot load.
_tokenizers: dict[tuple[str, bool], Any] = {}
_tokenizer_lock = Lock()


def _load_tokenizer(name: str, trust_remote_code: bool) -> Any:
    from transformers import AutoTokenizer

    from inspect_cite.checks.models import looks_like_path
    from inspect_cite.checks.network import ensure_hub_reachable

    try:
        return AutoTokenizer.from_pretrained(
            name, trust_remote_code=trust_remote_code, local_files_only=True
        )
    except Exception:
        if looks_like_path(name):
            raise
    # Not in the cache: the hub client would retry an unreachable host for minutes.
    ensure_hub_reachable()
    return AutoTokenizer.from_pretrained(name, trust_remote_code=trust_remote_code)


def tokenizer_or_reason(name: str, trust_remote_code: bool) -> tuple[Any, str | None]:
    """The tokenizer (loaded once per process), or None and why it cannot be had."""
    key = (name, trust_remote_code)
    with _tokenizer_lock:
        if key not in _tokenizers:
            try:
                _tokenizers[key] = _load_tokenizer(name, trust_remote_code)
            except Exception as e:
                # GLM-4's tokenizer is code in its repository, which transformers runs only
                # when allowed (and names the flag when it is not).
                needs_code = name == GLM4_TOKENIZER or "trust_remote_code" in str(e)
                hint = (
                    "; its tokenizer is code from its repository: pass "
                    "trust_remote_code=true to run it, as LongCite does"
                    if needs_code and not trust_remote_code
                    else ""
                )
                _tokenizers[key] = (
                    f"tokenizer {name} cannot be loaded ({describe_failure(e)}){hint}"
                )
    loaded = _tokenizers[key]
    return (None, loaded) if isinstance(loaded, str) else (loaded, None)


def _configs(attempts: int, max_tokens: int) -> list[GenerateConfig]:
    # LongCite: temperature 0 first, then 1; 10 tokens; stop at "Analysis:".
    return [
        GenerateConfig(
            temperature=0.0 if i == 0 else 1.0, max_tokens=max_tokens, stop_seqs=["Analysis:"]
        )
        for i in range(attempts)
    ]


class _Unreadable(Exception):
    """A grader reply stayed unreadable: the sample is not scored."""


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Grading:
    """One sample's grader calls and verdicts, in LongCite's order."""

    def __init__(
        self,
        grader: Model,
        prompts: CitationPrompts,
        configs: list[GenerateConfig],
        question: str,
        answer: str,
    ):
        self.grader = grader
        self.prompts = prompts
        self.configs = configs
        self.question = question
        self.answer = answer

    async def _ask(self, prompt: str, read: Any, what: str) -> tuple[Any, Asked[Any]]:
        asked = await ask_until_read(
            self.grader, [ChatMessageUser(content=prompt)], self.configs, read
        )
        if asked.value is None:
            raise _Unreadable(f"{what}: {asked.failure}")
        return asked.value, asked

    async def recall(self, statement: Statement, strict: bool) -> dict[str, Any]:
        """One statement's recall verdict (``score_recall``'s body)."""
        invalid = strict and bool(statement.dropped)
        if statement.citations or invalid:
            snippet = "\n\n".join(c.text for c in statement.citations).strip()
            if snippet == "":
                return {"score": 0.0, "verdict": "No matched citation", "replies": []}
            score, asked = await self._ask(
                self.prompts.support_prompt(self.question, statement.text, snippet),
                read_support,
                f"support of {_short(statement.text, 60)!r}",
            )
            return {"score": score, "verdict": "support", "replies": asked.replies}
        need, asked = await self._ask(
            self.prompts.need_citation_prompt(self.question, self.answer, statement.text),
            read_need_citation,
            f"need for a citation of {_short(statement.text, 60)!r}",
        )
        return {"score": 1.0 - need, "verdict": "needs citation", "replies": asked.replies}

    async def relevance(self, statement: Statement, citation: Citation) -> dict[str, Any]:
        """One citation's relevance verdict (``score_precision``'s body)."""
        score, asked = await self._ask(
            self.prompts.relevant_prompt(self.question, statement.text, citation.text),
            read_relevant,
            f"relevance of {citation.label} to {_short(statement.text, 60)!r}",
        )
        return {"score": float(score), "replies": asked.replies}


def _mean_or(scores: list[float], empty: float) -> float:
    return sum(scores) / len(scores) if scores else empty


def _f1(recall: float, precision: float) -> float:
    if math.isnan(recall) or math.isnan(precision):
        return math.nan
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def _statement_markdown(i: int, record: dict[str, Any], strict: bool) -> str:
    lines = [f"{i}. {record['text']}"]
    for c in record["citations"]:
        rel = c.get("relevance")
        verdict = "not scored" if rel is None else ("relevant" if rel else "not relevant")
        lines.append(f"   - cites `{c['range']}` ({verdict}): {_short(c['text'])}")
    for dropped in record["dropped"]:
        fate = "a citation of nothing (strict)" if strict else "dropped (LongCite)"
        lines.append(f"   - `{dropped}` names no chunk shown: {fate}")
    for c in record["beyond_cap"]:
        lines.append(f"   - `{c}` not scored: LongCite keeps the first 3 citations")
    recall = record.get("recall")
    if recall is None:
        lines.append("   - not scored: LongCite scores the first 40 statements")
    elif record["recall_kind"] == "needs citation":
        lines.append(
            f"   - no citation; needs one: {'no' if recall == 1 else 'yes'} (recall {recall:g})"
        )
    else:
        lines.append(f"   - support of the cited chunks: {recall:g} ({record['recall_kind']})")
    return "\n".join(lines)


# Citation F1 first, and LongCite's average over its groups first among each key's metrics:
# Inspect shows a run's first score's first metric as its headline (the paper's number).
@scorer(
    metrics={
        "citation_f1": [longbench_cite(), mean(), stderr(), longbench_cite_by_dataset()],
        "citation_recall": [longbench_cite(), mean(), stderr(), longbench_cite_by_dataset()],
        "citation_precision": [longbench_cite(), mean(), stderr(), longbench_cite_by_dataset()],
        "citation_length": [
            longbench_cite(weight_key="n_citations"),
            mean(),
            stderr(),
            longbench_cite_by_dataset(weight_key="n_citations"),
        ],
    }
)
@accept_cli_values("-S")
def longcite_citation(
    model: str | None = None,
    tokenizer: str | None = GLM4_TOKENIZER,
    trust_remote_code: bool = False,
    max_statements: int = MAX_STATEMENTS,
    attempts: int = 5,
    max_tokens: int = 10,
    strict: bool = False,
) -> Scorer:
    """LongBench-Cite's citation recall, precision, F1 and length (LongCite's ``auto_scorer.py``).

    Args:
        model: A grader model to use instead of the ``grader`` model role.
        tokenizer: The tokenizer counting ``citation_length`` (a hub id or a local folder);
            ``null`` leaves the key nan. LongCite's is ``THUDM/glm-4-9b-chat``.
        trust_remote_code: Let the tokenizer run code from its repository (GLM-4's tokenizer
            needs it; without it ``citation_length`` is nan with that reason).
        max_statements: Statements scored per answer (LongCite: 40).
        attempts: Tries per grader question before the sample is left unscored (LongCite: 5).
        max_tokens: Tokens per grader reply (LongCite: 10; raise it for a thinking grader).
        strict: Correct LongCite's defects (module docstring; docs/longcite.md) instead of
            matching its numbers.

    """
    for name, value, least in (
        ("max_statements", max_statements, 1),
        ("attempts", attempts, 1),
        ("max_tokens", max_tokens, 1),
    ):
        if value < least:
            raise ArgumentError(f"longcite_citation: {name} must be at least {least}, got {value}")
    prompts = citation_prompts()
    configs = _configs(attempts, max_tokens)

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        dataset = str(metadata.get("dataset", ""))
        if unscored := no_answer_score(state, CITATION_KEYS, metadata={"dataset": dataset}):
            return unscored
        try:
            docs = get_docs(metadata, where=f"sample {state.sample_id}")
        except DocumentError as e:
            return unscored_score(CITATION_KEYS, str(e), metadata={"dataset": dataset})
        grader = grader_model(model, "longcite_citation")
        answer = restore_open_tag(split_output(state.output).answer)
        chunks = citation_texts([d["text"] for d in docs])
        statements = read_statements(answer, chunks)
        question = str(metadata.get("question") or state.input_text)
        grading = _Grading(grader, prompts, configs, question, without_citations(answer))
        records: list[dict[str, Any]] = [
            {
                "text": s.text,
                "tagged": s.tagged,
                "citations": [
                    {"range": c.label, "start": c.start, "end": c.end, "text": c.text}
                    for c in s.citations
                ],
                "dropped": list(s.dropped),
                "beyond_cap": [c.label for c in s.beyond_cap],
            }
            for s in statements
        ]
        scored = statements[:max_statements]
        meta: dict[str, Any] = {
            "dataset": dataset,
            "statements": records,
            "n_statements": len(statements),
            "grader": str(grader),
        }
        recalls: list[float] = []
        precisions: list[float] = []
        try:
            for s, record in zip(scored, records, strict=False):
                verdict = await grading.recall(s, strict)
                record.update(
                    recall=verdict["score"],
                    recall_kind=verdict["verdict"],
                    recall_replies=verdict["replies"],
                )
                recalls.append(verdict["score"])
            for s, record in zip(scored, records, strict=False):
                for c, c_record in zip(s.citations, record["citations"], strict=True):
                    verdict = await grading.relevance(s, c)
                    c_record.update(relevance=verdict["score"], replies=verdict["replies"])
                    precisions.append(verdict["score"])
                if strict:
                    precisions.extend(0.0 for _ in s.dropped)
        except _Unreadable as e:
            reason = f"the grader's reply stayed unreadable ({e})"
            return unscored_score(CITATION_KEYS, reason, answer=answer, metadata=meta)
        if strict and not statements:
            return unscored_score(
                CITATION_KEYS, "the answer has no statements", answer=answer, metadata=meta
            )
        recall = _mean_or(recalls, 0.0)
        precision = _mean_or(precisions, math.nan if strict else 0.0)
        values = {
            "citation_recall": 100 * recall,
            "citation_precision": 100 * precision,
            "citation_f1": 100 * _f1(recall, precision),
            "citation_length": math.nan,
        }
        reasons: dict[str, str] = {}
        if strict and not precisions:
            reasons["citation_precision"] = reasons["citation_f1"] = "no citations"
        citations = [c for s in statements for c in s.citations]
        meta["n_citations"] = len(citations)
        # Epochs pool citation_length by citations, as the run's figure does.
        meta[EPOCH_WEIGHTS_KEY] = {"citation_length": "n_citations"}
        if tokenizer is None:
            reasons["citation_length"] = "no tokenizer (tokenizer=null)"
        elif not citations:
            reasons["citation_length"] = "no citations"
        else:
            counter, why = await anyio.to_thread.run_sync(
                partial(tokenizer_or_reason, tokenizer, trust_remote_code)
            )
            if counter is None:
                reasons["citation_length"] = str(why)
            else:
                tokens = sum(
                    len(counter.encode(c.text, add_special_tokens=False)) for c in citations
                )
                meta["citation_tokens"] = tokens
                values["citation_length"] = tokens / len(citations)
        if reasons:
            meta["reasons"] = reasons
        body = "\n".join(_statement_markdown(i, r, strict) for i, r in enumerate(records, start=1))
        summary = ", ".join(
            f"{k} {v:.1f}" if not math.isnan(v) else f"{k} nan ({reasons.get(k, '')})"
            for k, v in values.items()
        )
        return Score(
            value=values,
            answer=answer,
            explanation=f"{body or '(no statements)'}\n\n**LongCite:** {summary}",
            metadata=meta,
        )

    return score
