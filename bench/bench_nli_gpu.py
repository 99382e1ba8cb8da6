"""Benchmark: NLI citation scoring at TRUE-11B scale, eval.py's per-pair loop vs the batched path.

Builds the architecture of ALCE's NLI model, ``google/t5_xxl_true_nli_mixture`` (T5 11B:
d_model 1024, d_ff 65536, 24 encoder and 24 decoder layers, 128 heads of 128, vocabulary
32128, ReLU feed-forward), from a config written here, with random weights made in bf16
directly on the device: nothing is downloaded. Then, on synthetic premise/hypothesis pairs:

(a) eval.py's loop: one ``generate(input_ids, max_new_tokens=10)`` per pair (greedy, batch 1,
    no padding), entailed iff the decoded output (special tokens skipped) is exactly "1";
(b) the project's batched path: the ``seq2seq:`` backend from ``get_nli`` on the same model,
    through the batching queue the scorers use (``CachedNLI`` -> ``BatchQueue`` ->
    ``Seq2SeqNLI``), no disk cache, with pairs submitted as concurrent scorers submit them.

It prints pairs/s of each and their ratio, encoder tokens/s, the encoder's model FLOP
utilisation (MFU) against the device's peak, peak GPU memory, the share of decisions equal
between (a) and (b) on (a)'s pairs, and the time 22,000 pairs (a full ALCE evaluation:
ASQA + QAMPARI + ELI5) would take. The same for a classifier NLI of DeBERTa-v3-large size
(``classifier:``, in float16 as that checkpoint's weights are stored and load; its per-pair
baseline is one unpadded forward pass per pair).

Synthetic pairs (token lengths follow ALCE's; the numbers are read off ALCE's prompt demos):

- premise: 1, 2 or 3 passages (60% / 30% / 10%: a citation-recall premise joins the passages
  a sentence cites, mostly one or two; precision checks use one), each eval.py's
  "Title: {title}\\n{text}" with a title of 1-8 words and a text of 90-110 words (ALCE's
  100-word Wikipedia passages);
- hypothesis: one sentence of 10-45 words (uniform) ending in ".";
- words to tokens: a word is 1, 2 or 3 tokens (75% / 20% / 5%: 1.3 tokens a word, about
  what T5's SentencePiece gives on English Wikipedia). The tokenizer is a T5-style unigram
  SentencePiece model (``tokenizers``, Metaspace, "</s>" appended) whose vocabulary is
  built here from three-letter syllables: a synthetic word of k syllables is exactly k
  tokens. Pairs come out at ~250 tokens on average, from ~150 to ~500.

Random weights answer the same way for every input, so the models are given outputs that
vary (say what the numbers can and cannot mean): the T5's output layer scores "1" and "0"
along the direction in which its first decoder state varies most over calibration pairs,
split at the median, and the input embeddings of "1" and "0" point at the end-of-sequence
row, so answers are "1</s>" or "0</s>" like the real model's, entailed for about half of the
pairs. Decisions near that median are near-ties, which bf16 padding noise can flip; the
output reports how close the flipped pairs were. The classifier's entailment bias is shifted
to the median margin of its calibration pairs.

MFU counts the encoder's useful FLOPs (unpadded tokens; dense layers plus attention scores and
weighted sums; for DeBERTa without the relative-position terms) over the batched path's wall
time, end to end; "encoder alone" times only the encoder on the same padded batches, the
ceiling of the model code. Peak: ``--peak-tflops`` (bf16 dense, default 790: an H200 as
measured on this workplace's device; also used for float16), ``--peak-tflops-fp32`` for a
float32 classifier.

Run from the repository root (no internet needed)::

    python bench/bench_nli_gpu.py --out nli_gpu.json        # on a GPU with >= 40 GB
    python bench/bench_nli_gpu.py --tiny --out tiny.json    # small configs on CPU, < 1 min
"""

