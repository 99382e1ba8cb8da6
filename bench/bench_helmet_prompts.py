"""HELMET prompt building at long context: time for 350 and 700 passages, and how it scales.

``-T context=128k`` shows each question 700 passages of about 100 words (HELMET's 128k row);
64k shows 345. Prompt building must stay linear in the passages: each passage is formatted
once and the passages are joined once (:class:`inspect_cite.alce.helmet.HelmetPromptBuilder`).
This builds the prompts of ``--items`` questions (HELMET runs 100) at 350 and at 700 passages,
from synthetic passages of ``--words`` words (seeded, words of this repository's docs), and
prints the median time per prompt of ``--repeats`` runs, the time per passage and the ratio
700 / 350 (2.0 is linear; a quadratic builder would give about 4).

The whole row, as a task builds it (:func:`inspect_cite.alce.helmet.helmet_items`: the seeded
question shuffle, the demonstration draw of every item of the file, the prompts), is timed too.

Run from the repository root::

    PYTHONPATH=. python bench/bench_helmet_prompts.py [--items 100] [--words 100] [--repeats 5]
"""

import argparse
import random
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_cite.alce.helmet import HelmetPromptBuilder, helmet_items, helmet_settings
from inspect_cite.alce.prompts import PromptFile

ROOT = Path(__file__).resolve().parents[1]

# HELMET's layout (the placeholders its loader fills), with an instruction of our own.
DEMO_PROMPT = "{instruction}\n\nQuestion: {question}\n\n{context}\n\nAnswer: {answer}"
DOC_PROMPT = "Document [{ID}](Title: {title}): {text}"
INSTRUCTION = "Instruction: Answer from the search results and cite them as [x]."


def vocabulary() -> list[str]:
    words = [w for p in sorted((ROOT / "docs").glob("*.md")) for w in p.read_text().split()]
    return [w for w in (w.strip("`*|()[]{}") for w in words) if w.isascii() and w.isalpha()]


def passage(rng: random.Random, vocab: list[str], words: int) -> dict[str, Any]:
    title = " ".join(rng.choice(vocab).capitalize() for _ in range(2))
    return {"title": title, "text": " ".join(rng.choice(vocab) for _ in range(words))}


def prompt_file(rng: random.Random, vocab: list[str], words: int) -> PromptFile:
    demos = [
        {
            "question": f"What is {rng.choice(vocab)}?",
            "answer": " ".join(rng.choice(vocab) for _ in range(40)) + " [1].",
            "docs": [passage(rng, vocab, words) for _ in range(5)],
        }
        for _ in range(4)
    ]
    return PromptFile(INSTRUCTION, "\n\n\n", DEMO_PROMPT, DOC_PROMPT, demos, "bench")


def items(rng: random.Random, vocab: list[str], n: int, ndoc: int, words: int) -> list[Any]:
    return [
        {
            "question": f"Who wrote {rng.choice(vocab)}?",
            "docs": [passage(rng, vocab, words) for _ in range(ndoc)],
        }
        for _ in range(n)
    ]


def time_prompts(pf: PromptFile, data: list[Any], ndoc: int, repeats: int) -> float:
    """Median seconds to build one prompt with ``ndoc`` passages (over all items)."""
    builder = HelmetPromptBuilder(pf, ndoc=ndoc)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in data:
            builder.user_message(item, [0, 1])
        runs.append((time.perf_counter() - start) / len(data))
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100, help="questions (HELMET: 100)")
    parser.add_argument("--words", type=int, default=100, help="words per passage")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(0)
    vocab = vocabulary()
    pf = prompt_file(rng, vocab, args.words)
    data = items(rng, vocab, args.items, 700, args.words)
    times = {n: time_prompts(pf, data, n, args.repeats) for n in (350, 700)}
    prompt_chars = len(HelmetPromptBuilder(pf, ndoc=700).user_message(data[0], [0, 1]))
    print(f"{args.items} prompts, passages of {args.words} words, median of {args.repeats} runs")
    print("passages | ms per prompt | us per passage")
    for n, t in times.items():
        print(f"{n:>8} | {1000 * t:13.2f} | {1e6 * t / n:14.2f}")
    print(f"ratio 700 / 350: {times[700] / times[350]:.2f} (linear: 2.0)")
    print(f"one 700-passage prompt: {prompt_chars:,} characters")
    settings = replace(helmet_settings("asqa", "128k"), max_test_samples=args.items)
    start = time.perf_counter()
    helmet_items(data, pf, settings)
    whole = time.perf_counter() - start
    print(f"whole 128k row ({args.items} questions, helmet_items): {whole:.3f} s")


if __name__ == "__main__":
    main()
