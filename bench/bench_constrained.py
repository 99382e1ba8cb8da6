"""Per-token overhead of grammar-constrained vs plain generation (tiny random Qwen3, CPU).

Builds a 2-layer Qwen3 whose byte-level BPE tokenizer has ``--vocab`` entries (default 131,072,
"100k+"), then, in one process, alternates plain ``model.generate`` and the constrained path
that ``constrained_citations`` uses on ``hf/`` models (:func:`solvers.constrained_hf.
generate_constrained`) on FullCite fixture prompts, sampling ``--tokens`` new tokens each. The
random model rarely picks end-of-sequence, so both run to the token limit; time per generated
token is compared. Target: overhead under 15%.

Run from the repository root::

    python bench/bench_constrained.py [--vocab 131072] [--tokens 256] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.threads import parse_with_threads  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=131072)
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--model-dir", type=Path, default=None, help="reuse a built model")
    args = parse_with_threads(parser)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import solvers.constrained_hf as constrained_hf
    from bench.fixtures import fixture_texts, load_fixture
    from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3
    from solvers.constrained_hf import compile_matcher, generate_constrained, llg_tokenizer
    from solvers.grammar import fullcite_grammar
    from solvers.prompted import FULLCITE_DOCUMENT, FULLCITE_PROMPT, format_documents

    model_dir = args.model_dir or Path(tempfile.mkdtemp()) / f"tiny-qwen3-{args.vocab}"
    if not (model_dir / "config.json").exists():
        start = time.perf_counter()
        corpus = fixture_texts(
            "alce_asqa.json", "alce_qampari.json", "alce_eli5.json", "fullcite_samples.json"
        )
        build_tiny_qwen3(model_dir, corpus, vocab_size=args.vocab)
        print(f"built tiny Qwen3 in {time.perf_counter() - start:.1f}s at {model_dir}")
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    start = time.perf_counter()
    llg_tokenizer(tokenizer)
    print(
        f"tokenizer: {len(tokenizer)} entries; llguidance tokenizer built in "
        f"{time.perf_counter() - start:.2f}s (once per tokenizer)"
    )

    items = load_fixture("fullcite_samples.json")[: args.samples]
    cases = []
    for item in items:
        prompt = FULLCITE_PROMPT.format(
            documents=format_documents(item["docs"], FULLCITE_DOCUMENT), question=item["question"]
        )
        chat = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        )
        cases.append((chat, fullcite_grammar(item["docs"])))
    start = time.perf_counter()
    lltok = llg_tokenizer(tokenizer)
    for _, grammar in cases:
        compile_matcher(lltok, grammar)
    compile_ms = (time.perf_counter() - start) / len(cases) * 1000

    def plain(chat: str) -> tuple[float, int]:
        inputs = tokenizer(chat, return_tensors="pt")
        start = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(
                **inputs,
                max_new_tokens=args.tokens,
                do_sample=True,
                temperature=1.0,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
            )
        return time.perf_counter() - start, out.shape[1] - inputs["input_ids"].shape[1]

    def constrained(chat: str, grammar: str) -> tuple[float, int]:
        start = time.perf_counter()
        result = generate_constrained(
            model,
            tokenizer,
            chat,
            grammar,
            max_new_tokens=args.tokens,
            do_sample=True,
            temperature=1.0,
        )
        return time.perf_counter() - start, result.output_tokens

    # Time spent in the grammar logits processor (matcher update + mask + applying it).
    processor_time = [0.0, 0]
    original_call = constrained_hf.GrammarLogitsProcessor.__call__

    def timed_call(self, input_ids, scores):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        result = original_call(self, input_ids, scores)
        processor_time[0] += time.perf_counter() - start
        processor_time[1] += 1
        return result

    constrained_hf.GrammarLogitsProcessor.__call__ = timed_call  # type: ignore[method-assign]

    plain(cases[0][0])  # warm-up
    constrained(*cases[0])
    processor_time[:] = [0.0, 0]
    plain_ms, constrained_ms, plain_n, constrained_n = [], [], [], []
    for _ in range(args.rounds):
        for chat, grammar in cases:
            t, n = plain(chat)
            plain_ms.append(t / n * 1000)
            plain_n.append(n)
            t, n = constrained(chat, grammar)
            constrained_ms.append(t / n * 1000)
            constrained_n.append(n)
    p, c = statistics.median(plain_ms), statistics.median(constrained_ms)
    # Each constrained run is paired with the plain run just before it on the same prompt, so
    # the paired ratio cancels slow drifts in machine load.
    ratios = sorted(b / a for a, b in zip(plain_ms, constrained_ms, strict=True))
    q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
    print(
        f"vocab {len(tokenizer)}, {args.tokens} new tokens, {len(plain_ms)} runs each, "
        f"torch threads {torch.get_num_threads()}"
    )
    print(f"grammar compile (per sample, once per attempt): {compile_ms:.1f} ms")
    print(
        f"tokens generated: plain {statistics.mean(plain_n):.0f}, "
        f"constrained {statistics.mean(constrained_n):.0f} (mean per run)"
    )
    print(
        f"grammar processor: {processor_time[0] / processor_time[1] * 1000:.3f} ms/token "
        "(matcher update, mask, applying it)"
    )
    print(f"plain        : {p:.3f} ms/token (median)")
    print(f"constrained  : {c:.3f} ms/token (median, includes grammar compile)")
    print(f"overhead     : {(c / p - 1) * 100:+.1f}% (ratio of medians {c / p:.3f})")
    print(
        f"paired ratio : median {statistics.median(ratios):.3f}, IQR {q1:.3f}-{q3:.3f} "
        f"(overhead {(statistics.median(ratios) - 1) * 100:+.1f}%; target < 15%)"
    )


if __name__ == "__main__":
    main()
