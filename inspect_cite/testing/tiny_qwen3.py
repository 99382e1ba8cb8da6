"""A tiny random Qwen3 with a trained byte-level BPE, built at run time (nothing downloaded).

For tests and benchmarks of the ``hf/`` path (constrained decoding, raw prompts, thinking).
Saved with ``save_pretrained`` so that the real loading code (``hf/`` provider,
``AutoModel*.from_pretrained``) is what runs.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _synthetic_words(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(n)]


def build_tokenizer(
    out_dir: Path, corpus: Iterable[str], vocab_size: int = 2000, chat_template: str = CHAT_TEMPLATE
) -> object:
    """Train a byte-level BPE on ``corpus`` (plus synthetic words to reach ``vocab_size``).

    The synthetic filler grows with ``vocab_size`` (two distinct words per entry), so large
    vocabularies are reached too: 30k entries train in ~3 s, 131k in ~15 s.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = list(corpus)
    # Enough distinct words that BPE can learn vocab_size merges.
    filler = _synthetic_words(max(2000, vocab_size * 2))
    texts += [" ".join(filler[i : i + 50]) for i in range(0, len(filler), 50)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    if tok.get_vocab_size() < vocab_size:
        raise RuntimeError(f"BPE reached {tok.get_vocab_size()} entries, not {vocab_size}")
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
    )
    fast.chat_template = chat_template
    fast.save_pretrained(out_dir)
    return fast


TINY_DECODER_SIZES: dict[str, Any] = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=2,
    head_dim=32,
)
"""The tiny decoders' sizes: 2 layers, hidden 64, head_dim 32 (the smallest vLLM's CPU attention
accepts). The Qwen3 here and MiniCheck's causal stand-in (``tiny_minicheck``) share them."""


def tiny_qwen3_config(tok: Any, **overrides: Any) -> Any:
    """2 layers, hidden 64, head_dim 32 (the smallest vLLM's CPU attention accepts)."""
    from transformers import Qwen3Config

    return Qwen3Config(
        vocab_size=len(tok),
        **TINY_DECODER_SIZES,
        num_key_value_heads=1,
        eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tok.convert_tokens_to_ids("<|endoftext|>"),
        **overrides,
    )


def build_tiny_qwen3(
    out_dir: Path,
    corpus: Iterable[str] = (),
    vocab_size: int = 2000,
    seed: int = 0,
    chat_template: str = CHAT_TEMPLATE,
) -> Path:
    """A 2-layer Qwen3 with random weights and a trained byte-level BPE tokenizer.

    ``chat_template=QWEN3_CHAT_TEMPLATE`` gives it Qwen3's ``enable_thinking`` handling.
    """
    import torch
    from transformers import Qwen3ForCausalLM

    out_dir.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(out_dir, corpus, vocab_size, chat_template)
    torch.manual_seed(seed)
    config = tiny_qwen3_config(
        tok, max_position_embeddings=16384, tie_word_embeddings=True, bos_token_id=None
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = config.eos_token_id
    model.generation_config.pad_token_id = config.pad_token_id
    model.save_pretrained(out_dir)
    return out_dir
