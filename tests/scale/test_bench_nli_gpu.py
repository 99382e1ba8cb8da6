"""bench/bench_nli_gpu.py --tiny: the GPU benchmark's whole script, on CPU with small configs."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gpu_benchmark_runs_tiny_on_cpu(tmp_path):
    out = tmp_path / "figures.json"
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_CITE_NLI_BATCH_SIZE"}
    run = subprocess.run(
        [sys.executable, "bench/bench_nli_gpu.py", "--tiny", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout
    assert text.count("batched / per-pair: ") == 2
    assert text.count("decisions equal (a) vs (b): ") == 2
    assert f"figures written to {out}" in text

    figures = json.loads(out.read_text())
    assert figures["info"]["tiny"] is True
    t5, classifier = figures["models"]
    assert t5["spec"] == "seq2seq:" and classifier["spec"] == "classifier:"
    for row in (t5, classifier):
        assert row["loop_pairs_per_s"] > 0 and row["batched_pairs_per_s"] > 0
        assert row["speedup"] == row["batched_pairs_per_s"] / row["loop_pairs_per_s"]
        assert row["decisions_compared"] == row["loop_pairs"] > 0
        assert 0 <= row["decisions_equal_share"] <= 1
        # The random models were given varied answers, so agreement means something.
        assert 0 < row["entailed_share_loop"] < 1 and 0 < row["entailed_share_batched"] < 1
        assert row["encoder_mfu"] is None  # no peak is claimed for a CPU
        assert 150 < row["tokens"]["mean"] < 350  # ALCE-like lengths, ~250 tokens a pair
        assert row["est_22000_pairs_s_batched"] > 0
    assert t5["loop_outcomes"]["other"] == 0  # answers are "1</s>" or "0</s>", as TRUE's
