"""Benchmark: end-to-end ALCE scoring cost (citations + correctness) and how it grows with N.

Scores synthetic ALCE samples (ASQA, QAMPARI and ELI5 in turn, every citation pattern; see
``bench/alce_synthetic.py``) as the scorers do: ``citation_scores`` (and ELI5
``claims_score``) through a process-wide NLI backend with its batching queue and in-memory
cache, then ``correctness``, all samples concurrently. Each size gets a fresh backend (cold cache).

- ``seq2seq``: the tiny random TRUE-format T5 (``inspect_cite.testing.tiny_t5.build_tiny_t5``), CPU;
- ``python``: ``python:bench.alce_synthetic:word_entail``, which isolates the harness's own cost.

Reported per size: wall time, time per sample, NLI pairs sent to the model, and peak memory
(process max RSS growth, which includes torch; and the Python heap peak from tracemalloc).
Time and heap are measured in separate passes: tracemalloc's bookkeeping costs more per
allocation the more blocks are alive, so a traced pass would itself grow faster than linearly
with N and hide the harness's own growth.

Run from the repository root::

    PYTHONPATH=. python bench/bench_scoring.py
"""

import argparse
import asyncio
import math
import resource
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import torch

from bench.bench_nli import samples, score_one
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.testing.tiny_t5 import build_tiny_t5
from scorers.alce_correctness import correctness

# The harness's own cost: a word-overlap judge (no model).
PYTHON_NLI = "python:bench.alce_synthetic:word_entail"


async def score_all(data: list, nli: Any) -> None:
    async def one(ds: str, item: dict[str, Any]) -> None:
        await score_one(ds, item, nli)
        output = item["output"].strip().split("\n")[0].replace("<|im_end|>", "")
        correctness(output, item, ds)  # type: ignore[arg-type]

    await asyncio.gather(*(one(ds, item) for ds, item in data))


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(spec: str, n: int, min_samples: int = 1) -> dict[str, float]:
    """Score ``n`` samples; sizes below ``min_samples`` repeat (fresh backend each), median kept.

    A 100-sample run takes a tenth of a second with the ``python:`` NLI, where one garbage
    collection or scheduler hiccup moves the per-sample cost by half; repeats make the small
    sizes as steady as the large ones.
    """
    data = samples(n)
    rss0 = max_rss_mb()
    times = []
    for _ in range(max(1, math.ceil(min_samples / n))):
        reset_nli()
        nli = get_nli(spec)
        start = time.perf_counter()
        asyncio.run(score_all(data, nli))
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    pairs = nli.model_pairs
    reset_nli()
    traced = get_nli(spec)
    tracemalloc.start()
    asyncio.run(score_all(data, traced))
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "n": n,
        "seconds": seconds,
        "ms_per_sample": 1000 * seconds / n,
        "pairs": pairs,
        "rss_growth_mb": max_rss_mb() - rss0,
        "heap_peak_mb": heap_peak / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t5-sizes", default="100,1000", help="sizes scored with the tiny T5")
    parser.add_argument("--python-sizes", default="100,1000,10000", help="sizes, python: NLI")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument(
        "--min-samples",
        type=int,
        default=1000,
        help="repeat smaller sizes until this many samples were timed (median of the repeats)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t5 = build_tiny_t5(Path(tmp) / "t5")
        measure(f"seq2seq:{t5}", 12)  # warm-up: model load, tokenizer, punkt, rouge
        measure(PYTHON_NLI, 12)
        for n in [int(x) for x in args.t5_sizes.split(",") if x]:
            rows.append(("seq2seq (tiny T5)", measure(f"seq2seq:{t5}", n, args.min_samples)))
        for n in [int(x) for x in args.python_sizes.split(",") if x]:
            rows.append(
                (
                    "python (word_entail)",
                    measure(PYTHON_NLI, n, args.min_samples),
                )
            )
    print("\n## End-to-end ALCE scoring (citations + correctness), cold NLI cache\n")
    print("| NLI | samples | seconds | ms/sample | NLI pairs | RSS growth MB | heap peak MB |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        print(
            f"| {name} | {r['n']:.0f} | {r['seconds']:.2f} | {r['ms_per_sample']:.2f} "
            f"| {r['pairs']:.0f} | {r['rss_growth_mb']:.0f} | {r['heap_peak_mb']:.1f} |"
        )
    print("\nGrowth (ms/sample relative to the smallest size of the same NLI; 1.0 = linear):")
    for name in dict.fromkeys(n for n, _ in rows):
        mine = [r for n, r in rows if n == name]
        base = mine[0]["ms_per_sample"]
        ratios = ", ".join(f"{r['n']:.0f}: {r['ms_per_sample'] / base:.2f}x" for r in mine)
        print(f"- {name}: {ratios}")


if __name__ == "__main__":
    main()
