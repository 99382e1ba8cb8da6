"""Tiny random stand-ins of MiniCheck's four model families, built at run time (nothing downloaded).

For tests and benchmarks of ``minicheck:<dir>`` (:mod:`inspect_cite.nli.minicheck`): each builder
saves a model folder that the real loading code reads, with the architecture of its family and a
tokenizer built in place:

- :func:`build_tiny_roberta`: a ``RobertaForSequenceClassification`` with a byte-level tokenizer
  (one token per byte, ``<s> ... </s>``), as MiniCheck-RoBERTa-Large;
- :func:`build_tiny_deberta`: a ``DebertaV2ForSequenceClassification`` (relative attention, as
  DeBERTa-v3) with a SentencePiece-style tokenizer (``[CLS] ... [SEP]``);
- :func:`build_tiny_flan_t5`: a ``T5ForConditionalGeneration`` with a SentencePiece-style
  tokenizer whose id 3 is ``"▁"``, as T5's, and over 210 pieces (MiniCheck reads ids 3 and 209);
- :func:`build_tiny_causal`: a ``LlamaForCausalLM`` standing in for Bespoke-MiniCheck-7B
  (InternLM2, a Llama-style decoder): a SentencePiece-style tokenizer that adds ``<s>``, a chat
  template of InternLM2's shape that writes ``<s>`` too, head size 32 (vLLM's CPU attention
  needs >= 32) and 32,768 positions (MiniCheck's default context).

Everything is deterministic: the tokenizers are written out piece by piece (no training), and
every weight is drawn from one seeded generator in the order of the parameter names, so the
models do not depend on how a transformers version initialises weights. Random weights give
nearly the same answer to every input, so each builder then plants an output layer whose
support probability varies with the input (both sides of 0.5), read along the direction in which
the layer's input varies most over a few fixed texts (as :mod:`inspect_cite.testing.tiny_t5` does).
"""

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from inspect_cite.testing.tiny_qwen3 import TINY_DECODER_SIZES

CORPUS = (
    "The river flooded the valley in the spring of that year. Farmers moved their cattle to "
    "the hills. The new bridge was opened by the mayor in June, and the old ferry stopped "
    "running. Most of the town voted for the plan. A small museum now holds the records of "
    "the flood, with photographs taken by the local school. The company was founded in 1998 "
    "and makes parts for bicycles. Its first factory was built near the station. Sales grew "
    "every year until the market changed. The study found that patients who slept more had "
    "lower blood pressure. It was published in a medical journal and cited by other groups. "
    "The author wrote three novels about the sea and one book of poems. She was born in a "
    "fishing village and taught music for twenty years. Yes, the claim is supported by the "
    "document. No, the claim is not supported."
)
"""Text the tokenizers' word pieces come from and the output layers are planted on."""

CALIBRATION_CLAIMS = (
    "The bridge was opened in June.",
    "The river flooded the valley.",
    "The company makes cars.",
    "The study was never published.",
    "She taught music.",
    "The museum holds photographs of the flood.",
)

# Pieces every SentencePiece-style tokenizer here holds besides its special tokens.
_CHARS = [chr(c) for c in range(33, 127)] + ["\n"]
_SCORE_CHAR = -10.0
_SCORE_WORD = -4.0
_SCORE_SPACE = -6.0

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""InternLM2's chat format (Bespoke-MiniCheck-7B's): the template writes ``<s>`` itself."""

YES_NO_PIECES = ("Yes", "▁Yes", "yes", "▁yes", "YES", "No", "▁No", "no")
"""Answer pieces of the causal stand-in: word-start ("▁Yes") and inner ("Yes") forms."""


def _words(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in text.replace(",", " ").replace(".", " ").split():
        word = word.replace("▁", "")
        if not word:
            continue
        seen.setdefault(word, None)
    return list(seen)


def _unigram_pieces(specials: Sequence[str], extra: Sequence[str] = ()) -> list[tuple[str, float]]:
    """Specials first (score 0), then ``▁`` (id ``len(specials)``), characters and words."""
    pieces: list[tuple[str, float]] = [(s, 0.0) for s in specials]
    pieces.append(("▁", _SCORE_SPACE))
    pieces += [(c, _SCORE_CHAR) for c in _CHARS]
    pieces += [("▁" + c, _SCORE_CHAR - 1) for c in _CHARS if c != "\n"]
    known = {p for p, _ in pieces}
    for word in [*extra, *_words(CORPUS)]:
        for piece in (word, "▁" + word) if not word.startswith("▁") else (word,):
            if piece not in known:
                known.add(piece)
                pieces.append((piece, _SCORE_WORD))
    return pieces


def _sentencepiece_tokenizer(
    specials: Sequence[str], unk: str, single: str, extra: Sequence[str] = ()
) -> Any:
    """A Unigram tokenizer with Metaspace splitting, as SentencePiece models load."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    pieces = _unigram_pieces(specials, extra)
    ids = {p: i for i, (p, _) in enumerate(pieces)}
    tok = Tokenizer(models.Unigram(pieces, unk_id=ids[unk], byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    used = [s for s in specials if s in single]
    tok.post_processor = processors.TemplateProcessing(
        single=single, special_tokens=[(s, ids[s]) for s in used]
    )
    return tok


def _byte_level_tokenizer() -> Any:
    """A byte-level BPE without merges (one token per byte), RoBERTa's specials and template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from tokenizers.pre_tokenizers import ByteLevel

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = {s: i for i, s in enumerate(specials)}
    for char in sorted(ByteLevel.alphabet()):
        vocab[char] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return tok


def _fast(tok: Any, **special: Any) -> Any:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=tok, **special)


def _seeded_weights(model: Any, seed: int) -> None:
    """Every parameter drawn from one generator, in the order of the parameter names."""
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            noise = torch.randn(param.shape, generator=g, dtype=torch.float32)
            if param.dim() == 1 and "norm" in name.lower() and name.endswith("weight"):
                param.copy_(1.0 + 0.1 * noise)
            elif param.dim() == 1:
                param.copy_(0.02 * noise)
            elif "embed" in name:
                param.copy_(noise)
            else:
                param.copy_(noise * (0.5 / param.shape[-1] ** 0.5))


def _principal(features: Any) -> tuple[Any, Any, Any, Any]:
    """(direction of most variance, median and spread of the projection on it, mean feature)."""
    import torch

    mean = features.mean(0)
    direction = torch.linalg.svd(features - mean, full_matrices=False).Vh[0]
    proj = features @ direction
    return direction, proj.median(), proj.std(), mean


def _inputs_of(layer: Any, run: Callable[[], object]) -> Any:
    """The inputs ``layer`` receives while ``run`` runs, stacked on the first axis."""
    import torch

    seen: list[Any] = []
    handle = layer.register_forward_pre_hook(lambda module, args: seen.append(args[0].detach()))
    try:
        with torch.no_grad():
            run()
    finally:
        handle.remove()
    return torch.cat([s.reshape(-1, s.shape[-1]) for s in seen])


def _calibration_texts(separator: str) -> list[str]:
    sentences = [s.strip() + "." for s in CORPUS.split(".") if s.strip()]
    docs = [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
    return [f"{doc}{separator}{claim}" for doc in docs for claim in CALIBRATION_CLAIMS]


def _plant_classifier(model: Any, tok: Any, head: Any, scale: float) -> None:
    """Label 1 ("supported") minus label 0 = ``scale`` spreads along the head input's main axis."""
    import torch

    texts = _calibration_texts(tok.eos_token)
    features = _inputs_of(head, lambda: [model(**tok(t, return_tensors="pt")) for t in texts])
    direction, median, spread, _ = _principal(features)
    w = scale / float(spread) / 2
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.weight[1] = w * direction
        head.weight[0] = -w * direction
        head.bias[1] = -w * median
        head.bias[0] = w * median


def _save(model: Any, tok: Any, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir


def _encoder_tokenizer(tok: Any, *, cls: str, sep: str, unk: str, pad: str, mask: str) -> Any:
    """An encoder's fast tokenizer: ``cls`` begins a text and ``sep`` ends it, as BERT's kin."""
    return _fast(
        tok,
        bos_token=cls,
        eos_token=sep,
        sep_token=sep,
        cls_token=cls,
        unk_token=unk,
        pad_token=pad,
        mask_token=mask,
    )


def _encoder_settings(tok: Any, **family: Any) -> dict[str, Any]:
    """The encoder stand-ins' sizes (2 layers, width 32) and 2 labels, with the family's keys."""
    return dict(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        **family,
        num_labels=2,
    )


def _planted(model: Any, tok: Any, head: Any, out_dir: Path, *, seed: int, scale: float) -> Path:
    """Seed an encoder's weights, plant its label head (:func:`_plant_classifier`), save it."""
    _seeded_weights(model, seed)
    _plant_classifier(model, tok, head, scale)
    return _save(model, tok, out_dir)


def build_tiny_roberta(out_dir: Path, seed: int = 0, scale: float = 2.5) -> Path:
    """A random MiniCheck-RoBERTa stand-in (2 labels, 514 positions: 512 tokens as RoBERTa)."""
    from transformers import RobertaConfig, RobertaForSequenceClassification

    tok = _encoder_tokenizer(
        _byte_level_tokenizer(), cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"
    )
    settings = _encoder_settings(
        tok,
        max_position_embeddings=514,
        type_vocab_size=1,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    model = RobertaForSequenceClassification(RobertaConfig(**settings)).eval()
    return _planted(model, tok, model.classifier.out_proj, out_dir, seed=seed, scale=scale)


def build_tiny_deberta(out_dir: Path, seed: int = 0, scale: float = 2.5) -> Path:
    """A random MiniCheck-DeBERTa-v3 stand-in (relative attention, no absolute positions)."""
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    specials = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"]
    tok = _encoder_tokenizer(
        _sentencepiece_tokenizer(specials, "[UNK]", "[CLS] $A [SEP]"),
        cls="[CLS]",
        sep="[SEP]",
        unk="[UNK]",
        pad="[PAD]",
        mask="[MASK]",
    )
    # Keyword arguments DebertaV2Config stores and the model reads (DeBERTa-v3-large's values).
    settings = _encoder_settings(
        tok,
        max_position_embeddings=512,
        relative_attention=True,
        position_buckets=64,
        max_relative_positions=-1,
        pos_att_type=["p2c", "c2p"],
        position_biased_input=False,
        norm_rel_ebd="layer_norm",
        share_att_key=True,
        type_vocab_size=0,
        pad_token_id=tok.pad_token_id,
    )
    model = DebertaV2ForSequenceClassification(DebertaV2Config(**settings)).eval()
    return _planted(model, tok, model.classifier, out_dir, seed=seed, scale=scale)


FLAN_T5_NO, FLAN_T5_YES = 3, 209
"""The two token ids MiniCheck-Flan-T5 reads ("no support", "support")."""


def build_tiny_flan_t5(
    out_dir: Path,
    seed: int = 0,
    scale: float = 2.5,
    d_model: int = 32,
    layers: int = 2,
    vocabulary: str = "",
) -> Path:
    """A random MiniCheck-Flan-T5 stand-in: ids 3 and 209 score along the decoder's main axis.

    Args:
        out_dir: Where to save it.
        seed: The weights' seed.
        scale: Spread of the two label logits along the planted axis.
        d_model: Width (``d_model=512, layers=6``: t5-small's size; Flan-T5-Large: 1024, 24).
        layers: Encoder and decoder layers.
        vocabulary: Text whose words become pieces too, so that it tokenizes about a token a
            word, as English does with T5's tokenizer (otherwise unknown words are spelled).

    """
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    tok = _fast(
        _sentencepiece_tokenizer(
            ["<pad>", "</s>", "<unk>"], "<unk>", "$A </s>", extra=_words(vocabulary)
        ),
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
    )
    settings: dict[str, Any] = dict(
        vocab_size=len(tok),
        d_model=d_model,
        d_kv=max(8, d_model // 8),
        d_ff=d_model * 2 if d_model < 64 else d_model * 4,
        num_layers=layers,
        num_decoder_layers=layers,
        num_heads=4 if d_model < 64 else 8,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        decoder_start_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
    )
    model = T5ForConditionalGeneration(T5Config(**settings)).eval()
    _seeded_weights(model, seed)
    texts = ["predict: " + t for t in _calibration_texts(tok.eos_token)]
    start = torch.zeros((1, 1), dtype=torch.long)
    features = _inputs_of(
        model.lm_head,
        lambda: [model(**tok(t, return_tensors="pt"), decoder_input_ids=start) for t in texts],
    )
    direction, median, spread, mean = _principal(features)
    w = scale / float(spread) / 2 * (direction - median * mean / (mean @ mean))
    with torch.no_grad():
        model.lm_head.weight[FLAN_T5_YES] = w
        model.lm_head.weight[FLAN_T5_NO] = -w
    return _save(model, tok, out_dir)


def causal_tokenizer() -> Any:
    """The causal stand-in's tokenizer: SentencePiece-style, adds ``<s>``, InternLM2's template."""
    specials = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    tok = _fast(
        _sentencepiece_tokenizer(specials, "<unk>", "<s> $A", extra=YES_NO_PIECES),
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="</s>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tok.chat_template = CHAT_TEMPLATE
    return tok


# (weight along the planted axis, offset) of each answer piece's logit: several "yes"
# spellings, word-start and inner, so that the top-5 holds different ones for different inputs.
_ANSWER_LOGITS = {
    "Yes": (1.0, 4.0),
    "▁Yes": (0.6, 3.5),
    "yes": (0.8, 2.5),
    "▁yes": (0.4, 2.0),
    "YES": (1.2, 1.5),
    "No": (-1.0, 4.0),
    "▁No": (-0.6, 3.0),
    "no": (-0.8, 2.0),
}


def build_tiny_causal(
    out_dir: Path,
    seed: int = 0,
    scale: float = 2.5,
    system_prompt: str = "Answer Yes or No.",
    user_prompt: str = "Document: [DOCUMENT]\nClaim: [CLAIM]",
) -> Path:
    """A random Llama-style stand-in of Bespoke-MiniCheck-7B whose "yes" pieces vary by input.

    Args:
        out_dir: Where to save it.
        seed: The weights' seed.
        scale: Spread of the answer logits along the planted axis.
        system_prompt: The system message the answer layer is planted on.
        user_prompt: The user message, with ``[DOCUMENT]`` and ``[CLAIM]``.

    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = causal_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tok),
        **TINY_DECODER_SIZES,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    model = LlamaForCausalLM(config).eval()
    _seeded_weights(model, seed)

    def prompt(text: str) -> list[int]:
        doc, _, claim = text.partition("\0")
        user = user_prompt.replace("[DOCUMENT]", doc).replace("[CLAIM]", claim)
        messages = [
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": user},
        ]
        rendered = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return list(tok(rendered)["input_ids"])

    rows = [prompt(t) for t in _calibration_texts("\0")]
    seen: list[Any] = []

    def run() -> None:
        for ids in rows:
            model(input_ids=torch.tensor([ids]))

    handle = model.lm_head.register_forward_pre_hook(
        lambda module, args: seen.append(args[0][0, -1].detach())
    )
    try:
        with torch.no_grad():
            run()
    finally:
        handle.remove()
    direction, median, spread, mean = _principal(torch.stack(seen))
    axis = scale / float(spread) * (direction - median * mean / (mean @ mean))
    unit = mean / (mean @ mean)  # h . unit ~ 1 for every input: an offset without a bias
    with torch.no_grad():
        model.lm_head.weight.mul_(0.2)
        for piece, (weight, offset) in _ANSWER_LOGITS.items():
            model.lm_head.weight[tok.convert_tokens_to_ids(piece)] = weight * axis + offset * unit
    return _save(model, tok, out_dir)


def write_prompt_file(path: Path, system_prompt: str, user_prompt: str) -> Path:
    """A MiniCheck-format prompt file (``SYSTEM_PROMPT = ...``, ``USER_PROMPT = ...``)."""
    path.write_text(
        f"SYSTEM_PROMPT = {json.dumps(system_prompt)}\n\nUSER_PROMPT = {json.dumps(user_prompt)}\n",
        encoding="utf-8",
    )
    return path
