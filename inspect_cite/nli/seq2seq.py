"""TRUE-format seq2seq NLI ("premise: P hypothesis: H" -> "1" when entailed), as ALCE uses."""

import logging
import os
from typing import Any

from inspect_cite.nli.base import NLIResourceError, NLIResult, Pair
from inspect_cite.nli.hf import LazyModel, cuda_available, load_pretrained

logger = logging.getLogger(__name__)

TRUE_MODEL = "google/t5_xxl_true_nli_mixture"
"""ALCE's AutoAIS model: T5-11B fine-tuned on the TRUE NLI mixture."""

TRUE_TEMPLATE = "premise: {premise} hypothesis: {hypothesis}"

TRUE_MIN_FREE_GPU_GB = 23.0
"""11B parameters in bf16 (22 GB) plus activations."""

ALLOW_CPU_ENV = "INSPECT_CITE_NLI_ALLOW_CPU"


def cpu_allowed() -> bool:
    """Whether the user allows T5-11B without a GPU that holds it (0, false or no: not)."""
    return os.environ.get(ALLOW_CPU_ENV, "").strip().lower() not in ("", "0", "false", "no")


LIGHTER_CHOICES = """\
Lighter NLI choices (pass as -T nli=..., -S nli=... or alce-eval --nli ...):
  minicheck:lytang/MiniCheck-Flan-T5-Large
      MiniCheck's Flan-T5 fact checker (0.8B parameters; runs on CPU; published agreement
      figures: docs/nli.md, "Judge table")
  classifier:MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli
      a DeBERTa-v3 MNLI/ANLI classifier (0.4B parameters; runs on CPU or a small GPU)
  seq2seq:<hub id or local dir>
      a smaller seq2seq NLI model in the same TRUE format ("premise: P hypothesis: H" -> "1")
  model:<inspect model name or role>
      an LLM asked a yes/no entailment question, e.g. model:openai/gpt-4o-mini or model:grader
  python:<module>:<function>
      your own (premise, hypothesis) -> bool | float function
Numbers from another NLI model are not comparable with published ALCE numbers."""


def true_resource_problem() -> str | None:
    """Why the TRUE model (11B, bf16) cannot run well here, or None. Loads nothing."""
    if not cuda_available():
        return "no CUDA GPU is available"
    import torch

    free = sum(torch.cuda.mem_get_info(i)[0] for i in range(torch.cuda.device_count())) / 1e9
    if free < TRUE_MIN_FREE_GPU_GB:
        return (
            f"only {free:.1f} GB of GPU memory is free (it needs about "
            f"{TRUE_MIN_FREE_GPU_GB:.0f} GB; the rest would be offloaded to CPU, very slowly)"
        )
    return None


def true_resource_message(problem: str) -> str:
    """The message shown before loading the TRUE model on a machine that cannot hold it."""
    return (
        f"NLI 'true' ({TRUE_MODEL}, T5-11B in bf16) needs a GPU with about "
        f"{TRUE_MIN_FREE_GPU_GB:.0f} GB free, but {problem}.\n{LIGHTER_CHOICES}\n"
        f"(Set {ALLOW_CPU_ENV}=1 to load it anyway.)"
    )


