"""Benchmark: ``inspect-cite calibrate --stress``, pairs/s with the stand-in judges, on CPU.

Writes AttributionBench-format English claims (names, places, titles, years, counts; most
supported, a third with two references) and runs ``calibrate`` with ``stress=True`` for each
stand-in judge: a tiny random TRUE-format T5 (``seq2seq:<dir>``) and a tiny random
MiniCheck-Flan-T5 (``minicheck:<dir>``), each with a fresh disk cache. Per judge:

1. ``calibrate``'s own pairs (the baseline, in the same run) and the perturbed pairs, as
   ``calibration.json`` and ``stress.json`` report their pairs/s;
2. the perturbation time alone (no judge);
3. a rerun from the disk cache: it must make no NLI call and give the same rows.

Imports only the package and ``bench/``. Run from the repository root::

    PYTHONPATH=. python bench/bench_stress.py [--pairs 300] [--threads N]
"""

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path

import torch

from bench.threads import parse_with_threads
from inspect_cite.app.calibrate import calibrate
from inspect_cite.app.human_labels import load_human_data
from inspect_cite.app.stress import perturb_data
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.testing.tiny_minicheck import build_tiny_flan_t5
from inspect_cite.testing.tiny_t5 import build_tiny_t5

_PEOPLE = "Ada Lovelace,Nina Simone,Louis Armstrong,Grace Hopper,Miles Davis,Marie Curie".split(",")
_PLACES = "Paris,Toronto,Nairobi,Lisbon,Denver,Osaka,Glasgow,Quito".split(",")
_TITLES = "Blue Morning Rain,Songs of the Valley,The Quiet Harbour,A Winter Road".split(",")
_FILLERS = [
    "Critics praised the work for its careful detail.",
    "The archive keeps a copy of the original notes.",
    "Several later editions added a short preface.",
    "Local newspapers covered the event at length.",
    "A museum now shows the first draft to visitors.",
]


def write_claims(path: Path, n: int, seed: int = 0) -> Path:
    """``n`` AttributionBench-format lines of English claims and their references."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        person, place, title = rng.choice(_PEOPLE), rng.choice(_PLACES), rng.choice(_TITLES)
        year, count = rng.randint(1900, 2020), rng.randint(2, 40)
        claim = f"{person} recorded '{title}' in {place} in {year} with {count} musicians."
        ref = (
            f"Title: {title}\n\n'{title}' was recorded by {person} in {place} in {year}, "
            f"with {count} musicians. {rng.choice(_FILLERS)}"
        )
        refs = [ref] + [" ".join(rng.sample(_FILLERS, 2))] * (i % 3 == 0)
        label = "attributable" if i % 5 else "not attributable"
        row = {"claim": claim, "references": refs, "attribution_label": label}
        lines.append(json.dumps(row | {"src_dataset": f"source{i % 3}", "id": str(i)}))
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=300)
    args = parse_with_threads(parser)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = write_claims(root / "claims.jsonl", args.pairs)
        start = time.perf_counter()
        made = perturb_data(load_human_data("attributionbench", str(data)), seed=0)
        perturb_s = time.perf_counter() - start
        judges = {
            "tiny TRUE-format T5 (`seq2seq:`)": f"seq2seq:{build_tiny_t5(root / 't5')}",
            "tiny MiniCheck-Flan-T5 (`minicheck:`)": f"minicheck:{build_tiny_flan_t5(root / 'mc')}",
        }
        for name, spec in judges.items():
            cache = str(root / f"{len(rows)}.sqlite")
            # Model load and first-call overheads outside the timings.
            asyncio.run(get_nli(spec).entail([("warm up", "warm")]))
            reset_nli()
            first = calibrate(
                [spec], ["attributionbench"], [str(data)], nli_cache=cache, stress=True
            )
            reset_nli()
            again = calibrate(
                [spec], ["attributionbench"], [str(data)], nli_cache=cache, stress=True
            )
            assert first.stress is not None and again.stress is not None
            first_json, again_json = first.stress.as_json(), again.stress.as_json()
            speed = first_json["judges"][0]["speed"]["attributionbench"]
            cached = again_json["judges"][0]["speed"]["attributionbench"]
            assert cached["nli_calls"] == 0, "the cached rerun called the model"
            assert again_json["judges"][0]["types"] == first_json["judges"][0]["types"]
            own = first.judges[0][1][0]
            rows.append((name, own, speed, cached))
            reset_nli()
    print(
        f"\ncalibrate --stress, {args.pairs} source pairs, CPU, {torch.get_num_threads()} threads"
    )
    print(
        f"perturbations: {len(made.pairs)} pairs from {made.sources} supported pairs in "
        f"{perturb_s:.2f} s ({len(made.pairs) / perturb_s:.0f} pairs/s, no judge)\n"
    )
    print("| stand-in judge | calibrate pairs/s | --stress pairs | --stress pairs/s | vs calibrate "
          "| cached rerun pairs/s | cached NLI calls |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, own, speed, cached in rows:
        print(
            f"| {name} | {own['pairs_per_s']:.1f} | {speed['pairs']} | {speed['pairs_per_s']:.1f} "
            f"| {speed['pairs_per_s'] / own['pairs_per_s']:.2f}x | {cached['pairs_per_s']:.0f} "
            f"| {cached['nli_calls']} |"
        )
    print("\nThe cached reruns gave the same stress rows and made no NLI call.")


if __name__ == "__main__":
    main()
