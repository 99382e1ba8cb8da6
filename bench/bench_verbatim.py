"""Near-verbatim check of long snippets: the word-level match vs the old rapidfuzz path.

``near_verbatim`` used to run rapidfuzz's partial-ratio alignment (>= 95) over SQuAD-normalised
texts, which grows about as the cube of the snippet's length (seconds at 10k characters, minutes at
50k) and accepts a changed word in a long snippet. It now compares tokens
(:mod:`inspect_cite.text.verbatim`), in linear time. For each snippet length the document is twice
as long, built from the words of this repository's docs (seeded), and three snippets are checked:

- ``typography``: a span of the document upper-cased, with curly quotes and dashes (both
  paths: near-verbatim);
- ``inserted word``: the span with "not" inserted in its middle (old: near-verbatim, new: not);
- ``reworded``: the span with 20% of its words replaced (both: not near-verbatim; the old
  path's slowest case).

The new path is timed cold (the document's tokens are not cached), median of ``--repeats``;
the old path once per case (it takes minutes at 50k characters; ``--old-max`` skips it above
a length). Printed: seconds of each, their ratio and both answers.

Run from the repository root (the old path needs rapidfuzz, a dev dependency)::

    PYTHONPATH=. python bench/bench_verbatim.py [--sizes 10000,20000,50000] [--old-max 50000]
"""

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from rapidfuzz import fuzz

from inspect_cite.text import verbatim
from inspect_cite.text.squad import normalize_answer
from inspect_cite.text.verbatim import near_verbatim

ROOT = Path(__file__).resolve().parents[1]


def old_near_verbatim(snippet: str, document: str) -> bool:
    """The check before the word-level match (rapidfuzz partial ratio >= 95 after SQuAD)."""
    if not snippet.strip() or snippet in document:
        return False
    needle, haystack = normalize_answer(snippet), normalize_answer(document)
    if not needle or len(needle) > len(haystack):
        return False
    return fuzz.partial_ratio_alignment(needle, haystack, score_cutoff=95.0) is not None


def new_near_verbatim(snippet: str, document: str) -> bool:
    """The current check, with the document's cached tokens dropped first (a cold call)."""
    verbatim.document_index.cache_clear()
    return near_verbatim(snippet, document)


def cases(size: int, rng: random.Random) -> tuple[str, dict[str, str]]:
    """A document of about ``2 * size`` characters and the three snippets of ``size``."""
    vocab = [w for p in sorted((ROOT / "docs").glob("*.md")) for w in p.read_text().split()]
    vocab = [w.strip("`*|()[]") for w in vocab if w.isascii() and w.strip("`*|()[]").isalpha()]
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < 2 * size:
        words.append(rng.choice(vocab))
    document = " ".join(words)
    start = len(words) // 4
    span: list[str] = []
    while sum(len(w) + 1 for w in span) < size:
        span.append(words[start + len(span)])
    middle = len(span) // 2
    typography = " ".join(span).upper()
    typography = typography.replace(" ", " \u201c", 1).replace(" ", "\u201d \u2014 ", 1)
    snippets = {
        "typography": typography,
        "inserted word": " ".join([*span[:middle], "not", *span[middle:]]),
        "reworded": " ".join(rng.choice(vocab) if rng.random() < 0.2 else w for w in span),
    }
    return document, snippets


def timed(check: Callable[[str, str], bool], snippet: str, document: str) -> tuple[float, bool]:
    start = time.perf_counter()
    answer = check(snippet, document)
    return time.perf_counter() - start, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,20000,50000", help="snippet lengths (chars)")
    parser.add_argument("--old-max", type=int, default=50000, help="skip the old path above")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("| snippet chars | case | old s | new s | old / new | old answer | new answer |")
    print("|---|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        document, snippets = cases(size, rng)
        for name, snippet in snippets.items():
            runs = [timed(new_near_verbatim, snippet, document) for _ in range(args.repeats)]
            new_s, new_answer = statistics.median(t for t, _ in runs), runs[0][1]
            if size <= args.old_max:
                old_s, old_answer = timed(old_near_verbatim, snippet, document)
                ratio, old = f"{old_s / new_s:,.0f}x", f"{old_s:.2f}"
            else:
                old_answer, ratio, old = None, "-", "skipped"
            print(
                f"| {len(snippet):,} | {name} | {old} | {new_s:.4f} | {ratio} | "
                f"{'-' if old_answer is None else old_answer} | {new_answer} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
