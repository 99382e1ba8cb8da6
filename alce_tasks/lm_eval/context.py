"""Which ALCE prompts lm-eval's model cuts, so that their samples are nan as in Inspect.

lm-eval's ``hf`` and ``vllm`` models keep the last ``max_length - max_gen_toks`` tokens of a
longer prompt ("Left truncation applied"): the instruction and the first demonstrations are
lost and the answer comes from another prompt than ALCE's. The Inspect tasks (``-T
chat=false``, as run.py) keep every prompt whole, and a prompt that leaves no room for an
answer is nan with the reason. Here the tasks count each prompt's tokens as lm-eval's ``hf``
model does, from the model arguments lm-eval passes to the tasks with ``--metadata``
(``pretrained``, ``tokenizer``, ``max_length`` or ``max_model_len``, ``add_bos_token``,
``revision``, ``trust_remote_code``), so that a sample whose prompt was cut is nan with the
reason too, never the score of an answer to half a prompt.
"""

import logging
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ContextLimit:
    """How lm-eval's model counts a prompt, and its context length.

    Args:
        max_length: The model's context length as lm-eval resolves it.
        tokenizer: The model's tokenizer.
        add_bos_token: ``--model_args add_bos_token``; None: the tokenizer's default.

    """

    max_length: int
    tokenizer: Any
    add_bos_token: bool | None = None

    def count(self, prompt: str) -> int:
        """The prompt's tokens as lm-eval's ``hf`` model encodes it before cutting."""
        bos = getattr(self.tokenizer, "bos_token", None)
        if bos is not None and prompt.startswith(bos):
            kwargs: dict[str, Any] = {"add_special_tokens": False}
        elif self.add_bos_token is not None:
            kwargs = {"add_special_tokens": self.add_bos_token}
        else:
            kwargs = {}
        return len(self.tokenizer(prompt, **kwargs)["input_ids"])


def _flag(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    return str(value).strip().lower() == "true"


def context_limit(options: dict[str, Any]) -> ContextLimit | None:
    """The context of the model lm-eval loaded, from the model arguments in ``options``.

    ``lm_eval run`` adds ``--model_args`` to the metadata the tasks get. Returns None (and logs
    why) when they name no model this can read: an API model, or a model object passed to
    ``simple_evaluate``; prompts are then not checked.

    Args:
        options: The task's metadata (``--model_args`` and ``--metadata`` merged).

    """
    pretrained = options.get("pretrained")
    if not isinstance(pretrained, str):
        # Said as a warning where --model_args name a model this cannot read (an API model);
        # without model arguments (a model object, `inspect-cite lm-eval-check`) only noted.
        named = any(key in options for key in ("model", "base_url", "tokenizer"))
        logger.log(
            logging.WARNING if named else logging.INFO,
            "ALCE lm-eval tasks: prompt lengths are not checked against the model's context "
            "(no pretrained in --model_args): a prompt the model cuts is scored as answered",
        )
        return None
    from lm_eval.models.utils import DEFAULT_MAX_LENGTH, resolve_max_length
    from transformers import AutoConfig, AutoTokenizer

    source = options.get("tokenizer") if isinstance(options.get("tokenizer"), str) else pretrained
    hub: dict[str, Any] = {"trust_remote_code": bool(_flag(options.get("trust_remote_code")))}
    if isinstance(options.get("revision"), str):
        hub["revision"] = options["revision"]
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **hub)
        given = options.get("max_length") or options.get("max_model_len")
        if given:
            max_length = int(given)
        else:
            config = AutoConfig.from_pretrained(pretrained, **hub)
            max_length = resolve_max_length(config, tokenizer, default=DEFAULT_MAX_LENGTH)
    except Exception as e:  # the model loaded already: this is a warning, not a refusal
        logger.warning(
            f"ALCE lm-eval tasks: prompt lengths are not checked ({type(e).__name__}: {e})"
        )
        return None
    return ContextLimit(max_length, tokenizer, _flag(options.get("add_bos_token")))


def cut_reason(prompt_tokens: int | None, max_length: int | None, max_gen_toks: int) -> str | None:
    """Why lm-eval's model saw only part of the prompt, or None when it saw all of it.

    Args:
        prompt_tokens: The prompt's tokens (None: not counted).
        max_length: The model's context length (None: unknown).
        max_gen_toks: The tokens lm-eval keeps free for the answer (the task's, or
            ``--gen_kwargs max_gen_toks``).

    """
    if prompt_tokens is None or max_length is None:
        return None
    kept = max_length - max_gen_toks
    if prompt_tokens <= kept:
        return None
    return (
        f"lm-eval cut the prompt ({prompt_tokens} tokens) to its last {kept} (max_length "
        f"{max_length} - max_gen_toks {max_gen_toks}); run.py keeps a prompt whole, so this "
        "answer is to another prompt"
    )
