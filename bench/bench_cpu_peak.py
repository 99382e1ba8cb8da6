"""Benchmark: each local judge family's encoder GFLOP/s on this CPU against its matmul peak.

For each local NLI judge family, at a stand-in size large enough that matrix products dominate
(random weights built at run time, nothing downloaded):

- ``seq2seq``: a TRUE-format T5 of t5-base's architecture (d_model 768, d_ff 3072 ReLU,
  12 + 12 layers, 12 heads of 64), its answers planted to be "1</s>" or "0</s>" as the real
  TRUE model's are (``bench_nli_gpu.plant_t5_answers``);
- ``classifier``: a DeBERTa-v3 classifier of DeBERTa-v3-base's architecture (hidden 768,
  12 layers, 12 heads, intermediate 3072, relative attention with 256 position buckets),
  the family ``classifier:`` is documented with;
- ``minicheck``: MiniCheck-Flan-T5's architecture at Flan-T5-base's size (d_model 768,
  d_ff 2048 gated-GELU, 12 + 12 layers, 12 heads of 64) through ``minicheck:<dir>#flan-t5``,

the script times distinct (premise, hypothesis) pairs with ALCE's token lengths
(``bench_nli_gpu.synthetic_pairs``: 1-3 passages of ~100 words, ~250 tokens a pair) through
the project's real backend (``get_nli(spec)``: cache, batching queue, the engine with its CPU
batching, ``inspect_cite.nli.hf.CPU_BATCH``), submitted as concurrent scorers submit them.
Hooks on the encoder time each of its forward passes and read each pass's rows, padded width
and real lengths. Encoder FLOPs are counted analytically: 2 x (the encoder's dense weights) per
token, plus attention (4 x length x inner width per token and layer; for DeBERTa also its
content-to-position and position-to-content products over 2 x 256 relative positions):

- per real token: each row at its own length (the work eval.py's unpadded calls do);
- per padded token: each pass's rows at its padded width (the work the CPU actually did).

Beside them, the machine's measured peak: a loop of float32 ``torch.mm`` in the same process,
the same threads, on the shape of the encoder's largest product at a full pass
(1,024 x 768 @ 768 x 3,072) and on 2,048-cubed, just before and just after each family's runs
(a shared machine's load drifts); the highest of the four is that family's peak. Ratios are
achieved / peak, all in one run. One ``torch.profiler`` table (the seq2seq family, one
engine call on all pairs) says where the time goes.

Run from the repository root::

    PYTHONPATH=. python bench/bench_cpu_peak.py [--pairs 24] [--repeats 3] [--threads N]
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_nli_gpu import (  # noqa: E402
    DEBERTA_V3_LARGE,
    T5_11B,
    build_deberta,
    build_tokenizers,
    plant_classifier_split,
    plant_t5_answers,
    samples_of,
    synthetic_pairs,
)
from bench.threads import parse_with_threads  # noqa: E402
from inspect_cite.nli import get_nli, reset_nli  # noqa: E402
from inspect_cite.nli.hf import CPU_BATCH, CPU_MIN_LENGTH_RATIO  # noqa: E402

T5_BASE = {"d_model": 768, "d_ff": 3072, "num_layers": 12, "num_decoder_layers": 12}
T5_BASE |= {"num_heads": 12, "d_kv": 64, "feed_forward_proj": "relu"}
"""t5-base's architecture (the original T5, as TRUE's T5-11B: ReLU feed-forward)."""

FLAN_T5_BASE = T5_BASE | {"d_ff": 2048, "feed_forward_proj": "gated-gelu"}
"""Flan-T5-base's architecture (T5 v1.1: gated-GELU feed-forward, untied output layer)."""

DEBERTA_V3_BASE = DEBERTA_V3_LARGE | {"hidden_size": 768, "num_hidden_layers": 12}
DEBERTA_V3_BASE |= {"num_attention_heads": 12, "intermediate_size": 3072}
DEBERTA_V3_BASE |= {"pooler_hidden_size": 768}
"""DeBERTa-v3-base's architecture."""

PEAK_SHAPES = ((1024, 768, 3072), (2048, 2048, 2048))
"""(m, k, n) of the matmul loop: the encoder's largest product at a full CPU pass, and a cube."""


