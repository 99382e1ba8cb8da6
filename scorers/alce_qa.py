"""ASQA's QA-based accuracy (eval.py ``--qa``): QA-EM, QA-F1 and QA-Hit, and its Inspect scorer.

An extractive QA model (ALCE: ``gaotianyu1350/roberta-large-squad`` through the transformers
``question-answering`` pipeline, ``handle_impossible_answer=True``; that pipeline is gone from
transformers 5, so ``QAModel`` reproduces its decoding) answers each of the item's
disambiguated ``qa_pairs[].question`` from the citation-free first-line output (a single space
when the output is empty). Each prediction is scored against the pair's short answers with
SQuAD's exact match and token F1, taking the best short answer; per item, QA-EM and QA-F1 are
means over its pairs and QA-Hit is 1 when every pair is an exact match. All x100.
"""

import math
import threading
from collections.abc import Sequence
from typing import Any

import anyio.to_thread
import numpy as np
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.citations.alce import alce_answer_text
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.models.shared import shared_instance
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell
from inspect_cite.text.squad import compute_exact, compute_f1
from scorers._no_answer import no_answer_score

QA_MODEL = "gaotianyu1350/roberta-large-squad"
QA_KEYS = ("QA-EM", "QA-F1", "QA-Hit")


def qa_context(output: str, *, prompt_opened: bool | None = None) -> str:
    """The QA context for an output: the citation-free first line, or " " when empty.

    ``prompt_opened``: :func:`inspect_cite.text.think.split_think`'s (None infers it).
    """
    text = alce_answer_text(output, prompt_opened=prompt_opened)
    return text if len(text) > 0 else " "


def qa_item_scores(predictions: Sequence[str], qa_pairs: Sequence[dict[str, Any]]) -> dict:
    """QA-EM, QA-F1 (means over pairs) and QA-Hit (all exact) for one item, x100.

    Raises:
        ValueError: When ``qa_pairs`` is empty or a pair has no short answers.

    """
    if not qa_pairs:
        raise ValueError("QA accuracy needs at least one qa_pair")
    if len(predictions) != len(qa_pairs):
        raise ValueError(f"{len(predictions)} predictions for {len(qa_pairs)} qa_pairs")
    em = f1 = 0.0
    for i, (pred, pair) in enumerate(zip(predictions, qa_pairs, strict=True)):
        answers = pair.get("short_answers") or []
        if not answers:
            raise ValueError(f"qa_pairs[{i}] has no short_answers")
        em += max(compute_exact(a, pred) for a in answers)
        f1 += max(compute_f1(a, pred) for a in answers)
    n = len(qa_pairs)
    return {"QA-EM": 100 * em / n, "QA-F1": 100 * f1 / n, "QA-Hit": 100.0 * (em == n)}


