"""HELMET prompt building at long context: time for 350 and 700 passages, and how it scales.

``-T context=128k`` shows each question 700 passages of about 100 words (HELMET's 128k row);
64k shows 345. Prompt building must stay linear in the passages: each passage is formatted
once and the passages are joined once (:class:`inspect_cite.alce.helmet.HelmetPromptBuilder`).
This builds the prompts of ``--items`` questions (HELMET runs 100) at 350 and at 700 passages,
from synthetic passages of ``--words`` words (seeded, words of this repository's docs), and
prints the fastest time per prompt of ``--repeats`` runs (the least disturbed by other work),
the time per passage and the ratio 700 / 350 (2.0 is linear; a quadratic builder would give
about 4).

The whole row, as a task builds it (:func:`inspect_cite.alce.helmet.helmet_items`: the seeded
question shuffle, the demonstration draw of every item of the file, the prompts), is timed too.

``--load-items N`` also writes a HELMET-sized data file (N items of 2,000 passages) and measures,
each in a fresh process, the peak memory of reading it whole (``json.load``, as the ALCE tasks read
ALCE's 100-passage files) and of :func:`inspect_cite.alce.helmet.read_helmet_items`, which keeps
the 700 passages a row can show.

Run from the repository root::

    PYTHONPATH=. python bench/bench_helmet_prompts.py [--items 100] [--words 100] [--repeats 5]
        [--load-items 100]
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
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
    """Seconds to build one prompt with ``ndoc`` passages: the fastest of ``repeats`` runs."""
    builder = HelmetPromptBuilder(pf, ndoc=ndoc)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in data:
            builder.user_message(item, [0, 1])
        runs.append((time.perf_counter() - start) / len(data))
    return min(runs)


LOADERS = {
    "json.load (whole file)": "data = json.load(open({path!r}))",
    "read_helmet_items (700 kept)": "data = read_helmet_items({path!r}, 'asqa', max_docs=700)",
}


def peak_memory(code: str) -> tuple[float, float]:
    """Seconds and peak RSS growth (MB) of ``code`` in a fresh process, imports excluded."""
    probe = (
        "import json, resource, time\n"
        "from inspect_cite.alce.helmet import read_helmet_items\n"
        "def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "before = rss(); start = time.perf_counter()\n"
        + code
        + "\nprint(time.perf_counter() - start, rss() - before)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    seconds, mb = out.stdout.split()
    return float(seconds), float(mb)


def load_memory(n_items: int, words: int) -> None:
    """Peak memory of reading a HELMET-sized data file whole vs keeping 700 passages."""
    rng = random.Random(1)
    vocab = vocabulary()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "asqa_eval_gtr_top2000.json")
        with open(path, "w") as f:
            f.write("[")
            for i in range(n_items):
                item = {
                    "question": f"Who wrote {rng.choice(vocab)}?",
                    "answer": "x",
                    "qa_pairs": [{"short_answers": ["x"]}],
                    "docs": [passage(rng, vocab, words) for _ in range(2000)],
                }
                f.write(("," if i else "") + json.dumps(item))
            f.write("]")
        size = Path(path).stat().st_size / 1e6
        print(f"data file: {n_items} items x 2000 passages of {words} words, {size:,.0f} MB")
        print("loader | seconds | peak RSS growth MB")
        for name, code in LOADERS.items():
            seconds, mb = peak_memory(code.format(path=path))
            print(f"{name} | {seconds:.1f} | {mb:,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100, help="questions (HELMET: 100)")
    parser.add_argument("--words", type=int, default=100, help="words per passage")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--load-items", type=int, default=0, help="also measure data loading")
    args = parser.parse_args()
    rng = random.Random(0)
    vocab = vocabulary()
    pf = prompt_file(rng, vocab, args.words)
    data = items(rng, vocab, args.items, 700, args.words)
    times = {n: time_prompts(pf, data, n, args.repeats) for n in (350, 700)}
    prompt_chars = len(HelmetPromptBuilder(pf, ndoc=700).user_message(data[0], [0, 1]))
    print(f"{args.items} prompts, passages of {args.words} words, fastest of {args.repeats} runs")
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
    if args.load_items:
        load_memory(args.load_items, args.words)


if __name__ == "__main__":
    main()
