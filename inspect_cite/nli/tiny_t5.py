"""A tiny random TRUE-format T5, built at run time, for tests and benchmarks (nothing downloaded).

Saved with ``save_pretrained`` so that ``seq2seq:<dir>`` loads it through the real loading code.
"""

from pathlib import Path


def build_tiny_t5(out_dir: Path, d_model: int = 32, layers: int = 1, seed: int = 0) -> Path:
    """A random T5 with a ByT5 tokenizer, usable as a TRUE-format ``seq2seq:`` NLI model.

    With ``d_model=512, layers=6`` it has the size of t5-small (~60M parameters).
    """
    import torch
    from transformers import ByT5Tokenizer, T5Config, T5ForConditionalGeneration

    out_dir.mkdir(parents=True, exist_ok=True)
    tok = ByT5Tokenizer()
    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(tok),
        d_model=d_model,
        d_kv=max(8, d_model // 8),
        d_ff=d_model * 4,
        num_layers=layers,
        num_decoder_layers=layers,
        num_heads=8 if d_model >= 64 else 4,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
    )
    # Not a declared T5Config argument (a PretrainedConfig attribute): set, not passed.
    config.decoder_start_token_id = tok.pad_token_id
    model = T5ForConditionalGeneration(config)
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir
