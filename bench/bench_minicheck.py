"""Benchmark: ``minicheck:`` Flan-T5 pairs/s on CPU, batched vs one pair at a time.

Judges (document, claim) pairs (a document of 3 to 45 short passages of the ALCE fixtures, one a
line, about 50 to 900 words, so that the longer ones are more than one 500-word chunk; a
one-sentence claim) with
a random stand-in of MiniCheck-Flan-T5 (``inspect_cite.testing.tiny_minicheck``: the architecture
and tokenizer layout of the real model at a smaller width, its vocabulary holding the
benchmark's words, about a token a word as with T5's tokenizer), through
``get_nli("minicheck:<dir>")``:

1. batched: every pair in one ``entail`` call, as ``inspect-cite calibrate`` and concurrently
   scored samples submit them: the chunks of all pairs share forward passes, bucketed by length;
2. one pair at a time, its chunks batched: each pair awaited before the next (MiniCheck's own
   ``score`` loop, which batches only one pair's chunks), on the first pairs;
3. one pair at a time, one row per pass: the same with ``INSPECT_CITE_NLI_BATCH_SIZE=1``.

Every probability must agree within 1e-4 and every decision must be identical across the three.
Imports only the package and ``bench/``. Run from the repository root::

    PYTHONPATH=. python bench/bench_minicheck.py [--pairs 200] [--baseline 50] \\
        [--d-model 32 --layers 2] [--threads N]
"""

import argparse
import asyncio
import os
import random
import tempfile
import time
from pathlib import Path

import torch
from safetensors.torch import load_file

from bench.alce_synthetic import synthetic_items
from bench.threads import parse_with_threads
from inspect_cite.nli import NLIResult, Pair, get_nli, reset_nli
from inspect_cite.nli.hf import BATCH_SIZE_ENV
from inspect_cite.testing.tiny_minicheck import build_tiny_flan_t5


def bench_pairs(n: int, seed: int = 0) -> list[Pair]:
    """``n`` (document, claim) pairs: 3-45 fixture passages a line, one claim sentence."""
    rng = random.Random(seed)
    items = synthetic_items("asqa", 40, seed=seed) + synthetic_items("eli5", 40, seed=seed)
    passages = [f"{d['title']}\n{d['text']}" for item in items for d in item["docs"]]
    claims = [item["output"].split(".")[0].split("[")[0].strip() + "." for item in items]
    return [
        ("\n".join(rng.sample(passages, rng.choice([3, 5, 8, 12, 20, 30, 45]))), rng.choice(claims))
        for _ in range(n)
    ]


def one_at_a_time(spec: str, pairs: list[Pair]) -> tuple[list[NLIResult], float]:
    backend = get_nli(spec)
    asyncio.run(backend.entail([("warm up.", "warm.")]))
    start = time.perf_counter()
    results = [asyncio.run(backend.entail([pair]))[0] for pair in pairs]
    return results, time.perf_counter() - start


def same(a: list[NLIResult], b: list[NLIResult]) -> bool:
    return all(
        x.entailed == y.entailed and abs((x.prob or 0) - (y.prob or 0)) < 1e-4
        for x, y in zip(a, b, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--baseline", type=int, default=50, help="pairs judged one at a time")
    parser.add_argument("--d-model", type=int, default=32, help="width (t5-small: 512)")
    parser.add_argument("--layers", type=int, default=2, help="encoder and decoder layers")
    args = parse_with_threads(parser)
    pairs = bench_pairs(args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        # Its tokenizer knows the benchmark's words: about a token a word, as T5's does.
        text = " ".join(doc + " " + claim for doc, claim in pairs)
        model = build_tiny_flan_t5(
            Path(tmp) / "t5", d_model=args.d_model, layers=args.layers, vocabulary=text
        )
        spec = f"minicheck:{model}"
        params = sum(t.numel() for t in load_file(model / "model.safetensors").values())
        backend = get_nli(spec)
        asyncio.run(backend.entail([("warm up.", "warm.")]))  # load outside the timings
        start = time.perf_counter()
        batched = asyncio.run(backend.entail(pairs))
        batched_s = time.perf_counter() - start

        # The same pairs as the baselines, batched in a fresh backend: the ratios compare like
        # with like (document lengths vary between pairs).
        reset_nli()
        baseline = pairs[: args.baseline]
        backend = get_nli(spec)
        asyncio.run(backend.entail([("warm up.", "warm.")]))
        start = time.perf_counter()
        asyncio.run(backend.entail(baseline))
        subset_s = time.perf_counter() - start
        reset_nli()
        per_pair, per_pair_s = one_at_a_time(spec, baseline)
        reset_nli()
        os.environ[BATCH_SIZE_ENV] = "1"
        per_row, per_row_s = one_at_a_time(spec, baseline)
        del os.environ[BATCH_SIZE_ENV]
        reset_nli()
        assert same(batched[: len(baseline)], per_pair), "batched differs from one pair at a time"
        assert same(per_pair, per_row), "one row per pass differs from one pair at a time"
    words = [len(doc.split()) for doc, _ in pairs]
    multi = sum(w > 500 for w in words)
    rate = len(pairs) / batched_s
    print(
        f"\nminicheck: Flan-T5 stand-in (d_model {args.d_model}, {args.layers}+{args.layers} "
        f"layers, {params / 1e6:.1f}M parameters), CPU, {torch.get_num_threads()} threads; "
        f"documents {min(words)}-{max(words)} words, {multi} of {len(pairs)} over one "
        "500-word chunk\n"
    )
    subset = len(baseline) / subset_s
    print("| path | pairs | pairs/s | batched (same pairs) vs this |")
    print("|---|---|---|---|")
    print(f"| batched (all pairs in one call) | {len(pairs)} | {rate:.1f} | - |")
    print(f"| batched, the first {len(baseline)} | {len(baseline)} | {subset:.1f} | 1.0x |")
    for name, seconds in (
        ("one pair at a time, its chunks batched (MiniCheck's loop)", per_pair_s),
        ("one pair at a time, one row per pass", per_row_s),
    ):
        one = len(baseline) / seconds
        print(f"| {name} | {len(baseline)} | {one:.1f} | **{subset / one:.1f}x** |")
    print(f"\nProbabilities within 1e-4, decisions identical: all {len(baseline)} pairs compared.")


if __name__ == "__main__":
    main()