def _softmax_masked(logits: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    x = np.where(allowed, logits, -10000.0)
    x = np.exp(x - x.max())
    return x / x.sum()


def best_span(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    allowed: np.ndarray,
    max_answer_len: int = 15,
) -> tuple[tuple[int, int, float] | None, float]:
    """Best answer span of one chunk and its null score, as transformers' QA pipeline (4.x).

    Start and end logits outside ``allowed`` (question, special and padding tokens; the first,
    CLS, token stays allowed) are masked before each softmax. The null score is
    ``p_start[0] * p_end[0]``; the span is the argmax of ``p_start[i] * p_end[j]`` over
    ``0 <= j - i < max_answer_len`` with the CLS probabilities zeroed, kept only when both ends
    are allowed tokens.

    Returns:
        ``((start, end, score) or None, null_score)`` with token indices.

    """
    # float32 throughout, as the pipeline computed on the model's logits.
    p_start = _softmax_masked(np.asarray(start_logits, dtype=np.float32), allowed)
    p_end = _softmax_masked(np.asarray(end_logits, dtype=np.float32), allowed)
    null_score = float(p_start[0] * p_end[0])
    p_start[0] = p_end[0] = 0.0
    scores = np.tril(np.triu(np.outer(p_start, p_end)), max_answer_len - 1)
    s, e = np.unravel_index(int(np.argmax(scores)), scores.shape)
    # The pipeline's membership test also admits index 0 (a numpy quirk); CLS sits there.
    ok = {0, *np.flatnonzero(allowed).tolist()}
    if s not in ok or e not in ok:
        return None, null_score
    return (int(s), int(e), float(scores[s, e])), null_score


class QAModel:
    """Extractive QA as transformers' ``question-answering`` pipeline did (removed in v5).

    Reproduces the 4.x pipeline that ALCE ran (transformers 4.28) with its defaults and
    ``handle_impossible_answer=True``: question first, context truncated into chunks of
    ``min(model_max_length, 384)`` tokens with a stride of ``min(max_seq_len // 2, 128)``, one
    forward pass per chunk, the best span per chunk (``best_span``) widened to whole words,
    and the empty answer when the lowest null score over chunks beats every span.

    Args:
        model: Hugging Face id or local directory of an extractive QA model with a fast
            tokenizer.
        device: Torch device; ``None`` picks CUDA when available.

    """

    def __init__(self, model: str, device: str | None = None) -> None:
        import torch
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer

        self.model_name = model
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        if not self.tokenizer.is_fast:
            raise ValueError(f"QA model {model}: a fast tokenizer is required")
        self.model = AutoModelForQuestionAnswering.from_pretrained(model).to(self.device)
        self.model.eval()
        self.max_seq_len = min(self.tokenizer.model_max_length, 384)
        self.doc_stride = min(self.max_seq_len // 2, 128)
        self.max_answer_len = 15
        self._lock = threading.Lock()

    def _answer_one(self, question: str, context: str) -> str:
        import torch

        question_first = self.tokenizer.padding_side == "right"
        enc = self.tokenizer(
            text=question if question_first else context,
            text_pair=context if question_first else question,
            truncation="only_second" if question_first else "only_first",
            max_length=self.max_seq_len,
            stride=self.doc_stride,
            return_token_type_ids=True,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
        )
        context_seq = 1 if question_first else 0
        null_score = 1e6
        candidates: list[tuple[float, str]] = []
        for span in range(len(enc["input_ids"])):
            ids = enc["input_ids"][span]
            allowed = np.array([seq == context_seq for seq in enc.sequence_ids(span)], dtype=bool)
            if self.tokenizer.cls_token_id is not None:
                allowed |= np.array(ids) == self.tokenizer.cls_token_id
            allowed &= np.array(enc["attention_mask"][span], dtype=bool)
            inputs = {
                k: torch.tensor([enc[k][span]], device=self.device)
                for k in self.tokenizer.model_input_names
                if k in enc
            }
            with torch.no_grad():
                out = self.model(**inputs)
            found, null = best_span(
                out.start_logits[0].float().cpu().numpy(),
                out.end_logits[0].float().cpu().numpy(),
                allowed,
                self.max_answer_len,
            )
            null_score = min(null_score, null)
            if found is not None:
                s, e, score = found
                start_char, end_char = _span_chars(enc.encodings[span], s, e, context_seq)
                candidates.append((score, context[start_char:end_char]))
        candidates.append((null_score, ""))
        # Stable sort, as the pipeline: a span tied with the null answer wins.
        return sorted(candidates, key=lambda c: c[0], reverse=True)[0][1]

    def answer(self, questions: Sequence[str], context: str) -> list[str]:
        """The predicted answer span for each question ("" when the model abstains)."""
        with self._lock:
            return [self._answer_one(q, context) for q in questions]


def _span_chars(encoding: Any, start: int, end: int, sequence_index: int) -> tuple[int, int]:
    """Character span of tokens ``start..end`` widened to whole words (offsets as fallback)."""
    try:
        start_word = encoding.token_to_word(start)
        end_word = encoding.token_to_word(end)
        return (
            encoding.word_to_chars(start_word, sequence_index=sequence_index)[0],
            encoding.word_to_chars(end_word, sequence_index=sequence_index)[1],
        )
    except Exception:  # tokenizers without word ids (or a special token): raw offsets
        return encoding.offsets[start][0], encoding.offsets[end][1]


def get_qa_model(model: str = QA_MODEL, device: str | None = None) -> QAModel:
    """The process-wide QA model for a model and device (loaded on first use)."""
    return shared_instance(("qa", model, device), lambda: QAModel(model, device))


def compute_alce_qa(
    items: Sequence[dict[str, Any]],
    qa_model: str = QA_MODEL,
    device: str | None = None,
    *,
    prompt_opened: bool | None = None,
) -> dict[str, float]:
    """eval.py's ``compute_qa`` on ALCE items with ``qa_pairs`` and ``output``.

    ``output`` is the generation as run.py saved it (cut to its first line and stripped of
    citations here, as eval.py does). As in eval.py, data without ``qa_pairs`` (judged by the
    first item) scores 0 on every key. ``prompt_opened`` is
    :func:`inspect_cite.text.think.split_think`'s for every output (False: answers, no reasoning).
    """
    if not items or items[0].get("qa_pairs") is None:
        return dict.fromkeys(QA_KEYS, 0.0)
    qa = get_qa_model(qa_model, device)
    per_item = []
    for i, item in enumerate(items):
        pairs = item.get("qa_pairs")
        if not isinstance(pairs, list) or not pairs:
            raise ValueError(f'item {i}: QA accuracy needs a non-empty list "qa_pairs"')
        preds = qa.answer(
            [p["question"] for p in pairs],
            qa_context(item.get("output", ""), prompt_opened=prompt_opened),
        )
        try:
            per_item.append(qa_item_scores(preds, pairs))
        except ValueError as e:
            raise ValueError(f"item {i}: {e}") from e
    return {key: float(np.mean([s[key] for s in per_item])) for key in QA_KEYS}


def _explanation(context: str, rows: list[tuple[str, list[str], str]], values: dict) -> str:
    table = "\n".join(
        f"| {cell(q)} | {' / '.join(cell(str(g)) for g in golds)} | "
        f"{cell(pred, empty='*(no answer)*')} |"
        for q, golds, pred in rows
    )
    summary = ", ".join(f"{k} {v:.1f}" for k, v in values.items())
    return (
        f"**QA context (citation-free first line):** {cell(context, None)}\n\n"
        f"| question | short answers | QA prediction |\n|---|---|---|\n{table}\n\n{summary}"
    )


@scorer(metrics={key: [mean(), stderr()] for key in QA_KEYS})
@accept_cli_values("-S")
def alce_qa(qa_model: str = QA_MODEL, device: str | None = None) -> Scorer:
    """ASQA QA accuracy (QA-EM, QA-F1, QA-Hit, x100) as eval.py's ``--qa``.

    An extractive QA model answers each ``metadata["qa_pairs"][].question`` from the
    citation-free first-line output; answers are scored against the pair's short answers
    with SQuAD exact match and F1.

    Args:
        qa_model: Question-answering model, Hugging Face id or local directory (ALCE:
            gaotianyu1350/roberta-large-squad).
        device: Torch device for the QA model; default CUDA when available.

    """

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, QA_KEYS):
            return unscored
        context = qa_context(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
        pairs = (state.metadata or {}).get("qa_pairs")
        if not isinstance(pairs, list) or not pairs:
            return Score(
                value=dict.fromkeys(QA_KEYS, math.nan),
                answer=context,
                explanation="No `qa_pairs` in the sample metadata: QA accuracy is ASQA-only.",
            )
        questions = [str(p.get("question", "")) for p in pairs]

        def answer() -> list[str]:
            return get_qa_model(qa_model, device).answer(questions, context)

        predictions = await anyio.to_thread.run_sync(answer)
        try:
            values = qa_item_scores(predictions, pairs)
        except ValueError as e:
            return Score(
                value=dict.fromkeys(QA_KEYS, math.nan),
                answer=context,
                explanation=f"Not scored: {cell(str(e), None)}.",
            )
        rows = [
            (q, list(p.get("short_answers") or []), pred)
            for q, p, pred in zip(questions, pairs, predictions, strict=True)
        ]
        return Score(
            value=values,
            answer=context,
            explanation=_explanation(context, rows, values),
            metadata={"qa_predictions": predictions},
        )

    return score
