"""LongBench-Cite's answer correctness, as LongCite's ``eval_correct.py`` grades it.

The answer without its citations and statement tags is graded by the ``grader`` model role
against each reference answer, and the best grade counts (x100). The prompt and scale depend
on the dataset, as in LongCite's ``dataset2metric``:

- ``multifieldqa_en``, ``multifieldqa_zh``, ``hotpotqa``, ``dureader``: the QA prompt, a
  rating 1-3 read as ``(r - 1) / 2``;
- ``gov_report``: the summary prompt, a rating 1-5 read as ``(r - 1) / 4``;
- ``longbench-chat``: the few-shot prompt showing the item's rated example answers (its
  ``few_shot_scores``, shuffled per call as LongCite shuffles them, here seeded by ``seed`` and
  the sample id), the answer on one line, a rating 1-10 read as ``r / 10``.

A reply is read as LongCite reads it: the last ``[[...]]``, and the first number in it. The
grader is asked up to 5 times (2 for LongBench-Chat) at temperature 0, with LongCite's system
message. As in LongCite, a reference answer whose grading stays unreadable counts 0.5, and a
rating outside the scale is not refused (a ``[[5]]`` on the QA scale gives 200);
``strict=True`` makes both nan with the reason instead. A rating that is not a whole number
(``[[2.5]]``), which stops LongCite's script, and an item with fewer example answers than the
prompt shows, are nan with the reason.

``unreadable_gradings`` is the share (x100) of the sample's reference answers scored by that
0.5 rule, averaged over samples as ``correctness`` is, so that a run shows how much of its
headline rests on it. Unlike LongCite's ``eval_correct.py``, a grader call that raises (after
Inspect's retries) is not read as an unreadable reply: the sample errors
(:mod:`scorers._longcite_grader`).
"""

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.generation.thinking import split_output
from inspect_cite.longcite.prompts import CorrectnessPrompts, correctness_prompts
from inspect_cite.longcite.statements import restore_open_tag, without_citations
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import literal
from scorers._longcite_grader import ask_until_read, grader_model
from scorers._longcite_metrics import longbench_cite, longbench_cite_by_dataset
from scorers._no_answer import no_answer_score, unscored_score

CORRECTNESS_KEYS = ("correctness", "unreadable_gradings")
UNREADABLE_SCORE = 0.5
"""What LongCite's graders return for a reference answer whose grading stays unreadable."""

_BRACKETS = re.compile(r"\[\[([^\]]+)\]\]")
_NUMBER = re.compile(r"\d+\.\d+|\d+")


def read_rating(reply: str) -> str | None:
    """The first number in the last ``[[...]]`` of the reply, as written, or None."""
    brackets = _BRACKETS.findall(reply)
    if not brackets:
        return None
    numbers = _NUMBER.findall(brackets[-1])
    return numbers[0] if numbers else None


@dataclass(frozen=True)
class Grading:
    """How one dataset's answers are graded: the prompt, tries, stop and the rating's scale."""

    kind: str
    attempts: int
    stop: list[str] | None
    lowest: int
    highest: int
    value: Callable[[int], float]


GRADINGS: dict[str, Grading] = {
    "qa": Grading("qa", 5, None, 1, 3, lambda r: (r - 1.0) / 2),
    "summary": Grading("summary", 5, None, 1, 5, lambda r: (r - 1.0) / 4),
    "few_shot": Grading("few_shot", 2, ["\n\n"], 1, 10, lambda r: r / 10),
}
DATASET_GRADING = {
    "longbench-chat": "few_shot",
    "multifieldqa_en": "qa",
    "multifieldqa_zh": "qa",
    "hotpotqa": "qa",
    "dureader": "qa",
    "gov_report": "summary",
}


class _NotScored(Exception):
    """The sample cannot be graded (the reason is the message)."""


def _prompt(
    prompts: CorrectnessPrompts,
    grading: Grading,
    question: str,
    reference: str,
    answer: str,
    examples: list[tuple[str, Any]],
) -> str:
    if grading.kind == "qa":
        return prompts.qa_prompt(question, reference, answer)
    if grading.kind == "summary":
        return prompts.summary_prompt(reference, answer)
    return prompts.few_shot_prompt(question, reference, examples, answer.replace("\n", " ").strip())


def _examples(metadata: dict[str, Any], needed: int, rng: random.Random) -> list[tuple[str, Any]]:
    shots = metadata.get("few_shot_scores")
    if not isinstance(shots, list) or len(shots) < needed:
        have = len(shots) if isinstance(shots, list) else 0
        raise _NotScored(
            f"LongBench-Chat grading shows {needed} rated example answers; the sample's "
            f'metadata["few_shot_scores"] has {have}'
        )
    pairs = [(str(s["answer"]), s["score"]) for s in shots]
    rng.shuffle(pairs)
    return pairs


