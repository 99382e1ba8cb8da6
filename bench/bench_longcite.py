"""LongBench-Cite's prompt building for long contexts: its cost against Punkt alone, and its growth.

A LongBench-Cite prompt is built from the context in three steps
(:mod:`inspect_cite.longcite.chunks`): Punkt's sentence split (nltk, untrained, as LongCite),
the Chinese re-split and locating of each sentence in the text, then the numbered passage put
into the one-shot prompt. The baseline, in the same process, is the Punkt split alone, which no
implementation of LongCite's chunking can skip; the ratio says what the rest costs. Each size
doubles the last, so a time growing about 2x per step is linear in the context's length.

The contexts are synthetic (seeded): English text of 5-30 word sentences in paragraphs, up to
500,000 characters (about 128K tokens, the input limit LongCite's ``pred_sft.py`` gives its
models), and Chinese text of the same shape, up to 800,000 characters (Punkt finds no sentence
end in it, so the Chinese re-split does the work and the ratio to Punkt alone is large). The
prompt template is a stand-in with the two slots (the filling is a pair of ``str.replace``).

Run from the repository root::

    PYTHONPATH=. python bench/bench_longcite.py [--sizes 125000,250000,500000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there one all we their river library report "
    "Dr. U.S. e.g. 1931 240 km"
).split()
HANZI = "茶叶村民合作社老桥明代青石公路文物山坡云雾采摘工序火候收入城里商人网上销售"


def english(chars: int, rng: random.Random) -> str:
    parts: list[str] = []
    total = 0
    while total < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 30)))
        sentence = sentence[0].upper() + sentence[1:] + rng.choice(".....?!")
        sep = "\n\n" if rng.random() < 0.15 else " "
        parts.append(sentence + sep)
        total += len(sentence) + len(sep)
    return "".join(parts)[:chars]


def chinese(chars: int, rng: random.Random) -> str:
    parts: list[str] = []
    total = 0
    while total < chars:
        sentence = "".join(rng.choice(HANZI) for _ in range(rng.randint(8, 40)))
        sentence += rng.choice("。。。；！？")
        if rng.random() < 0.1:
            sentence += "\n\n"
        parts.append(sentence)
        total += len(sentence)
    return "".join(parts)[:chars]


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def paired(
    repeats: int, base: Callable[[], object], full: Callable[[], object]
) -> tuple[float, float]:
    """Median times of the two, measured alternately (a shared machine's load hits both)."""
    times = [(timed(base), timed(full)) for _ in range(repeats)]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="125000,250000,500000", help="English characters")
    parser.add_argument("--zh-sizes", default="200000,400000,800000", help="Chinese characters")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from nltk.tokenize import PunktSentenceTokenizer

    from inspect_cite.longcite.chunks import chunk_docs, numbered_passage
    from inspect_cite.longcite.prompts import OneShotPrompt

    prompt = OneShotPrompt("[Document]\n<<context>>\n[Question]\n<<question>>\n", {})
    punkt = PunktSentenceTokenizer()

    def build(text: str) -> str:
        docs = chunk_docs(text)
        return prompt.fill(numbered_passage([d["text"] for d in docs]), "What happened?")

    print(
        "| language | context chars | chunks | Punkt alone s | prompt built s | "
        "prompt / Punkt | growth vs previous size |"
    )
    print("|---|---|---|---|---|---|---|")
    for language, sizes, make in (
        ("English", args.sizes, english),
        ("Chinese", args.zh_sizes, chinese),
    ):
        previous = None
        for size in (int(s) for s in sizes.split(",") if s):
            text = make(size, random.Random(args.seed))
            build(text)  # warm: nltk's regexes compiled, the code paths loaded
            base, full = paired(
                args.repeats, lambda text=text: punkt.tokenize(text), lambda text=text: build(text)
            )
            chunks = len(chunk_docs(text))
            growth = f"{full / previous:.2f}x" if previous else "-"
            print(
                f"| {language} | {size:,} | {chunks:,} | {base:.3f} | {full:.3f} | "
                f"{full / base:.2f}x | {growth} |",
                flush=True,
            )
            previous = full


if __name__ == "__main__":
    main()
