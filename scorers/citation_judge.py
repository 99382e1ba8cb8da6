"""LLM-as-judge Support and Relevance of each citation (the FullCite human-evaluation rubric).

For every citation with evidence, the ``grader`` model rates on 1-5 scales whether the
snippet supports the statement it follows (Support) and whether it is relevant to answering
the question (Relevance). The snippet shown is the cited document's own text of the span that
holds the model's snippet, verbatim or near-verbatim
(:attr:`scorers._cited_answer.CheckedCitation.evidence`), never the model's words: a citation
without evidence (an empty snippet, an invalid citation, or a snippet its document does not
hold) is not judged, with that reason. On ``vllm/`` and ``openai-api/`` graders the reply is
constrained to the two-line shape asked for (``structured_outputs`` regex). Only whole
numbers 1-5 are ratings (``true``, ``4.9``, ``Infinity`` or ``7`` are not). A failed call or
an invalid reply is retried (``attempts``); when all attempts fail the citation is recorded
as not judged (with the reason), never as a low score. Per sample: mean Support and
Relevance over judged citations (nan when none), ``coverage`` (x100: judged / all
citations) and ``n_citations``.
"""

import asyncio
import math
import re
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model, model_roles
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.generation.structured_outputs import (
    forwards_extra_body,
    json_in_reply,
    with_structured_outputs,
)
from inspect_cite.options.cli_values import accept_cli_values
from scorers._cited_answer import (
    CheckedCitation,
    CitedAnswer,
    citations_markdown,
    read_cited_answer,
)
from scorers._no_answer import no_answer_score

# The FullCite authors' human-evaluation scale labels (their annotation UI).
SUPPORT_SCALE = (
    "No support",
    "Barely support",
    "Partial support",
    "Support (not all points addressed)",
    "Full support",
)
# The UI names only the ends ("Not relevant" ... "Fully relevant"); the middle labels are
# this project's, in the same pattern as the Support scale.
RELEVANCE_SCALE = (
    "Not relevant",
    "Barely relevant",
    "Partially relevant",
    "Relevant (not all points addressed)",
    "Fully relevant",
)


def _scale(labels: tuple[str, ...]) -> str:
    return "\n".join(f"{i} = {label}" for i, label in enumerate(labels, start=1))


JUDGE_PROMPT = f"""\
You are checking one citation in an answer to a question. The statement is the part of the \
answer that the citation follows; the snippet is the evidence it cites from a document.

Question: {{question}}

Statement: {{statement}}

Cited document: {{title}}
Snippet: {{snippet}}

Rate two things.

Support: does the snippet support the statement?
{_scale(SUPPORT_SCALE)}

Relevance: is the snippet relevant to answering the question?
{_scale(RELEVANCE_SCALE)}

Reply with exactly two lines and nothing else:
Support: <1-5>
Relevance: <1-5>"""

# On vllm/ and openai-api/ graders the reply is constrained to this shape (structured_outputs).
JUDGE_REPLY_REGEX = r"Support: [1-5]\nRelevance: [1-5]"

# A rating is a lone digit 1-5: not signed, not the start of a longer number or a decimal.
_RATING = {
    key: re.compile(rf"\b{key}\b\W{{0,5}}(?<![-+])([1-5])(?![\w.])", re.IGNORECASE)
    for key in ("support", "relevance")
}
_RATING_TEXT = re.compile(r"\s*[1-5]\s*")
JUDGE_KEYS = ("support", "relevance", "coverage", "n_citations")


def _rating(value: Any) -> int | None:
    """A JSON rating: an integer (or a string holding one) from 1 to 5, else None."""
    if isinstance(value, bool):  # JSON true/false are ints to Python
        return None
    if isinstance(value, int):
        return value if 1 <= value <= 5 else None
    if isinstance(value, str) and _RATING_TEXT.fullmatch(value):
        return int(value)
    return None


def read_judgement(reply: str) -> tuple[int, int] | str:
    """(support, relevance) from a reply (``Support: 4`` lines or JSON), or why it is invalid.

    Only whole numbers from 1 to 5 count: a JSON reply with ``true``, ``4.9``, ``"high"``,
    ``Infinity`` or ``7`` is invalid, not rounded or clipped. A JSON object naming either key
    is judged as JSON alone.
    """
    text = reply.strip()
    data = json_in_reply(text)
    if isinstance(data, dict):
        fields = {str(k).lower(): v for k, v in data.items()}
        if "support" in fields or "relevance" in fields:
            ratings = []
            for key in ("support", "relevance"):
                if key not in fields:
                    return f'no "{key}" rating'
                rating = _rating(fields[key])
                if rating is None:
                    return f'"{key}" must be a whole number from 1 to 5, got {fields[key]!r:.40}'
                ratings.append(rating)
            return ratings[0], ratings[1]
    found = [_RATING[key].findall(text) for key in ("support", "relevance")]
    # Exactly one rating each: a reply that repeats the scale or hedges is not a judgement.
    if all(len(f) == 1 for f in found):
        return int(found[0][0]), int(found[1][0])
    if any(len(f) > 1 for f in found):
        return "more than one rating for the same scale"
    return "no Support and Relevance ratings from 1 to 5"


