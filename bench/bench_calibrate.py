"""Benchmark: ``inspect-cite calibrate`` judging pairs batched vs one pair at a time, and cached.

Writes AttributionBench-format labelled claims (made-up words, every degree of overlap) and
judges them with a tiny random TRUE-format T5 (``seq2seq:<dir>``), on CPU:

1. batched: ``inspect_cite.app.calibrate.calibrate`` (chunks through the batching queue), its
   pairs/s as ``calibration.json`` reports it;
2. one pair at a time: the same backend kind with ``INSPECT_CITE_NLI_BATCH_SIZE=1``, each pair
   awaited before the next (eval.py's loop), on the first pairs only; every decision must
   equal the batched one;
3. cached: ``calibrate`` again in a fresh backend with the same disk cache: it must make no
   NLI call.

Imports only the package and ``bench/`` (the tiny T5 is built by
``inspect_cite.testing.tiny_t5``). Run from the repository root::

    PYTHONPATH=. python bench/bench_calibrate.py [--pairs 400] [--baseline 100] [--threads N]
"""

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path

import torch

from bench.threads import parse_with_threads
from inspect_cite.app.calibrate import calibrate
from inspect_cite.app.human_labels import load_human_data
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.nli.hf import BATCH_SIZE_ENV
from inspect_cite.testing.tiny_t5 import build_tiny_t5


def write_pairs(path: Path, n: int, seed: int = 0) -> Path:
    """``n`` AttributionBench-format lines: claims and references over a small vocabulary."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(200)]
    lines = []
    for i in range(n):
        claim = " ".join(rng.sample(vocab, rng.randint(4, 12))) + "."
        refs = [" ".join(rng.sample(vocab, rng.randint(10, 50))) for _ in range(rng.randint(1, 3))]
        label = "attributable" if rng.random() < 0.5 else "not attributable"
        row = {"claim": claim, "references": refs, "attribution_label": label}
        lines.append(json.dumps(row | {"src_dataset": f"source{i % 3}", "id": str(i)}))
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--baseline", type=int, default=100, help="pairs judged one at a time")
    args = parse_with_threads(parser)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = f"seq2seq:{build_tiny_t5(root / 't5')}"
        data = write_pairs(root / "pairs.jsonl", args.pairs)
        cache = str(root / "nli.sqlite")
        # Model load and first-call overheads outside the timings.
        asyncio.run(get_nli(spec).entail([("warm up", "warm")]))

        reset_nli()
        batched = calibrate([spec], ["attributionbench"], [str(data)], nli_cache=cache)
        row = batched.judges[0][1][0]

        reset_nli()
        os.environ[BATCH_SIZE_ENV] = "1"
        single = get_nli(spec)
        asyncio.run(single.entail([("warm up", "warm")]))
        labelled = load_human_data("attributionbench", str(data)).pairs[: args.baseline]
        pairs = [(p.evidence, p.claim) for p in labelled]
        start = time.perf_counter()
        one_by_one = [asyncio.run(single.entail([pair]))[0].entailed for pair in pairs]
        seconds = time.perf_counter() - start
        del os.environ[BATCH_SIZE_ENV]

        reset_nli()
        again = get_nli(spec, cache)
        assert [r.entailed for r in asyncio.run(again.entail(pairs))] == one_by_one, (
            "decisions differ between batched and one pair at a time"
        )
        reset_nli()
        cached = calibrate([spec], ["attributionbench"], [str(data)], nli_cache=cache)
        cached_row = cached.judges[0][1][0]
        assert cached_row["nli_calls"] == 0, "the cached rerun called the model"
        assert [cached_row[k] for k in ("tp", "fp", "tn", "fn")] == [
            row[k] for k in ("tp", "fp", "tn", "fn")
        ]
    per_pair = len(pairs) / seconds
    print(f"\ncalibrate, tiny random T5 (seq2seq:), CPU, {torch.get_num_threads()} threads\n")
    print("| path | pairs | pairs/s | vs one pair at a time | NLI calls |")
    print("|---|---|---|---|---|")
    print(f"| one pair at a time | {len(pairs)} | {per_pair:.1f} | 1.0x | {len(pairs)} |")
    print(
        f"| batched (`calibrate`) | {row['n']} | {row['pairs_per_s']:.1f} "
        f"| **{row['pairs_per_s'] / per_pair:.1f}x** | {row['nli_calls']} |"
    )
    print(
        f"| cached rerun | {cached_row['n']} | {cached_row['pairs_per_s']:.0f} "
        f"| **{cached_row['pairs_per_s'] / per_pair:.0f}x** | {cached_row['nli_calls']} |"
    )
    print("\nDecisions identical between batched and one pair at a time on every pair compared.")


if __name__ == "__main__":
    main()