def _explanation(
    kind: str, dataset: str, grades: list[dict[str, Any]], values: dict[str, float]
) -> str:
    """Each reference answer's grading as a markdown list; replies as text, never escapes."""
    lines = [f"**{kind} grading** ({literal(dataset, line_start=False)})", ""]
    for g in grades:
        head = f"- reference {g['reference'] + 1}: "
        if "rating" in g:
            lines.append(f"{head}rating {g['rating']} -> {g['value']:g}")
        else:
            lines.append(head + literal(g["note"], line_start=False))
    share = values["unreadable_gradings"]
    lines += [
        "",
        f"**Correctness:** {values['correctness']:g}",
        "",
        f"**Unreadable gradings:** {'nan' if math.isnan(share) else f'{share:g}%'}",
    ]
    return "\n".join(lines)


@scorer(
    metrics={
        key: [mean(), stderr(), longbench_cite(), longbench_cite_by_dataset()]
        for key in CORRECTNESS_KEYS
    }
)
@accept_cli_values("-S")
def longcite_correctness(model: str | None = None, seed: int = 42, strict: bool = False) -> Scorer:
    """LongBench-Cite's correctness of the answer, graded as LongCite's ``eval_correct.py``.

    Args:
        model: A grader model to use instead of the ``grader`` model role.
        seed: Seeds the order of LongBench-Chat's example answers (LongCite's is unseeded).
        strict: An unreadable grading or a rating off the scale is nan with the reason,
            instead of LongCite's 0.5 and unchecked value.

    """
    if seed < 0:
        raise ArgumentError(f"longcite_correctness: seed must be >= 0, got {seed}")
    prompts = correctness_prompts()

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        dataset = str(metadata.get("dataset", ""))
        if unscored := no_answer_score(state, CORRECTNESS_KEYS, metadata={"dataset": dataset}):
            return unscored
        kind = DATASET_GRADING.get(dataset)
        if kind is None:
            return unscored_score(
                CORRECTNESS_KEYS,
                f'LongCite grades no dataset named {dataset!r} (metadata["dataset"]; one of '
                f"{', '.join(DATASET_GRADING)})",
                metadata={"dataset": dataset},
            )
        grading = GRADINGS[kind]
        grader = grader_model(model, "longcite_correctness")
        answer = without_citations(restore_open_tag(split_output(state.output).answer))
        references = metadata.get("answers")
        if not isinstance(references, list):
            references = list(target.target)
        question = str(metadata.get("question") or state.input_text)
        config = GenerateConfig(temperature=0.0, max_tokens=1024, stop_seqs=grading.stop)
        grades: list[dict[str, Any]] = []
        best = 0.0
        try:
            if strict and not references:
                raise _NotScored("the sample has no reference answer")
            for i, reference in enumerate(references):
                rng = random.Random(f"{seed}:{state.sample_id}:{i}")
                examples = (
                    _examples(metadata, prompts.few_shot_examples, rng)
                    if kind == "few_shot"
                    else []
                )
                prompt = _prompt(prompts, grading, question, str(reference), answer, examples)
                asked = await ask_until_read(
                    grader,
                    [ChatMessageSystem(content=prompts.system), ChatMessageUser(content=prompt)],
                    [config] * grading.attempts,
                    read_rating,
                    # eval_correct.py checks for "Trigger" only in its API wrapper's own reply.
                    trigger_ends=False,
                )
                grade: dict[str, Any] = {"reference": i, "replies": asked.replies}
                if asked.value is None:
                    if strict:
                        raise _NotScored(f"reference answer {i}: {asked.failure}")
                    grade.update(value=UNREADABLE_SCORE, note=f"{asked.failure}: 0.5 (LongCite)")
                elif not asked.value.isdigit():
                    raise _NotScored(f"reference answer {i}: rating {asked.value} is not whole")
                else:
                    rating = int(asked.value)
                    if strict and not grading.lowest <= rating <= grading.highest:
                        raise _NotScored(
                            f"reference answer {i}: rating {rating} is off the scale "
                            f"{grading.lowest}-{grading.highest}"
                        )
                    grade.update(rating=rating, value=grading.value(rating))
                grades.append(grade)
                best = max(best, grade["value"])
        except _NotScored as e:
            meta: dict[str, Any] = {"dataset": dataset, "grades": grades, "grading": kind}
            return unscored_score(CORRECTNESS_KEYS, str(e), answer=answer, metadata=meta)
        unreadable = sum(1 for g in grades if "rating" not in g)
        values = {
            "correctness": 100 * best,
            # An empty share is not 0% (strict refuses such a sample above).
            "unreadable_gradings": 100 * unreadable / len(grades) if grades else math.nan,
        }
        meta = {"dataset": dataset, "grades": grades, "grading": kind, "grader": str(grader)}
        if not grades:
            meta["reasons"] = {"unreadable_gradings": "the sample has no reference answer"}
        return Score(
            value=values,
            answer=answer,
            explanation=_explanation(kind, dataset, grades, values),
            metadata=meta,
        )

    return score
