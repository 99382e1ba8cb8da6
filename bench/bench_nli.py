"""Benchmark: batched NLI citation scoring vs eval.py's per-pair loop, and cached rescoring.

Scores synthetic ALCE-format samples (outputs copied from the test fixtures' documents, with
every citation pattern) on CPU with a random TRUE-format T5:

1. batched: all samples scored concurrently through ``get_nli("seq2seq:<dir>")`` (batching
   queue, length-sorted padded batches, in-memory cache);
2. per-pair: the same samples, one sample after another, every NLI call an unpadded
   ``generate`` of one pair as eval.py's ``_run_nli_autoais`` (no cache, no batching), in
   the same process with the same model; every decision must be identical;
3. cached: the same samples scored again by a fresh backend that finds every decision in
   the on-disk SQLite cache (what ``inspect score`` of an already scored log costs).

Run from the repository root::

    PYTHONPATH=. python bench/bench_nli.py

The per-pair baselines (and the t5-small-sized model) run on the first samples only, to keep
the run to a few minutes on 2 cores; throughput is compared per sample.
"""

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from bench.alce_synthetic import synthetic_items
from bench.threads import parse_with_threads
from inspect_cite.alce.autoais import citation_scores
from inspect_cite.nli import NLIResult, get_nli, reset_nli
from inspect_cite.nli.seq2seq import TRUE_TEMPLATE
from inspect_cite.testing.tiny_t5 import build_tiny_t5, vary_t5_outputs
from scorers.claim_coverage import claims_score


def samples(n: int) -> list[tuple[str, dict[str, Any]]]:
    """``n`` samples, ASQA, QAMPARI and ELI5 in turn (so any prefix is a fair mix)."""
    per = -(-n // 3)
    by_ds = {ds: synthetic_items(ds, per, seed=11) for ds in ("asqa", "qampari", "eli5")}
    mixed = [(ds, by_ds[ds][i]) for i in range(per) for ds in by_ds]
    return mixed[:n]


async def score_one(ds: str, item: dict[str, Any], nli: Any) -> tuple:
    output = item["output"].strip().split("\n")[0].replace("<|im_end|>", "")
    r = await citation_scores(output, item["docs"], item["question"], nli, qampari=ds == "qampari")
    claims = None
    if ds == "eli5":
        claims = (await claims_score(output, item["claims"], nli)).score
    return r.recall, r.precision, claims


async def score_concurrently(data: list, nli: Any) -> list[tuple]:
    return await asyncio.gather(*(score_one(ds, item, nli) for ds, item in data))


async def score_sequentially(data: list, nli: Any) -> list[tuple]:
    return [await score_one(ds, item, nli) for ds, item in data]


class PerPairNLI:
    """eval.py's NLI: one unpadded greedy ``generate`` per pair, nothing cached."""

    def __init__(self, model_dir: Path) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.identity = f"per-pair:{model_dir}"
        self.tok = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_dir, dtype=torch.float32)
        self.model.eval()
        self.decided: dict[tuple[str, str], bool] = {}
        self.calls = 0

    async def entail(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        results = []
        for premise, hypothesis in pairs:
            text = TRUE_TEMPLATE.format(premise=premise, hypothesis=hypothesis)
            ids = self.tok(text, return_tensors="pt").input_ids
            with torch.inference_mode():
                out = self.model.generate(ids, max_new_tokens=10)
            entailed = self.tok.decode(out[0], skip_special_tokens=True) == "1"
            self.calls += 1
            self.decided[(premise, hypothesis)] = entailed
            results.append(NLIResult(entailed))
        return results


def bench_model(name: str, model_dir: Path, data: list, baseline_n: int, cache: Path) -> dict:
    reset_nli()
    spec = f"seq2seq:{model_dir}"
    # Warm up both paths (model load, first-call overheads) outside the timings.
    warm = get_nli(spec)
    asyncio.run(warm.entail([("warm up", "warm")]))
    per_pair = PerPairNLI(model_dir)
    asyncio.run(per_pair.entail([("warm up", "warm")]))
    per_pair.decided.clear()
    per_pair.calls = 0

    reset_nli()
    batched = get_nli(spec, str(cache))
    t = time.perf_counter()
    batched_scores = asyncio.run(score_concurrently(data, batched))
    t_batched = time.perf_counter() - t

    sub = data[:baseline_n]
    t = time.perf_counter()
    per_pair_scores = asyncio.run(score_sequentially(sub, per_pair))
    t_pair = time.perf_counter() - t

    # Identical decisions, pair by pair, and identical item scores.
    disagree = 0
    for pair, entailed in per_pair.decided.items():
        (result,) = asyncio.run(batched.entail([pair]))
        disagree += result.entailed != entailed
    assert disagree == 0, f"{name}: {disagree} decisions differ between batched and per-pair"
    assert per_pair_scores == batched_scores[:baseline_n], f"{name}: item scores differ"

    reset_nli()  # a new process: only the disk cache knows the decisions
    cached = get_nli(spec, str(cache))
    t = time.perf_counter()
    cached_scores = asyncio.run(score_concurrently(data, cached))
    t_cached = time.perf_counter() - t
    assert cached_scores == batched_scores and cached.model_pairs == 0

    entailed = sum(per_pair.decided.values())
    return {
        "model": name,
        "params_m": sum(p.numel() for p in per_pair.model.parameters()) / 1e6,
        "samples": len(data),
        "batched_s": t_batched,
        "batched_sps": len(data) / t_batched,
        "model_pairs": batched.model_pairs,
        "batches": len(batched.queue.batch_sizes) if batched.queue else 0,
        "baseline_samples": len(sub),
        "per_pair_calls": per_pair.calls,
        "per_pair_s": t_pair,
        "per_pair_sps": len(sub) / t_pair,
        "entailed": f"{entailed}/{len(per_pair.decided)}",
        "cached_s": t_cached,
        "cached_sps": len(data) / t_cached,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--tiny-baseline", type=int, default=100, help="per-pair samples, tiny")
    parser.add_argument("--small-samples", type=int, default=60, help="samples, t5-small size")
    parser.add_argument("--small-baseline", type=int, default=15, help="per-pair, t5-small size")
    args = parse_with_threads(parser)
    data = samples(args.samples)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # Random T5s whose answers vary, so that some statements are supported and the
        # precision checks run (inspect_cite.testing.tiny_t5.vary_t5_outputs).
        calibration = [
            TRUE_TEMPLATE.format(premise=item["docs"][0]["text"], hypothesis=item["output"])
            for _, item in data[:60]
        ]
        tiny = vary_t5_outputs(build_tiny_t5(root / "t5"), root / "tiny-t5", calibration)
        small = vary_t5_outputs(
            build_tiny_t5(root / "t5s", d_model=512, layers=6), root / "t5-small-size", calibration
        )
        rows.append(bench_model("tiny T5", tiny, data, args.tiny_baseline, root / "a.db"))
        rows.append(
            bench_model(
                "t5-small size",
                small,
                data[: args.small_samples],
                args.small_baseline,
                root / "b.db",
            )
        )
    print(
        "\nALCE-format samples (asqa/qampari/eli5 thirds), CPU, "
        f"{torch.get_num_threads()} threads\n"
    )
    print(
        "| model | samples | batched samples/s | per-pair samples/s | batched / per-pair "
        "| cached samples/s | cached / first |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['model']} ({r['params_m']:.2g}M params) | {r['samples']} "
            f"| {r['batched_sps']:.2f} ({r['model_pairs']} pairs, {r['batches']} batches) "
            f"| {r['per_pair_sps']:.2f} (first {r['baseline_samples']}, "
            f"{r['per_pair_calls']} calls) "
            f"| **{r['batched_sps'] / r['per_pair_sps']:.1f}x** | {r['cached_sps']:.0f} "
            f"| **{r['cached_sps'] / r['batched_sps']:.0f}x** |"
        )
    judged = ", ".join(f"{r['model']}: {r['entailed']} entailed" for r in rows)
    print(f"\nDecisions identical between batched and per-pair on every pair judged ({judged}).")


if __name__ == "__main__":
    main()