class Seq2SeqNLI(LazyModel):
    """A seq2seq model asked in TRUE format; entailed iff the greedy output is exactly "1".

    Loads on first use (in the batching thread). Inputs are tokenized once, bucketed by length
    and padded into batches sized by rows and tokens (larger on a GPU, see
    ``inspect_cite.nli.hf.GPU_BATCH``); each batch is one ``generate`` call that stops as soon
    as every row's answer is known to be "1" or not (``inspect_cite.nli.greedy``). Each
    decision is the one eval.py's unbatched ``generate`` makes, up to float rounding of padded
    batches in bf16; ``INSPECT_CITE_NLI_BATCH_SIZE=1`` gives eval.py's unpadded one-pair calls.

    Args:
        model: Hub id or local directory.
        true_checks: Check GPU resources first and use bf16 (the ``true`` spec).
        batch_size: Most pairs per forward pass (None: by device).
        max_batch_tokens: Most padded input tokens per forward pass (None: by device).
        max_new_tokens: Greedy decoding length (eval.py: 10).

    """

    def __init__(
        self,
        model: str,
        *,
        true_checks: bool = False,
        batch_size: int | None = None,
        max_batch_tokens: int | None = None,
        max_new_tokens: int = 10,
    ) -> None:
        super().__init__(model, batch_size=batch_size, max_batch_tokens=max_batch_tokens)
        # `true` loads in bf16 on GPU, `seq2seq:` in the checkpoint's dtype: cached apart.
        self.identity = f"{'true' if true_checks else 'seq2seq'}:{self.model_name}"
        self.true_checks = true_checks
        self.max_new_tokens = max_new_tokens
        if true_checks:
            problem = true_resource_problem()
            # Only when the load will go ahead (too little GPU memory, or the CPU allowed):
            # where it will be refused, the refusal gives the same advice, once.
            if problem is not None and (cuda_available() or cpu_allowed()):
                logger.warning(true_resource_message(problem))

    def _load(self) -> tuple[Any, Any]:
        """With ``true_checks``, refuse before loading when no GPU can hold T5-11B."""
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        if self.true_checks and not cpu_allowed():
            problem = true_resource_problem()
            if problem is not None and not cuda_available():
                raise NLIResourceError(true_resource_message(problem))
        tokenizer = load_pretrained(AutoTokenizer, self.model_name)
        if cuda_available():
            dtype = torch.bfloat16 if self.true_checks else "auto"
            model = load_pretrained(
                AutoModelForSeq2SeqLM, self.model_name, dtype=dtype, device_map="auto"
            )
        else:
            model = load_pretrained(AutoModelForSeq2SeqLM, self.model_name, dtype=torch.float32)
        return tokenizer, model

    def bytes_per_token(self, model: Any) -> int:
        """The decoder's cross-attention keys and values, kept for every input token.

        1.5 MiB a token for T5-11B (24 layers x 2 x 128 heads x 128 x bf16): 48 GiB for a
        32k-token pass, more than twice the weights; plus the encoder's feed-forward activations.
        """
        config = model.config
        layers = getattr(config, "num_decoder_layers", None) or config.num_hidden_layers
        d_model = getattr(config, "d_model", None) or config.hidden_size
        inner = getattr(config, "num_heads", 0) * getattr(config, "d_kv", 0) or d_model
        d_ff = getattr(config, "d_ff", None) or 4 * d_model
        size = model.dtype.itemsize
        return int(layers * 2 * inner * size + 2 * d_ff * size)

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Decide a batch of pairs (blocking; runs in the batching thread)."""
        from inspect_cite.nli.greedy import ENTAILED

        return [NLIResult(text == ENTAILED) for text in self.answers(pairs)]

    def answers(self, pairs: list[Pair]) -> list[str]:
        """Each pair's greedy output, decoded until it is known to be "1" or not.

        The whole output where it is "1"; elsewhere possibly only its beginning (which is
        already not "1"), since decoding stops once every row of a batch is decided.
        """
        return self._greedy(pairs, until_decided=True)

    def generate(self, pairs: list[Pair]) -> list[str]:
        """The model's whole greedy output for each pair, decoded without special tokens."""
        return self._greedy(pairs, until_decided=False)

    def _greedy(self, pairs: list[Pair], *, until_decided: bool) -> list[str]:
        import torch
        from transformers import StoppingCriteriaList

        from inspect_cite.nli.greedy import UntilDecided

        tok, model = self.load()
        texts = [TRUE_TEMPLATE.format(premise=p, hypothesis=h) for p, h in pairs]
        # eval.py neither truncates nor batches; lengths only shape the batches here.
        ids = tok(texts, add_special_tokens=True)["input_ids"]
        decoded = [""] * len(pairs)

        def forward(batch: list[int]) -> None:
            enc = tok.pad(
                {"input_ids": [ids[i] for i in batch]}, padding=True, return_tensors="pt"
            ).to(model.device)
            stop = StoppingCriteriaList([UntilDecided(tok)] if until_decided else [])
            with torch.inference_mode():
                out = model.generate(
                    **enc,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                    num_beams=1,
                    stopping_criteria=stop,
                )
            answers = tok.batch_decode(out.tolist(), skip_special_tokens=True)
            for i, text in zip(batch, answers, strict=True):
                decoded[i] = text

        self.run_batched([len(x) for x in ids], forward)
        return decoded
