"""A tiny random TRUE-format T5, built at run time, for tests and benchmarks (nothing downloaded).

Saved with ``save_pretrained`` so that ``seq2seq:<dir>`` loads it through the real loading code.
Random weights give one answer to every input; :func:`vary_t5_outputs` makes a copy whose
answers vary.
"""

from collections.abc import Sequence
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


def vary_t5_outputs(
    src: Path, out: Path, calibration: Sequence[str], seed: int = 0, scale: float = 20.0
) -> Path:
    """Save a copy of a random TRUE-format T5 that answers "1" to about half of the inputs.

    A random T5 gives the same answer to every input. This one has its own output layer:
    zero for every token but EOS, "1" and "0". At the first step "1" and "0" score along the
    direction in which the decoder state varies most over the ``calibration`` inputs, split at
    the median; the input embedding of "1" is made to point at EOS so that "1" is followed by
    the end of the answer. Greedy answers are then "1" or start with "0", input-dependent.
    """
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(src)
    model = AutoModelForSeq2SeqLM.from_pretrained(src)
    one, zero = (tok.convert_tokens_to_ids(token) for token in ("1", "0"))
    d = model.config.d_model
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        enc = tok(list(calibration), return_tensors="pt", padding=True)
        start = torch.full((len(calibration), 1), model.config.decoder_start_token_id)
        hidden = model(**enc, decoder_input_ids=start, output_hidden_states=True)
        h = hidden.decoder_hidden_states[-1][:, 0]  # before the final norm and lm_head
        h = model.decoder.final_layer_norm(h)
        centred = h - h.mean(0)
        direction = torch.linalg.svd(centred, full_matrices=False).Vh[0]
        proj = h @ direction
        mean = h.mean(0)
        # w . h - median, written without a bias: the mean state stands in for the constant.
        w_one = scale * (direction - proj.median() * mean / (mean @ mean))
        model.config.tie_word_embeddings = False
        head = torch.nn.Linear(d, model.lm_head.weight.shape[0], bias=False)
        head.weight.zero_()
        head.weight[one] = w_one
        head.weight[zero] = -w_one
        u = torch.randn(d, generator=g)
        model.shared.weight[one] = u / u.norm() * 50
        head.weight[tok.eos_token_id] = u / u.norm() * 25
        model.lm_head = head
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out