import argparse
import asyncio
import json
import math
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspect_cite.nli import get_nli, reset_nli  # noqa: E402
from inspect_cite.nli.cache import NLI_CACHE_ENV  # noqa: E402
from inspect_cite.nli.classifier import ClassifierNLI  # noqa: E402
from inspect_cite.nli.hf import BATCH_SIZE_ENV, chunks_by_length  # noqa: E402
from inspect_cite.nli.seq2seq import TRUE_TEMPLATE, Seq2SeqNLI  # noqa: E402

ALCE_PAIRS = 22_000
"""NLI pairs of a full ALCE evaluation (ASQA + QAMPARI + ELI5)."""

PASSAGES = {1: 0.6, 2: 0.3, 3: 0.1}
TITLE_WORDS = (1, 8)
PASSAGE_WORDS = (90, 110)
HYPOTHESIS_WORDS = (10, 45)
TOKENS_PER_WORD = {1: 0.75, 2: 0.20, 3: 0.05}

T5_11B = {
    "d_model": 1024,
    "d_ff": 65536,
    "num_layers": 24,
    "num_decoder_layers": 24,
    "num_heads": 128,
    "d_kv": 128,
    "vocab_size": 32128,
    "feed_forward_proj": "relu",
    "relative_attention_num_buckets": 32,
    "layer_norm_epsilon": 1e-6,
}
"""google/t5_xxl_true_nli_mixture's architecture (the original T5 11B)."""

DEBERTA_V3_LARGE = {
    "vocab_size": 128100,
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "max_position_embeddings": 512,
    "type_vocab_size": 0,
    "relative_attention": True,
    "position_buckets": 256,
    "max_relative_positions": -1,
    "norm_rel_ebd": "layer_norm",
    "share_att_key": True,
    "pos_att_type": ["p2c", "c2p"],
    "position_biased_input": False,
    "layer_norm_eps": 1e-7,
    "pooler_hidden_size": 1024,
}
"""MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli's architecture."""

TINY_T5 = {"d_model": 64, "d_ff": 256, "num_layers": 2, "num_decoder_layers": 2}
TINY_T5 |= {"num_heads": 4, "d_kv": 16}
TINY_DEBERTA = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2}
TINY_DEBERTA |= {"intermediate_size": 256, "pooler_hidden_size": 64, "position_buckets": 64}

LABELS = ["entailment", "neutral", "contradiction"]
CONSONANTS = "bcdfghjklmnpqrstvwxz"
VOWELS = "aeiou"
FIXED_PIECES = ["▁premise", "▁hypothesis", "▁Title", ":", ".", "▁1", "▁0", "1", "0"]
SPECIALS = ["<pad>", "</s>", "<unk>", "[CLS]", "[SEP]"]


# --- tokenizer and pairs -----------------------------------------------------------------


def syllables() -> list[str]:
    """Consonant-vowel-consonant syllables: none is a prefix of a fixed piece."""
    return [a + v + b for a in CONSONANTS for v in VOWELS for b in CONSONANTS]


def build_tokenizers(out: Path) -> tuple[Any, Any]:
    """A T5-style (``$A </s>``) and a DeBERTa-style (``[CLS] $A [SEP] $B [SEP]``) tokenizer.

    Both are the same unigram SentencePiece model; each is saved under ``out`` (t5/, cls/).
    """
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    sy = syllables()
    vocab = [(s, 0.0) for s in SPECIALS] + [(p, -5.0) for p in FIXED_PIECES]
    vocab += [("▁", -30.0)] + [("▁" + s, -10.0) for s in sy] + [(s, -10.0) for s in sy]
    ids = {piece: i for i, (piece, _) in enumerate(vocab)}

    def make(single: str, pair: str, special: list[str], **kwargs: Any) -> Any:
        tok = Tokenizer(models.Unigram(vocab, unk_id=ids["<unk>"], byte_fallback=False))
        tok.normalizer = normalizers.Replace(Regex(r"\s+"), " ")
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
        tok.post_processor = TemplateProcessing(
            single=single, pair=pair, special_tokens=[(s, ids[s]) for s in special]
        )
        fast = PreTrainedTokenizerFast(
            tokenizer_object=tok,
            pad_token="<pad>",
            unk_token="<unk>",
            model_max_length=512,
            **kwargs,
        )
        return fast

    t5 = make("$A </s>", "$A </s> $B </s>", ["</s>"], eos_token="</s>")
    cls = make(
        "[CLS] $A [SEP]",
        "[CLS] $A [SEP] $B [SEP]",
        ["[CLS]", "[SEP]"],
        cls_token="[CLS]",
        sep_token="[SEP]",
    )
    t5.save_pretrained(out / "t5")
    cls.save_pretrained(out / "cls")
    return t5, cls


def _pick(rng: random.Random, weights: dict[int, float]) -> int:
    return rng.choices(list(weights), list(weights.values()))[0]


def _words(rng: random.Random, n: int, sy: list[str]) -> list[str]:
    return ["".join(rng.choices(sy, k=_pick(rng, TOKENS_PER_WORD))) for _ in range(n)]


def synthetic_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` distinct (premise, hypothesis) pairs with ALCE's token lengths (module docstring)."""
    rng = random.Random(seed)
    sy = syllables()
    pairs: dict[tuple[str, str], None] = {}
    while len(pairs) < n:
        docs = []
        for _ in range(_pick(rng, PASSAGES)):
            title = " ".join(_words(rng, rng.randint(*TITLE_WORDS), sy))
            text = " ".join(_words(rng, rng.randint(*PASSAGE_WORDS), sy))
            docs.append(f"Title: {title}\n{text}")  # eval.py's _format_document
        hypothesis = " ".join(_words(rng, rng.randint(*HYPOTHESIS_WORDS), sy)) + "."
        pairs["\n".join(docs), hypothesis] = None
    return list(pairs)


def samples_of(pairs: list[tuple[str, str]], seed: int) -> list[list[tuple[str, str]]]:
    """Pairs grouped as a scorer submits them: 1-8 pairs per sample."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(pairs):
        k = rng.randint(1, 8)
        out.append(pairs[i : i + k])
        i += k
    return out


def length_summary(lengths: list[int]) -> dict[str, float]:
    q = statistics.quantiles(lengths, n=10)
    return {
        "mean": statistics.fmean(lengths),
        "p10": q[0],
        "p50": statistics.median(lengths),
        "p90": q[-1],
        "min": min(lengths),
        "max": max(lengths),
    }


# --- models ----------------------------------------------------------------------------


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def build_t5(arch: dict[str, Any], tok: Any, dtype: torch.dtype, device: torch.device) -> Any:
    """A T5 with random weights, created in ``dtype`` on ``device`` (no float32 copy on CPU)."""
    from transformers import AutoModelForSeq2SeqLM, T5Config

    config = T5Config(
        **(T5_11B | arch),
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        decoder_start_token_id=tok.pad_token_id,
    )
    with torch.device(device):
        model = AutoModelForSeq2SeqLM.from_config(config, dtype=dtype)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.decoder_start_token_id = tok.pad_token_id
    return model.eval()


def build_deberta(arch: dict[str, Any], tok: Any, dtype: torch.dtype, device: torch.device) -> Any:
    from transformers import AutoModelForSequenceClassification, DebertaV2Config

    config = DebertaV2Config(
        **(DEBERTA_V3_LARGE | arch),
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
        pad_token_id=tok.pad_token_id,
    )
    with torch.device(device):
        model = AutoModelForSequenceClassification.from_config(config, dtype=dtype)
    return model.eval()


def _head_inputs(model: Any, enc: Any, decoder_input_ids: torch.Tensor) -> torch.Tensor:
    """What the output layer sees at the last decoder position (after any output scaling)."""
    seen: list[torch.Tensor] = []
    hook = model.lm_head.register_forward_hook(lambda _m, inputs, _o: seen.append(inputs[0]))
    try:
        with torch.inference_mode():
            model(**enc, decoder_input_ids=decoder_input_ids)
    finally:
        hook.remove()
    return seen[0][:, -1].float()


def plant_t5_answers(model: Any, tok: Any, pairs: list[tuple[str, str]]) -> None:
    """Make the random T5 answer "1</s>" or "0</s>", about half "1" (module docstring)."""
    one, zero = tok.convert_tokens_to_ids(["▁1", "▁0"])
    eos = model.config.eos_token_id
    texts = [TRUE_TEMPLATE.format(premise=p, hypothesis=h) for p, h in pairs]
    enc = tok(texts, padding=True, return_tensors="pt").to(model.device)
    start = torch.full((len(texts), 1), model.config.decoder_start_token_id, device=model.device)
    # First step: "1" and "0" score along the direction in which the state varies most.
    h = _head_inputs(model, enc, start)
    mean = h.mean(0)
    basis = torch.linalg.svd(h - mean, full_matrices=False).Vh
    proj = h @ basis[0]
    # w . h - median(w . h), without a bias: the mean state stands in for the constant.
    w = basis[0] - proj.median() * mean / (mean @ mean)
    scale = 8.0 / float(proj.std())
    # Second step: "1" and "0" are embedded along u, a direction outside the span of the
    # first-step states, and end-of-sequence scores along u: ~0 at the first step, and the
    # highest score after "1" or "0".
    g = torch.Generator().manual_seed(0)
    u = torch.randn(h.shape[1], generator=g).to(h.device)
    span = torch.cat([basis, (mean / mean.norm())[None]])
    u -= span.T @ (span @ u)
    u /= u.norm()
    d = model.config.d_model
    old = model.lm_head
    with torch.device(model.device):
        # A head of its own: the original may share its weights with the input embeddings.
        model.lm_head = torch.nn.Linear(d, old.out_features, bias=False, dtype=old.weight.dtype)
    with torch.no_grad():
        head = model.lm_head.weight
        head.zero_()
        head[one] = (scale * w).to(head.dtype)
        head[zero] = (-scale * w).to(head.dtype)
        emb = model.get_input_embeddings().weight
        emb[one] = (u * 50.0 * math.sqrt(d)).to(emb.dtype)
        emb[zero] = emb[one]
    second = _head_inputs(model, enc, torch.cat([start, torch.full_like(start, one)], dim=1))
    along = (second @ u).median()
    with torch.no_grad():
        head[eos] = (u * 8.0 / along).to(head.dtype)


def plant_classifier_split(model: Any, tok: Any, pairs: list[tuple[str, str]]) -> None:
    """Shift the entailment bias to the median margin, so that about half are entailed."""
    enc = tok(
        [p for p, _ in pairs],
        [h for _, h in pairs],
        truncation="only_first",
        padding=True,
        return_tensors="pt",
    ).to(model.device)
    with torch.inference_mode():
        logits = model(**enc).logits.float()
    margin = logits[:, 1:].max(dim=1).values - logits[:, 0]
    with torch.no_grad():
        model.classifier.bias[0] += margin.median().to(model.classifier.bias.dtype)


# --- the two paths -----------------------------------------------------------------------


def eval_py_loop(model: Any, tok: Any, pairs: list[tuple[str, str]]) -> tuple[list[str], float]:
    """ALCE eval.py's ``_run_nli_autoais`` for each pair: (answers, seconds)."""
    answers = []
    sync(model.device)
    t = time.perf_counter()
    for premise, hypothesis in pairs:
        input_text = f"premise: {premise} hypothesis: {hypothesis}"
        input_ids = tok(input_text, return_tensors="pt").input_ids.to(model.device)
        with torch.inference_mode():
            outputs = model.generate(input_ids, max_new_tokens=10)
        answers.append(tok.decode(outputs[0], skip_special_tokens=True))
    sync(model.device)
    return answers, time.perf_counter() - t


def classifier_loop(model: Any, tok: Any, pairs: list[tuple[str, str]]) -> tuple[list[bool], float]:
    """One unpadded forward pass per pair: (entailed, seconds)."""
    entailed = []
    sync(model.device)
    t = time.perf_counter()
    for premise, hypothesis in pairs:
        enc = tok(premise, hypothesis, truncation="only_first", return_tensors="pt")
        with torch.inference_mode():
            logits = model(**enc.to(model.device)).logits
        entailed.append(int(logits.argmax(-1)) == 0)
    sync(model.device)
    return entailed, time.perf_counter() - t


def batched_path(
    spec: str, tok: Any, model: Any, pairs: list[tuple[str, str]], seed: int
) -> tuple[list[bool], float, Any, list[int]]:
    """``pairs`` through ``get_nli(spec)`` as concurrent scorers.

    Returns (entailed, seconds, the engine, pairs per queue call).
    """
    reset_nli()
    backend = get_nli(spec)
    assert backend.queue is not None
    engine = backend.queue.fn
    assert isinstance(engine, (Seq2SeqNLI, ClassifierNLI))
    engine.preload(tokenizer=tok, model=model)

    async def score(groups: list[list[tuple[str, str]]]) -> list[list[Any]]:
        return await asyncio.gather(*(backend.entail(g) for g in groups))

    asyncio.run(score(samples_of(synthetic_pairs(16, seed + 99), seed)))  # warm-up
    backend.queue.batch_sizes.clear()
    sync(model.device)
    t = time.perf_counter()
    results = asyncio.run(score(samples_of(pairs, seed)))
    sync(model.device)
    seconds = time.perf_counter() - t
    entailed = [r.entailed for group in results for r in group]
    return entailed, seconds, engine, list(backend.queue.batch_sizes)


def encoder_alone(
    encoder: Any,
    tok: Any,
    inputs: list[Any],
    chunk_sizes: list[int],
    limits: tuple[int, int],
    min_ratio: float,
) -> tuple[float, int]:
    """Only ``encoder``, on the batches the engine formed: (seconds, padded tokens)."""
    device = next(encoder.parameters()).device
    padded = 0
    sync(device)
    t = time.perf_counter()
    start = 0
    for size in chunk_sizes:
        chunk = inputs[start : start + size]
        start += size
        lengths = [len(x["input_ids"]) for x in chunk]
        for batch in chunks_by_length(lengths, *limits, min_ratio):
            rows = tok.pad([chunk[i] for i in batch], padding=True, return_tensors="pt")
            padded += rows["input_ids"].numel()
            with torch.inference_mode():
                encoder(**rows.to(device))
    sync(device)
    return time.perf_counter() - t, padded


# --- FLOPs -------------------------------------------------------------------------------


def t5_encoder_flops(config: Any, n: int) -> float:
    inner = config.num_heads * config.d_kv
    dense = 4 * config.d_model * inner + 2 * config.d_model * config.d_ff
    return config.num_layers * (2 * n * dense + 4 * n * n * inner)


def deberta_flops(config: Any, n: int) -> float:
    h = config.hidden_size
    dense = 4 * h * h + 2 * h * config.intermediate_size
    return config.num_hidden_layers * (2 * n * dense + 4 * n * n * h)


# --- one model ---------------------------------------------------------------------------


def bench_one(
    kind: str,
    args: argparse.Namespace,
    device: torch.device,
    tok: Any,
    tok_dir: Path,
    pairs: list[tuple[str, str]],
) -> dict[str, Any]:
    """Build one model, run both paths and return its figures."""
    tiny = args.tiny
    n_loop = args.loop_pairs
    calibration = synthetic_pairs(args.calibration_pairs, args.seed + 7)
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    t = time.perf_counter()
    if kind == "t5":
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        model = build_t5(TINY_T5 if tiny else {}, tok, dtype, device)
        plant_t5_answers(model, tok, calibration)
        flops = t5_encoder_flops
        inputs = [tok(TRUE_TEMPLATE.format(premise=p, hypothesis=h)) for p, h in pairs]
    else:
        dtype = getattr(torch, args.classifier_dtype) if device.type == "cuda" else torch.float32
        model = build_deberta(TINY_DEBERTA if tiny else {}, tok, dtype, device)
        plant_classifier_split(model, tok, calibration)
        flops = deberta_flops
        inputs = [tok(p, h, truncation="only_first") for p, h in pairs]
    sync(device)
    build_s = time.perf_counter() - t
    params = sum(p.numel() for p in model.parameters())
    attention = getattr(model.config, "_attn_implementation", None)
    lengths = [len(x["input_ids"]) for x in inputs]

    # (a) the per-pair loop, after a warm-up call.
    loop_pairs = pairs[:n_loop]
    if kind == "t5":
        eval_py_loop(model, tok, pairs[-2:])
        answers, loop_s = eval_py_loop(model, tok, loop_pairs)
        loop_entailed = [a == "1" for a in answers]
        outcomes = {k: answers.count(k) for k in ("1", "0", "")}
        outcomes["other"] = len(answers) - sum(outcomes.values())
    else:
        classifier_loop(model, tok, pairs[-2:])
        loop_entailed, loop_s = classifier_loop(model, tok, loop_pairs)
        outcomes = {"entailed": sum(loop_entailed)}

    # (b) the batched path through get_nli, its queue and the engine.
    spec = f"{'seq2seq' if kind == 't5' else 'classifier'}:{tok_dir}"
    batched, batched_s, engine, chunk_sizes = batched_path(spec, tok, model, pairs, args.seed)
    limits = engine.batch_limits()
    equal = sum(a == b for a, b in zip(loop_entailed, batched, strict=False))
    flipped_margins = (
        disagreement_margins(model, tok, loop_pairs, loop_entailed, batched)
        if kind == "t5" and equal < len(loop_pairs)
        else []
    )
    peak_gb = torch.cuda.max_memory_allocated(device) / 1e9 if device.type == "cuda" else None

    enc_s, padded = (None, None)
    if not args.no_encoder_alone:
        encoder = model.encoder if kind == "t5" else model  # the classifier has no decoder
        enc_s, padded = encoder_alone(
            encoder, tok, inputs, chunk_sizes, limits, engine.min_length_ratio
        )

    enc_flops = sum(flops(model.config, n) for n in lengths)
    peak = None
    if device.type == "cuda":
        peak = args.peak_tflops_fp32 if dtype == torch.float32 else args.peak_tflops
    loop_pps = len(loop_pairs) / loop_s
    batched_pps = len(pairs) / batched_s
    del model, engine
    reset_nli()
    return {
        "model": "T5 11B (TRUE architecture)" if kind == "t5" else "DeBERTa-v3-large",
        "spec": "seq2seq:" if kind == "t5" else "classifier:",
        "tiny": tiny,
        "params_b": params / 1e9,
        "dtype": str(dtype).removeprefix("torch."),
        "attention": attention,
        "build_s": build_s,
        "loop_pairs": len(loop_pairs),
        "loop_s": loop_s,
        "loop_pairs_per_s": loop_pps,
        "batched_pairs": len(pairs),
        "batched_s": batched_s,
        "batched_pairs_per_s": batched_pps,
        "speedup": batched_pps / loop_pps,
        "queue_calls": len(chunk_sizes),
        "batch_limits": {"rows": limits[0], "padded_tokens": limits[1]},
        "tokens": length_summary(lengths),
        "encoder_tokens_per_s": sum(lengths) / batched_s,
        "encoder_tflop": enc_flops / 1e12,
        "peak_tflops": peak,
        "encoder_mfu": enc_flops / batched_s / (peak * 1e12) if peak else None,
        "encoder_alone_s": enc_s,
        "encoder_alone_mfu": enc_flops / enc_s / (peak * 1e12) if peak and enc_s else None,
        "encoder_share_of_batched": enc_s / batched_s if enc_s else None,
        "padding_efficiency": sum(lengths) / padded if padded else None,
        "peak_gpu_memory_gb": peak_gb,
        "decisions_compared": len(loop_pairs),
        "decisions_equal": equal,
        "decisions_equal_share": equal / len(loop_pairs),
        "entailed_share_loop": sum(loop_entailed) / len(loop_entailed),
        "entailed_share_batched": sum(batched) / len(batched),
        "loop_outcomes": outcomes,
        "flipped_margin_percentiles": flipped_margins,
        f"est_{ALCE_PAIRS}_pairs_s_batched": ALCE_PAIRS / batched_pps,
        f"est_{ALCE_PAIRS}_pairs_s_loop": ALCE_PAIRS / loop_pps,
    }


def disagreement_margins(
    model: Any,
    tok: Any,
    pairs: list[tuple[str, str]],
    loop: list[bool],
    batched: list[bool],
) -> list[float]:
    """For each flipped pair, the percentile of its first-step |logit("1") - logit("0")|."""
    one, zero = tok.convert_tokens_to_ids(["▁1", "▁0"])
    margins = []
    for premise, hypothesis in pairs:
        ids = tok(TRUE_TEMPLATE.format(premise=premise, hypothesis=hypothesis), return_tensors="pt")
        start = torch.full((1, 1), model.config.decoder_start_token_id, device=model.device)
        with torch.inference_mode():
            logits = model(**ids.to(model.device), decoder_input_ids=start).logits[0, 0]
        margins.append(abs(float(logits[one] - logits[zero])))
    ranked = sorted(margins)
    return [
        100.0 * ranked.index(margins[i]) / len(ranked)
        for i in range(len(pairs))
        if loop[i] != batched[i]
    ]


# --- main --------------------------------------------------------------------------------


def print_report(info: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    tiny = " (--tiny: small configs)" if info["tiny"] else ""
    print(
        f"\nNLI at TRUE-11B scale: {info['device']}, torch {info['torch']}, "
        f"transformers {info['transformers']}{tiny}"
    )
    print(f"Pairs: {info['distribution']}")
    for r in rows:
        t = r["tokens"]
        print(
            f"\n== {r['model']} ({r['spec']}, {r['params_b']:.3g}B params, {r['dtype']}, "
            f"{r['attention']} attention; built in {r['build_s']:.1f} s)"
        )
        print(
            f"tokens/pair: mean {t['mean']:.0f}, p10 {t['p10']:.0f}, p50 {t['p50']:.0f}, "
            f"p90 {t['p90']:.0f}, max {t['max']}"
        )
        print(
            f"(a) per-pair loop: {r['loop_pairs']} pairs in {r['loop_s']:.2f} s = "
            f"{r['loop_pairs_per_s']:.2f} pairs/s"
        )
        print(
            f"(b) batched path:  {r['batched_pairs']} pairs in {r['batched_s']:.2f} s = "
            f"{r['batched_pairs_per_s']:.2f} pairs/s ({r['queue_calls']} queue calls; "
            f"passes of <= {r['batch_limits']['rows']} rows, "
            f"<= {r['batch_limits']['padded_tokens']} padded tokens)"
        )
        print(f"batched / per-pair: {r['speedup']:.2f}x")
        print(f"encoder tokens/s (batched): {r['encoder_tokens_per_s']:,.0f}")
        if r["encoder_mfu"] is not None:
            print(
                f"encoder MFU, end to end: {100 * r['encoder_mfu']:.1f}% of "
                f"{r['peak_tflops']:g} TFLOP/s ({r['encoder_tflop']:.1f} TFLOP)"
            )
        else:
            print("encoder MFU: n/a (no peak for a CPU)")
        if r["encoder_alone_s"] is not None:
            mfu = r["encoder_alone_mfu"]
            print(
                f"encoder alone on the same batches: {r['encoder_alone_s']:.2f} s "
                f"({100 * r['encoder_share_of_batched']:.0f}% of the batched time"
                + (f", MFU {100 * mfu:.1f}%" if mfu is not None else "")
                + f"); padding efficiency {100 * r['padding_efficiency']:.1f}%"
            )
        mem = r["peak_gpu_memory_gb"]
        print(f"peak GPU memory: {f'{mem:.1f} GB' if mem is not None else 'n/a (CPU)'}")
        print(
            f"decisions equal (a) vs (b): {r['decisions_equal']}/{r['decisions_compared']} = "
            f"{100 * r['decisions_equal_share']:.2f}%; entailed: "
            f"{100 * r['entailed_share_loop']:.0f}% (a), "
            f"{100 * r['entailed_share_batched']:.0f}% (b); answers (a): {r['loop_outcomes']}"
        )
        if r["flipped_margin_percentiles"]:
            print(
                "flipped pairs' |logit(1) - logit(0)| percentile among (a)'s pairs: "
                + ", ".join(f"{p:.0f}" for p in r["flipped_margin_percentiles"])
            )
        print(
            f"estimated time for {ALCE_PAIRS:,} pairs: batched "
            f"{r[f'est_{ALCE_PAIRS}_pairs_s_batched']:.0f} s, per-pair loop "
            f"{r[f'est_{ALCE_PAIRS}_pairs_s_loop']:.0f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="small configs on CPU (< 1 min)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--loop-pairs", type=int, help="pairs for the per-pair loop (a)")
    parser.add_argument("--batched-pairs", type=int, help="pairs for the batched path (b)")
    parser.add_argument("--calibration-pairs", type=int, default=64)
    parser.add_argument(
        "--peak-tflops", type=float, default=790.0, help="bf16/fp16 dense peak (H200, measured)"
    )
    parser.add_argument(
        "--peak-tflops-fp32", type=float, default=67.0, help="float32 peak (H200 datasheet)"
    )
    parser.add_argument(
        "--classifier-dtype",
        default="float16",
        choices=["float16", "bfloat16", "float32"],
        help="the classifier's dtype on a GPU (default: that of MoritzLaurer/DeBERTa-v3-large-"
        "mnli-fever-anli-ling-wanli's weights, which `classifier:` loads as they are)",
    )
    parser.add_argument("--models", default="t5,classifier", help="t5, classifier or both")
    parser.add_argument("--no-encoder-alone", action="store_true")
    parser.add_argument(
        "--threads", type=int, help="torch CPU threads (--tiny: 1, as on a shared, busy CPU)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.threads or args.tiny:
        # Tiny models gain nothing from more threads, and on a busy machine the threads'
        # busy-waiting costs ten times the work.
        torch.set_num_threads(args.threads or 1)
    if args.loop_pairs is None:
        args.loop_pairs = 16 if args.tiny else 300
    if args.batched_pairs is None:
        args.batched_pairs = 96 if args.tiny else 4000
    if args.tiny:
        args.calibration_pairs = min(args.calibration_pairs, 24)
    device = torch.device("cpu" if args.tiny or not torch.cuda.is_available() else "cuda")
    if device.type == "cpu" and not args.tiny:
        parser.error("no CUDA GPU: the full-size run needs one (use --tiny on CPU)")
    os.environ.pop(NLI_CACHE_ENV, None)  # the batched path runs with the disk cache off

    import transformers

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        t5_tok, cls_tok = build_tokenizers(Path(tmp))
        pairs = synthetic_pairs(max(args.batched_pairs, args.loop_pairs), args.seed)
        rows = []
        for kind in [k.strip() for k in args.models.split(",") if k.strip()]:
            if kind not in ("t5", "classifier"):
                parser.error(f"--models: unknown model {kind!r} (t5, classifier)")
            tok = t5_tok if kind == "t5" else cls_tok
            tok_dir = Path(tmp) / ("t5" if kind == "t5" else "cls")
            rows.append(bench_one(kind, args, device, tok, tok_dir, pairs))
    cpu = f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    info = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tiny": args.tiny,
        "batch_size_env": os.environ.get(BATCH_SIZE_ENV),
        "distribution": (
            f"premise 1/2/3 passages ({PASSAGES[1]:.0%}/{PASSAGES[2]:.0%}/{PASSAGES[3]:.0%}) of "
            f"'Title: <{TITLE_WORDS[0]}-{TITLE_WORDS[1]} words>\\n<{PASSAGE_WORDS[0]}-"
            f"{PASSAGE_WORDS[1]} words>'; hypothesis one sentence of {HYPOTHESIS_WORDS[0]}-"
            f"{HYPOTHESIS_WORDS[1]} words; 1/2/3 tokens a word "
            f"({TOKENS_PER_WORD[1]:.0%}/{TOKENS_PER_WORD[2]:.0%}/{TOKENS_PER_WORD[3]:.0%})"
        ),
        "wall_s": time.perf_counter() - t0,
        "max_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
    }
    print_report(info, rows)
    print(f"\nwhole run: {info['wall_s']:.1f} s")
    if args.out:
        args.out.write_text(json.dumps({"info": info, "models": rows}, indent=2) + "\n")
        print(f"figures written to {args.out}")


if __name__ == "__main__":
    main()