def parse_judgement(reply: str) -> tuple[int, int] | None:
    """(support, relevance) from a reply (``Support: 4`` lines or JSON), or None if invalid."""
    judgement = read_judgement(reply)
    return None if isinstance(judgement, str) else judgement


async def _wait(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def judge_citation(
    grader: Model,
    question: str,
    citation: CheckedCitation,
    title: str,
    attempts: int,
    backoff: float = 0.0,
) -> dict[str, Any]:
    """Ask the grader about one citation's evidence, retrying failures; never raises.

    The grader sees the document's own text of the cited span (``citation.evidence``); a
    citation without evidence is not judged (its ``no_evidence`` reason, no grader call). A
    call that raises waits ``backoff`` seconds (doubling) before the next attempt; an invalid
    reply (:func:`read_judgement`) is asked again at once.
    """
    if citation.no_evidence is not None or citation.evidence is None:
        return {"support": None, "relevance": None, "reason": citation.no_evidence}
    prompt = JUDGE_PROMPT.format(
        question=question,
        statement=citation.claim or "(no statement)",
        title=title,
        snippet=citation.evidence,
    )
    config = GenerateConfig()
    if forwards_extra_body(grader):
        config.extra_body = with_structured_outputs(
            grader.config.extra_body, regex=JUDGE_REPLY_REGEX
        )
    errors = []
    delay = backoff
    for attempt in range(attempts):
        try:
            output = await grader.generate(prompt, config=config)
        except Exception as e:  # a provider error is a failed attempt, not a crash
            errors.append(f"{type(e).__name__}: {e}"[:200])
            if attempt + 1 < attempts and delay > 0:
                await _wait(delay)
                delay *= 2
            continue
        judgement = read_judgement(output.completion)
        if not isinstance(judgement, str):
            return {"support": judgement[0], "relevance": judgement[1], "reply": output.completion}
        errors.append(f"unparsable reply ({judgement}): {output.completion[:120]!r}")
    return {"support": None, "relevance": None, "reason": "; ".join(errors)}


def _grader(model: str | None) -> Model:
    if model is not None:
        return get_model(model)
    if "grader" not in model_roles():
        raise ValueError(
            "citation_judge needs a judge model: pass --model-role grader=<model> (the paper "
            "used GPT-5.4) or -S model=<model>; it does not judge with the model under test"
        )
    return get_model(role="grader")


def _judge_values(answer: CitedAnswer, results: dict[int, dict[str, Any]]) -> dict[str, float]:
    n = len(answer.citations)
    judged = [r for r in results.values() if r.get("support") is not None]
    values = dict.fromkeys(JUDGE_KEYS, math.nan)
    values["n_citations"] = float(n)
    if n:
        values["coverage"] = 100 * len(judged) / n
    if judged:
        values["support"] = sum(r["support"] for r in judged) / len(judged)
        values["relevance"] = sum(r["relevance"] for r in judged) / len(judged)
    return values


@scorer(metrics={key: [mean(), stderr()] for key in JUDGE_KEYS})
@accept_cli_values("-S")
def citation_judge(attempts: int = 3, model: str | None = None, backoff: float = 1.0) -> Scorer:
    """Support (1-5) and Relevance (1-5) of each citation, judged by the ``grader`` model role.

    Args:
        attempts: Tries per citation before it is recorded as not judged.
        model: A judge model to use instead of the ``grader`` role.
        backoff: Seconds to wait after a failed call before the next attempt, doubling each
            time (on top of the provider's own retries of HTTP errors).

    """
    if attempts < 1:
        raise ArgumentError(f"attempts must be at least 1, got {attempts}")
    if backoff < 0:
        raise ArgumentError(f"backoff must be >= 0, got {backoff}")

    async def score(state: TaskState, target: Target) -> Score:
        grader = _grader(model)
        if unscored := no_answer_score(state, JUDGE_KEYS):
            return unscored
        answer = read_cited_answer(state)
        question = str((state.metadata or {}).get("question") or state.input_text)
        todo = [c for c in answer.citations if c.no_evidence is None]
        outcomes = await asyncio.gather(
            *(
                judge_citation(grader, question, c, answer.title(c.doc_id), attempts, backoff)
                for c in todo
            )
        )
        results = {c.index: r for c, r in zip(todo, outcomes, strict=True)}
        for c in answer.citations:
            results.setdefault(
                c.index, {"support": None, "relevance": None, "reason": c.no_evidence}
            )
        verdicts = {
            i: (
                f"Support {r['support']}/5, Relevance {r['relevance']}/5"
                if r.get("support") is not None
                else f"not judged ({r['reason']})"
            )
            for i, r in results.items()
        }
        values = _judge_values(answer, results)
        summary = ", ".join(f"{k} {v:.2f}" for k, v in values.items() if not math.isnan(v))
        summary = summary or "nothing judged"
        reason = None
        if math.isnan(values["support"]):
            reason = (
                "no citations: nothing to judge"
                if not answer.citations
                else "no citation could be judged (see each one's reason)"
            )
        return Score(
            value=values,
            answer=answer.text,
            explanation=f"{citations_markdown(answer, verdicts)}\n\n**Judge:** {summary}",
            metadata={
                "judgements": [results[c.index] for c in answer.citations],
                "grader": str(grader),
                "reason": reason,
            },
        )

    return score
