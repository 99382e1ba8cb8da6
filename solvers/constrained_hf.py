"""Grammar-constrained generation on a loaded Hugging Face model (the ``hf/`` provider's).

Inspect's ``hf/`` provider has no logits-processor hook, so constrained decoding calls
``model.generate`` itself with a thin :class:`GrammarLogitsProcessor`: before each token,
llguidance computes the set of tokens the grammar allows and every other logit is set to
``-inf``. The mask is applied with plain tensor operations rather than
``llguidance.torch.apply_token_bitmask_inplace``, whose ``torch.compile`` costs ~18 s on its
first call on CPU.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import llguidance
import llguidance.hf
import llguidance.torch
import numpy as np
import torch
from transformers import LogitsProcessor, LogitsProcessorList

from solvers.grammar import TEXT_SLICES

# LLTokenizer construction takes ~1 s for a large vocabulary: one per HF tokenizer object.
_LLG_TOKENIZERS: dict[int, tuple[Any, llguidance.LLTokenizer]] = {}
# One constrained generation at a time per model: concurrent samples queue here.
_MODEL_LOCKS: dict[int, threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()


def llg_tokenizer(tokenizer: Any) -> llguidance.LLTokenizer:
    """The llguidance tokenizer for a (fast) Hugging Face tokenizer, built once."""
    with _REGISTRY_LOCK:
        cached = _LLG_TOKENIZERS.get(id(tokenizer))
        if cached is None or cached[0] is not tokenizer:
            cached = (tokenizer, llguidance.hf.from_tokenizer(tokenizer, slices=TEXT_SLICES))
            _LLG_TOKENIZERS[id(tokenizer)] = cached
        return cached[1]


def _model_lock(model: Any) -> threading.Lock:
    with _REGISTRY_LOCK:
        return _MODEL_LOCKS.setdefault(id(model), threading.Lock())


def compile_matcher(tokenizer: llguidance.LLTokenizer, grammar: str) -> llguidance.LLMatcher:
    """A matcher for a Lark grammar.

    Raises:
        ValueError: The grammar does not compile (llguidance's message).

    """
    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    if matcher.is_error():
        raise ValueError(f"citation grammar does not compile: {matcher.get_error()}")
    return matcher


class GrammarLogitsProcessor(LogitsProcessor):
    """Mask every token the grammar does not allow next (batch size 1).

    Args:
        matcher: A fresh matcher for the grammar.
        prompt_length: Number of prompt tokens; later tokens are fed to the matcher.
        eos_token_id: Forced when the matcher has failed, so generation stops.
        vocab_size: The llguidance tokenizer's vocabulary size (logits past it are masked).

    """

    def __init__(
        self,
        matcher: llguidance.LLMatcher,
        prompt_length: int,
        eos_token_id: int,
        vocab_size: int,
    ):
        self.matcher = matcher
        self.prompt_length = prompt_length
        self.eos_token_id = eos_token_id
        self.vocab_size = vocab_size
        self.bitmask = llguidance.torch.allocate_token_bitmask(1, self.vocab_size)
        # A numpy view of the same memory: unpacking bits in numpy avoids torch's intra-op
        # thread pool, which costs more than the work for one row of logits.
        self._bitmask_bytes = self.bitmask.numpy().view(np.uint8)
        self.failed = False

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> Any:
        """Feed the last sampled token to the matcher and mask the next token's scores."""
        if input_ids.shape[0] != 1:
            raise ValueError("grammar-constrained generation runs one sequence at a time")
        if input_ids.shape[1] > self.prompt_length and not self.failed:
            self.failed = not self.matcher.consume_token(int(input_ids[0, -1]))
        if self.failed or self.matcher.is_error():
            self.failed = True
            scores.fill_(float("-inf"))
            scores[:, self.eos_token_id] = 0.0
            return scores
        llguidance.torch.fill_next_token_bitmask(self.matcher, self.bitmask, 0)
        allowed = np.unpackbits(self._bitmask_bytes, bitorder="little")[: self.vocab_size]
        width = min(self.vocab_size, scores.shape[1])
        allowed = allowed[:width].view(np.bool_)
        if scores.device.type == "cpu" and scores.dtype == torch.float32:
            row = scores.numpy()[0]
            np.copyto(row[:width], -np.inf, where=~allowed)
            row[width:] = -np.inf
            if row.max() == -np.inf:
                # Earlier processors (e.g. a repetition penalty) ruled out every allowed
                # token; keep the grammar's choice rather than sample from an all -inf row.
                np.copyto(row[:width], 0.0, where=allowed)
            return scores
        mask = torch.from_numpy(~allowed).to(scores.device)
        scores[:, :width].masked_fill_(mask, float("-inf"))
        scores[:, width:] = float("-inf")
        if scores.max() == float("-inf"):
            scores[:, :width].masked_fill_(~mask, 0.0)
        return scores


@dataclass
class ConstrainedGeneration:
    """What one constrained generation produced."""

    text: str
    input_tokens: int
    output_tokens: int
    stop_reason: str  # "stop" (end of sequence) or "max_tokens"
    accepting: bool  # the grammar was complete when generation ended
    error: str  # the matcher's error, "" if none
    time: float


def generate_constrained(
    model: Any,
    tokenizer: Any,
    prompt: str,
    grammar: str,
    *,
    max_new_tokens: int,
    do_sample: bool,
    temperature: float | None,
    top_p: float | None = None,
    top_k: int | None = None,
    tokenizer_call_args: dict[str, Any] | None = None,
) -> ConstrainedGeneration:
    """Generate from ``prompt`` (already chat-formatted) under ``grammar``. Blocking.

    Args:
        model: A transformers causal LM.
        tokenizer: Its fast tokenizer.
        prompt: The full prompt text (chat template applied).
        grammar: An llguidance Lark grammar.
        max_new_tokens: Most tokens to generate.
        do_sample: Sample (True) or decode greedily.
        temperature: Sampling temperature (None: the model's default); 0 means greedy.
        top_p: Nucleus sampling mass.
        top_k: Top-k sampling.
        tokenizer_call_args: Extra arguments for the tokenizer call (as the provider's).

    Returns:
        The generated text and token counts.

    """
    start = time.monotonic()
    lltok = llg_tokenizer(tokenizer)
    matcher = compile_matcher(lltok, grammar)
    inputs = tokenizer(prompt, return_tensors="pt", **(tokenizer_call_args or {}))
    input_ids = inputs["input_ids"].to(model.device)
    attention_mask = inputs["attention_mask"].to(model.device)
    eos = tokenizer.eos_token_id
    processor = GrammarLogitsProcessor(matcher, input_ids.shape[1], eos, lltok.vocab_size)
    kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "do_sample": do_sample}
    if temperature is not None and temperature <= 0:
        kwargs["do_sample"] = False
    if kwargs["do_sample"]:
        if temperature is not None:
            kwargs["temperature"] = temperature
        if top_p is not None:
            kwargs["top_p"] = top_p
        if top_k is not None:
            kwargs["top_k"] = top_k
    with _model_lock(model), torch.inference_mode():
        sequences = model.generate(
            input_ids=input_ids,
            attention_mask=attention_mask,
            logits_processor=LogitsProcessorList([processor]),
            eos_token_id=eos,
            pad_token_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos,
            **kwargs,
        )
    generated = sequences[0, input_ids.shape[1] :].tolist()
    ended = bool(generated) and generated[-1] == eos
    if ended:
        # The end-of-sequence token is generated but never fed to the processor.
        matcher.consume_token(eos)
    text = tokenizer.decode(generated, skip_special_tokens=True, clean_up_tokenization_spaces=False)
    return ConstrainedGeneration(
        text=text,
        input_tokens=int(input_ids.shape[1]),
        output_tokens=len(generated),
        stop_reason="stop" if ended else "max_tokens",
        accepting=matcher.is_accepting() or matcher.is_stopped(),
        error=matcher.get_error(),
        time=time.monotonic() - start,
    )