# --- the machine's peak -------------------------------------------------------------------


def matmul_peak(shape: tuple[int, int, int], seconds: float = 1.0, rounds: int = 5) -> float:
    """Median GFLOP/s of float32 ``torch.mm`` of ``shape`` over ``rounds`` timed loops."""
    m, k, n = shape
    a, b = torch.randn(m, k), torch.randn(k, n)
    out = torch.empty(m, n)
    torch.mm(a, b, out=out)  # first call: allocation, kernel choice
    rates = []
    for _ in range(rounds):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / rounds:
            torch.mm(a, b, out=out)
            count += 1
        rates.append(2 * m * k * n * count / (time.perf_counter() - start) / 1e9)
    return statistics.median(rates)


# --- FLOPs ---------------------------------------------------------------------------------


def t5_sequence_flops(config: Any, n: int) -> float:
    """Encoder FLOPs of one T5 row of ``n`` tokens (dense products and attention)."""
    inner = config.num_heads * config.d_kv
    ff = 3 if config.is_gated_act else 2
    dense = 4 * config.d_model * inner + ff * config.d_model * config.d_ff
    return config.num_layers * (2 * n * dense + 4 * n * n * inner)


def deberta_sequence_flops(config: Any, n: int) -> float:
    """Encoder FLOPs of one DeBERTa-v3 row of ``n`` tokens.

    Dense products, attention, and the two disentangled products (content-to-position and
    position-to-content, each ``n`` x 2 x position buckets per head); the projection of the
    relative embeddings, once per pass and layer, is not counted.
    """
    h = config.hidden_size
    dense = 4 * h * h + 2 * h * config.intermediate_size
    span = 2 * (config.position_buckets if config.position_buckets > 0 else 512)
    relative = 2 * 2 * n * span * h * len(config.pos_att_type or ())
    return config.num_hidden_layers * (2 * n * dense + 4 * n * n * h + relative)


class EncoderMeter:
    """Times each forward pass of an encoder module and records its rows' lengths."""

    def __init__(self, module: torch.nn.Module) -> None:
        self.passes: list[tuple[list[int], int, float]] = []  # (real lengths, width, seconds)
        self._start = 0.0
        self._shape: tuple[list[int], int] = ([], 0)
        self._hooks = [
            module.register_forward_pre_hook(self._pre, with_kwargs=True),
            module.register_forward_hook(self._post),
        ]

    def _pre(self, _module: Any, args: tuple, kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        mask = kwargs.get("attention_mask")
        assert ids is not None
        width = int(ids.shape[1])
        if mask is None:
            lengths = [width] * int(ids.shape[0])
        else:
            lengths = [int(x) for x in mask.sum(dim=1).tolist()]
        self._shape = (lengths, width)
        self._start = time.perf_counter()

    def _post(self, *_: Any) -> None:
        self.passes.append((*self._shape, time.perf_counter() - self._start))

    def clear(self) -> None:
        self.passes.clear()

    def remove(self) -> None:
        for hook in self._hooks:
            hook.remove()


# --- the families ---------------------------------------------------------------------------


def build_family(family: str, tok_t5: Any, tok_cls: Any, calibration: list) -> tuple[Any, Any]:
    """(model, encoder module) of ``family`` with random weights, answers varied."""
    from transformers import AutoModelForSeq2SeqLM, T5Config

    torch.manual_seed(0)
    if family == "classifier":
        model = build_deberta(DEBERTA_V3_BASE, tok_cls, torch.float32, torch.device("cpu"))
        plant_classifier_split(model, tok_cls, calibration)
        return model, model.deberta
    arch = T5_11B | (T5_BASE if family == "seq2seq" else FLAN_T5_BASE)
    config = T5Config(
        **arch,
        pad_token_id=tok_t5.pad_token_id,
        eos_token_id=tok_t5.eos_token_id,
        decoder_start_token_id=tok_t5.pad_token_id,
        tie_word_embeddings=family == "seq2seq",
    )
    model = AutoModelForSeq2SeqLM.from_config(config, dtype=torch.float32).eval()
    for key in ("pad_token_id", "eos_token_id", "decoder_start_token_id"):
        setattr(model.generation_config, key, getattr(config, key))
    if family == "seq2seq":
        plant_t5_answers(model, tok_t5, calibration)
    return model, model.encoder


def spec_of(family: str, tok_dir: Path) -> str:
    if family == "seq2seq":
        return f"seq2seq:{tok_dir / 't5'}"
    if family == "classifier":
        return f"classifier:{tok_dir / 'cls'}"
    return f"minicheck:{tok_dir / 't5'}#flan-t5"


def run_backend(spec: str, tok: Any, model: Any, pairs: list) -> float:
    """Seconds to judge ``pairs`` through a fresh ``get_nli(spec)`` (no cache carried over)."""
    reset_nli()
    backend = get_nli(spec)
    assert backend.queue is not None
    backend.queue.fn.preload(tokenizer=tok, model=model)

    async def score(groups: list[list[tuple[str, str]]]) -> list[list[Any]]:
        return await asyncio.gather(*(backend.entail(g) for g in groups))

    start = time.perf_counter()
    asyncio.run(score(samples_of(pairs, 0)))
    return time.perf_counter() - start


def bench_family(
    family: str, args: argparse.Namespace, toks: tuple[Any, Any], tok_dir: Path
) -> dict[str, Any]:
    tok = toks[1] if family == "classifier" else toks[0]
    pairs = synthetic_pairs(args.pairs, seed=1)
    calibration = synthetic_pairs(24, seed=2)
    model, encoder = build_family(family, *toks, calibration)
    config = model.config
    flops = deberta_sequence_flops if family == "classifier" else t5_sequence_flops
    dense = sum(p.numel() for n, p in encoder.named_parameters() if "embed" not in n)
    spec = spec_of(family, tok_dir)
    run_backend(spec, tok, model, synthetic_pairs(8, seed=3))  # warm-up
    # The peak is measured just before and just after the family's runs: on a shared machine
    # the load drifts, and the ratio must compare like with like.
    before = {shape: matmul_peak(shape) for shape in PEAK_SHAPES}
    meter = EncoderMeter(encoder)
    walls, enc_s, real_f, padded_f, real_t, padded_t, passes = [], [], [], [], [], [], []
    for _ in range(args.repeats):
        meter.clear()
        walls.append(run_backend(spec, tok, model, pairs))
        enc_s.append(sum(s for _, _, s in meter.passes))
        real_f.append(sum(flops(config, n) for lengths, _, _ in meter.passes for n in lengths))
        padded_f.append(sum(len(ls) * flops(config, w) for ls, w, _ in meter.passes))
        real_t.append(sum(sum(ls) for ls, _, _ in meter.passes))
        padded_t.append(sum(len(ls) * w for ls, w, _ in meter.passes))
        passes.append(len(meter.passes))
    meter.remove()
    after = {shape: matmul_peak(shape) for shape in PEAK_SHAPES}
    peaks = {shape: (before[shape], after[shape]) for shape in PEAK_SHAPES}
    k = sorted(range(len(walls)), key=lambda i: enc_s[i])[(len(walls) - 1) // 2]  # median run
    row = {
        "family": family,
        "params_m": sum(p.numel() for p in model.parameters()) / 1e6,
        "encoder_dense_m": dense / 1e6,
        "pairs": len(pairs),
        "passes": passes[k],
        "real_tokens": real_t[k],
        "padded_tokens": padded_t[k],
        "wall_s": statistics.median(walls),
        "encoder_s": enc_s[k],
        "runs_encoder_s": [round(s, 2) for s in enc_s],
        "runs_wall_s": [round(s, 2) for s in walls],
        "real_gflops": real_f[k] / enc_s[k] / 1e9,
        "padded_gflops": padded_f[k] / enc_s[k] / 1e9,
        "whole_gflops": real_f[k] / statistics.median(walls) / 1e9,
        "peaks": peaks,
        "peak": max(max(pair) for pair in peaks.values()),
    }
    print(
        f"  {family}: {row['params_m']:.0f}M params, {row['pairs']} pairs, {row['passes']} passes, "
        f"{row['real_tokens']} real / {row['padded_tokens']} padded tokens; encoder "
        f"{row['runs_encoder_s']} s, whole call {row['runs_wall_s']} s; achieved "
        f"{row['real_gflops']:.1f} GFLOP/s ({row['padded_gflops']:.1f} per padded token), peak "
        f"{row['peak']:.1f}: {row['real_gflops'] / row['peak']:.0%}",
        flush=True,
    )
    if family == "seq2seq" and args.profile:
        row["profile"] = profile_engine(spec, tok, model, pairs, args.profile_rows)
        print(f"\ntorch.profiler, {family}, one engine call on {len(pairs)} pairs:\n")
        print(row["profile"], flush=True)
    return row


def profile_engine(spec: str, tok: Any, model: Any, pairs: list, rows: int) -> str:
    """torch.profiler's table of one engine call on ``pairs`` (the batching queue's work)."""
    from torch.profiler import ProfilerActivity, profile

    reset_nli()
    backend = get_nli(spec)
    assert backend.queue is not None
    engine = backend.queue.fn
    engine.preload(tokenizer=tok, model=model)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        engine(pairs)
        wall = time.perf_counter() - start
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)
    events = prof.key_averages()
    self_total = sum(e.self_cpu_time_total for e in events) / 1e6
    matmul = sum(
        e.self_cpu_time_total for e in events if e.key in ("aten::mm", "aten::addmm", "aten::bmm")
    )
    return (
        f"{table}\nwall {wall:.2f} s (under the profiler); self CPU time of all ops "
        f"{self_total:.2f} s, of which matrix products (mm, addmm, bmm) {matmul / 1e6:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=24, help="distinct pairs per family")
    parser.add_argument("--repeats", type=int, default=3, help="runs per family (median)")
    parser.add_argument("--families", default="seq2seq,classifier,minicheck")
    parser.add_argument(
        "--profile", action=argparse.BooleanOptionalAction, default=True, help="profiler table"
    )
    parser.add_argument("--profile-rows", type=int, default=14)
    args = parse_with_threads(parser)
    families = [f for f in args.families.split(",") if f]
    unknown = set(families) - {"seq2seq", "classifier", "minicheck"}
    if unknown:
        parser.error(f"--families: unknown {sorted(unknown)}")
    threads = torch.get_num_threads()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tok_dir = Path(tmp)
        toks = build_tokenizers(tok_dir)
        for family in families:
            rows.append(bench_family(family, args, toks, tok_dir))
    rows_limit, tokens_limit = CPU_BATCH
    print(
        f"\nCPU, {os.cpu_count()} cores, {threads} torch threads, float32, load average "
        f"{os.getloadavg()[0]:.1f} at the end; passes of {tokens_limit:,} padded tokens "
        f"(at most {rows_limit} rows) within {CPU_MIN_LENGTH_RATIO:.0%} of the longest row; "
        f"median of {args.repeats} runs of {args.pairs} distinct pairs per family\n"
    )
    for r in rows:
        print(
            f"matmul peak (GFLOP/s) around {r['family']}, before / after: "
            + "; ".join(
                f"{m}x{k}@{k}x{n} {before:.1f} / {after:.1f}"
                for (m, k, n), (before, after) in r["peaks"].items()
            )
            + f"; peak = the highest, {r['peak']:.1f}"
        )
    print()
    print(
        "| judge family | stand-in | params | real / padded tokens | encoder s | achieved GFLOP/s "
        "| per padded token | peak GFLOP/s | ratio | whole call s | encoder share |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    names = {
        "seq2seq": ("seq2seq (TRUE-format T5)", "t5-base"),
        "classifier": ("classifier (DeBERTa-v3)", "DeBERTa-v3-base"),
        "minicheck": ("minicheck Flan-T5", "Flan-T5-base"),
    }
    for r in rows:
        name, size = names[r["family"]]
        print(
            f"| {name} | {size} | {r['params_m']:.0f}M | {r['real_tokens']:,} / "
            f"{r['padded_tokens']:,} | {r['encoder_s']:.2f} | {r['real_gflops']:.1f} | "
            f"{r['padded_gflops']:.1f} | {r['peak']:.1f} | **{r['real_gflops'] / r['peak']:.0%}** "
            f"({r['padded_gflops'] / r['peak']:.0%} padded) | {r['wall_s']:.2f} | "
            f"{r['encoder_s'] / r['wall_s']:.0%} |"
        )


if __name__ == "__main__":
    main()
