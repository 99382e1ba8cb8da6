r"""MiniCheck's grounding judges as an NLI spec: ``minicheck:<hub id or dir>[#<options>]``.

Scores each (document, claim) pair as MiniCheck's own inference code does, at
Liyan06/MiniCheck commit ``b58b9fa69acbd1015ec970fa65dd752413a053d2`` (``minicheck/inference.py``
and ``minicheck/minicheck.py``), for its four model families:

- ``roberta-large`` and ``deberta-v3-large`` (sequence classifiers, MiniCheck-RoBERTa-Large and
  MiniCheck-DeBERTa-v3-Large): documents chunked by tokens (400 a chunk), each chunk and the
  claim joined into one string by the tokenizer's ``eos_token`` (``</s>``, ``[SEP]``), truncated
  from the end at 512 or 2048 tokens; support = softmax of label 1;
- ``flan-t5-large`` (MiniCheck-Flan-T5-Large): chunked by words (500 a chunk), input
  ``"predict: " + chunk + eos + claim`` truncated at 2048 tokens, one decoder step from token 0;
  support = softmax over the logits of token ids 3 and 209, the second;
- ``bespoke-minicheck-7b`` (Bespoke-MiniCheck-7B, InternLM2, any ``*ForCausalLM``): chunked by
  tokens (``max_model_len - 300``, 32468 by default); the claim is split into nltk sentences, and
  each (chunk, sentence) is asked with MiniCheck's system and user prompts through the
  tokenizer's chat template, the rendered text tokenized again with special tokens, as vLLM
  tokenizes a text prompt (a template that writes ``<s>`` gets a second one); support = the sum
  of the probabilities of the top-5 next tokens that read "yes" (any case), each token read as
  vLLM 0.32 reads it (``decode([id])`` with the leading spaces of its SentencePiece piece put
  back: ``"▁Yes"`` reads " Yes" and does not count, ``"Yes"`` does); a pair's support is the
  min over the claim's sentences of the max over chunks.

For every family the document is split as MiniCheck splits it, even when it fits one chunk:
per line, each line into nltk sentences with a ``"\n"`` entry between lines, sentences packed
greedily into chunks joined by spaces, then ``" \n "`` replaced by ``"\n"``, stripped, and empty
chunks dropped. The classifier and Flan-T5 families take the max support over chunks; every
family decides "supported" when its support is above 0.5 (strictly).

Where MiniCheck's code fails, this module decides instead, as MiniCheck's own 7B code path does:
a document without text (no chunk; the classifier and Flan-T5 code raises) is one empty chunk,
and a 7B claim without an nltk sentence (the code raises) is judged whole.

Computed in float32, on CPU (or a GPU when one is present; float32 still). The 7B family's
system and user prompts are MiniCheck's text, read at run time from ``minicheck/utils.py`` at the
pinned commit (downloaded once, checked against its git blob id, cached), or from the file
``$INSPECT_CITE_MINICHECK_PROMPTS`` names (same form: ``SYSTEM_PROMPT = "..."``,
``USER_PROMPT = "..."``; parsed, never executed).
"""

import ast
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_cite.nli.base import NLIConfigError, NLIResult, Pair
from inspect_cite.nli.fingerprint import FileDigest, model_fingerprint
from inspect_cite.nli.hf import LazyModel, cuda_available, load_pretrained

MINICHECK_REPO = "Liyan06/MiniCheck"
MINICHECK_COMMIT = "b58b9fa69acbd1015ec970fa65dd752413a053d2"
"""The commit of MiniCheck's inference code this module follows."""

PROMPTS_ENV = "INSPECT_CITE_MINICHECK_PROMPTS"
"""A file to read the 7B family's prompts from instead of MiniCheck's ``minicheck/utils.py``."""

Family = Literal["roberta-large", "deberta-v3-large", "flan-t5-large", "bespoke-minicheck-7b"]
FAMILIES: tuple[Family, ...] = get_args(Family)

FAMILY_NAMES: dict[str, Family] = {
    "roberta-large": "roberta-large",
    "roberta": "roberta-large",
    "deberta-v3-large": "deberta-v3-large",
    "deberta": "deberta-v3-large",
    "flan-t5-large": "flan-t5-large",
    "flan-t5": "flan-t5-large",
    "bespoke-minicheck-7b": "bespoke-minicheck-7b",
    "7b": "bespoke-minicheck-7b",
}
"""The ``#<family>`` names (case-insensitive): MiniCheck's ``model_name``s and short forms."""

DEFAULT_MAX_MODEL_LEN: dict[Family, int] = {
    "roberta-large": 512,
    "deberta-v3-large": 2048,
    "flan-t5-large": 2048,
    "bespoke-minicheck-7b": 32768,
}
DEFAULT_CHUNK_SIZE: dict[Family, int] = {
    "roberta-large": 400,
    "deberta-v3-large": 400,
    "flan-t5-large": 500,
}
"""Tokens (words for Flan-T5) a chunk; the 7B family's is ``max_model_len - 300``."""

SEVEN_B_RESERVE = 300
"""Tokens MiniCheck's 7B default chunk size leaves for the prompt and the claim."""

THRESHOLD = 0.5
"""Supported when the support probability is above this (MiniCheck: ``prob > 0.5``)."""

FLAN_T5_LABEL_IDS = (3, 209)
"""MiniCheck-Flan-T5's ("no support", "support") token ids, read at the first decoder step."""

TOP_LOGPROBS = 5
"""The 7B family's support sums over this many most likely next tokens (vLLM ``logprobs=5``)."""

OPTIONS = "#<family>, #chunk_size=N, #max_model_len=N (comma-separated after one #)"


@dataclass(frozen=True)
class MiniCheckSpec:
    """A parsed ``minicheck:`` argument.

    Attributes:
        model: Hub id or local directory.
        family: The family named after ``#``, or None (read from ``config.json``).
        chunk_size: ``chunk_size=N`` (None: the family's default).
        max_model_len: ``max_model_len=N`` (None: the family's default).

    """

    model: str
    family: Family | None = None
    chunk_size: int | None = None
    max_model_len: int | None = None


def parse_minicheck(arg: str) -> MiniCheckSpec:
    """Split ``<model>[#<options>]``: a family name, ``chunk_size=N``, ``max_model_len=N``.

    A local path that exists is taken whole (it may hold ``#``).

    Raises:
        NLIConfigError: For an unknown option or a value that is not a positive integer.

    """
    arg = arg.strip()
    model, sep, options = arg.rpartition("#")
    if not sep or Path(arg).expanduser().exists():
        return MiniCheckSpec(arg)
    model = model.strip()
    if not model:
        raise NLIConfigError(f"minicheck:{arg}: no model before '#'")
    family: Family | None = None
    sizes: dict[str, int] = {}
    for item in options.split(","):
        item = item.strip()
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq:
            if key not in FAMILY_NAMES or family is not None:
                raise NLIConfigError(
                    f"minicheck:{arg}: unknown option {item!r}; after '#' give {OPTIONS}, "
                    f"family one of {', '.join(FAMILIES)}"
                )
            family = FAMILY_NAMES[key]
            continue
        if key not in ("chunk_size", "max_model_len") or key in sizes:
            raise NLIConfigError(
                f"minicheck:{arg}: unknown option {item!r}; after '#' give {OPTIONS}"
            )
        if not re.fullmatch(r"\s*[0-9]+\s*", value) or int(value) < 1:
            raise NLIConfigError(
                f"minicheck:{arg}: {key} must be a positive integer, got {value!r}"
            )
        sizes[key] = int(value)
    return MiniCheckSpec(model, family, sizes.get("chunk_size"), sizes.get("max_model_len"))


def detect_family(config: Mapping[str, Any]) -> Family | None:
    """The family a model's ``config.json`` names, or None when it cannot be told.

    Any ``*ForCausalLM`` architecture is the 7B family; a T5 is Flan-T5; a RoBERTa or a
    DeBERTa (``model_type`` ``roberta``, ``deberta-v2``, ``deberta``) is that classifier family.
    """
    architectures = [str(a) for a in config.get("architectures") or []]
    model_type = str(config.get("model_type") or "")
    if any(a.endswith("ForCausalLM") for a in architectures):
        return "bespoke-minicheck-7b"
    if model_type in ("t5", "mt5", "umt5") or any(a.startswith("T5") for a in architectures):
        return "flan-t5-large"
    if model_type == "roberta" or any(a.startswith("Roberta") for a in architectures):
        return "roberta-large"
    if model_type in ("deberta-v2", "deberta") or any(
        a.startswith("Deberta") for a in architectures
    ):
        return "deberta-v3-large"
    return None


def read_model_config(model: str) -> dict[str, Any]:
    """A local folder's or a hub model's ``config.json`` (a hub one from its cache if there).

    Raises:
        NLIConfigError: When it is missing or unreadable.

    """
    from inspect_cite.checks.models import looks_like_path

    path = Path(model).expanduser()
    if looks_like_path(model) and not path.is_dir():
        raise NLIConfigError(f"{path} is not a model directory")
    if path.is_dir():
        file = path / "config.json"
        if not file.is_file():
            raise NLIConfigError(f"no config.json in {path} (not a transformers model)")
    else:
        from huggingface_hub import hf_hub_download, try_to_load_from_cache

        try:
            cached = try_to_load_from_cache(model, "config.json")
            file = Path(
                cached if isinstance(cached, str) else hf_hub_download(model, "config.json")
            )
        except Exception as e:  # the hub's errors and network failures alike
            raise NLIConfigError(
                f"cannot read {model}'s config.json ({type(e).__name__}: {e})"
            ) from e
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise NLIConfigError(f"{file} is unreadable ({type(e).__name__}: {e})") from e
    if not isinstance(data, dict):
        raise NLIConfigError(f"{file} is not a JSON object")
    return data


@dataclass(frozen=True)
class Settings:
    """A spec's family and sizes, resolved."""

    family: Family
    chunk_size: int
    max_model_len: int


def resolve(spec: MiniCheckSpec, config: Mapping[str, Any] | None = None) -> Settings:
    """The family (named, else from ``config``) and the sizes (given, else its defaults).

    Raises:
        NLIConfigError: When the family cannot be told, or a 7B chunk leaves no room for the claim.

    """
    family = spec.family
    if family is None:
        family = detect_family(config if config is not None else read_model_config(spec.model))
    if family is None:
        cfg = config or {}
        what = ", ".join(str(a) for a in cfg.get("architectures") or []) or "none"
        raise NLIConfigError(
            f"cannot tell the MiniCheck family from config.json (architectures: {what}, "
            f"model_type: {cfg.get('model_type')}); name it after '#': "
            f"minicheck:{spec.model}#<family>, family one of {', '.join(FAMILIES)}"
        )
    max_len = spec.max_model_len or DEFAULT_MAX_MODEL_LEN[family]
    if family == "bespoke-minicheck-7b":
        chunk = spec.chunk_size or max_len - SEVEN_B_RESERVE
        if chunk >= max_len or chunk < 1:
            raise NLIConfigError(
                f"chunk_size ({chunk}) must be less than max_model_len "
                f"({max_len}), leaving room for the claim (MiniCheck refuses it too)"
            )
    else:
        chunk = spec.chunk_size or DEFAULT_CHUNK_SIZE[family]
    return Settings(family, chunk, max_len)


# --- MiniCheck's document split -----------------------------------------------------------


def document_sentences(document: str) -> list[str]:
    r"""Each line's nltk sentences, a ``"\n"`` entry between lines (``[""]`` when none)."""
    from inspect_cite.text.punkt import import_nltk

    import_nltk()  # nltk without scikit-learn and SciPy (inspect_cite.text.punkt)
    from nltk.tokenize import sent_tokenize

    from inspect_cite.text.punkt import ensure_punkt

    ensure_punkt()
    sentences: list[str] = []
    for i, line in enumerate(document.split("\n")):
        if i:
            sentences.append("\n")
        sentences.extend(sent_tokenize(line))
    return sentences or [""]


def pack_chunks(sentences: list[str], lengths: list[int], chunk_size: int) -> list[str]:
    r"""MiniCheck's greedy packing of sentences into chunks, the join, its repair and filter.

    A sentence joins the current chunk while the chunk's total length stays within
    ``chunk_size``; otherwise the current chunk is closed (even an empty one, which is dropped
    below) and the sentence starts the next. Chunks are joined by spaces, ``" \n "`` becomes
    ``"\n"``, then each is stripped and empty ones are dropped.
    """
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for sentence, length in zip(sentences, lengths, strict=True):
        if count + length > chunk_size:
            chunks.append(" ".join(current))
            current, count = [sentence], length
        else:
            current.append(sentence)
            count += length
    if current:
        chunks.append(" ".join(current))
    repaired = [chunk.replace(" \n ", "\n").strip() for chunk in chunks]
    return [chunk for chunk in repaired if chunk != ""]


# --- the 7B family's prompts ---------------------------------------------------------------


@dataclass(frozen=True)
class Prompts:
    """The 7B family's system and user prompts and where they were read."""

    system: str
    user: str
    path: Path


def _pinned_prompt_file() -> Any:
    from inspect_cite.downloads.hub_files import PinnedGitHubFile

    return PinnedGitHubFile(
        repo=MINICHECK_REPO,
        commit=MINICHECK_COMMIT,
        path="minicheck/utils.py",
        git_blob="b331142464427eb6421426e9450580464414c8fd",
    )


def prompts_path() -> Path:
    """The file the 7B prompts are read from: ``$INSPECT_CITE_MINICHECK_PROMPTS`` or MiniCheck's.

    Raises:
        NLIConfigError: When the override does not exist, or MiniCheck's file is neither cached
            nor downloadable.

    """
    override = os.environ.get(PROMPTS_ENV, "").strip()
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise NLIConfigError(f"{PROMPTS_ENV}={override}: no such file")
        return path
    from inspect_cite.downloads.cache import cache_dir
    from inspect_cite.downloads.hub_files import cached_pinned_file

    return cached_pinned_file(
        _pinned_prompt_file(),
        cache_dir("minicheck", MINICHECK_COMMIT),
        NLIConfigError,
        name="MiniCheck's prompt file",
        flag=PROMPTS_ENV,
    )


def read_prompts(path: Path) -> Prompts:
    """``SYSTEM_PROMPT`` and ``USER_PROMPT`` string assignments of a Python file (not executed).

    Raises:
        NLIConfigError: When the file is unreadable or lacks either.

    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError) as e:
        raise NLIConfigError(f"MiniCheck prompt file {path} is unreadable ({e})") from e
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found[node.targets[0].id] = node.value.value
    missing = [name for name in ("SYSTEM_PROMPT", "USER_PROMPT") if name not in found]
    if missing:
        raise NLIConfigError(
            f"MiniCheck prompt file {path} has no {' or '.join(missing)} string "
            f'(it needs SYSTEM_PROMPT = "..." and USER_PROMPT = "...[DOCUMENT]...[CLAIM]...")'
        )
    return Prompts(found["SYSTEM_PROMPT"], found["USER_PROMPT"], path)


def user_message(template: str, document: str, claim: str) -> str:
    """MiniCheck's replacements, in its order: a ``[CLAIM]`` in the document is replaced too."""
    return template.replace("[DOCUMENT]", document).replace("[CLAIM]", claim)


# --- reading a token as vLLM 0.32 reports it -----------------------------------------------


def leading_space_marker(tokenizer: Any) -> str | None:
    """The Metaspace replacement character of a fast tokenizer's pre-tokenizer, or None."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    try:
        pre = json.loads(backend.to_str()).get("pre_tokenizer") or {}
    except Exception:  # a backend that cannot describe itself has no marker to restore
        return None
    for part in (
        [pre, *(pre.get("pretokenizers") or [])] if pre.get("type") == "Sequence" else [pre]
    ):
        if isinstance(part, dict) and part.get("type") == "Metaspace":
            return str(part.get("replacement", "▁"))
    return None


def token_text(tokenizer: Any, token_id: int, marker: str | None) -> str:
    """A next token's text as vLLM 0.32 reports it in ``logprobs`` (``decoded_token``).

    ``decode([id])``, with the leading spaces that decode dropped from a SentencePiece piece put
    back (``"▁Yes"`` -> ``" Yes"``).
    """
    text = tokenizer.decode([token_id]) or ""
    if marker is None:
        return str(text)
    raw = tokenizer.convert_ids_to_tokens(token_id) or ""
    markers = len(raw) - len(raw.lstrip(marker))
    present = len(text) - len(text.lstrip(" "))
    return " " * (markers - present) + text if markers > present else str(text)


# --- the backend ---------------------------------------------------------------------------


class MiniCheckNLI(LazyModel):
    """MiniCheck's support probability and decision for (document, claim) pairs.

    The (chunk, claim) rows of every pair in a call (for the 7B family, (chunk, claim
    sentence)) are tokenized once, deduplicated, and run in batches of similar length;
    each pair's probability is then aggregated as MiniCheck does.

    Args:
        arg: What follows ``minicheck:``: ``<hub id or dir>[#<options>]``.
        batch_size: Most rows per forward pass (None: by device).
        max_batch_tokens: Most padded tokens per forward pass (None: by device).

    Raises:
        NLIConfigError: When the spec is malformed or the family cannot be told.

    """

    def __init__(
        self, arg: str, *, batch_size: int | None = None, max_batch_tokens: int | None = None
    ) -> None:
        spec = parse_minicheck(arg)
        super().__init__(spec.model, batch_size=batch_size, max_batch_tokens=max_batch_tokens)
        settings = resolve(spec, None if spec.family else read_model_config(self.model_name))
        self.family = settings.family
        self.chunk_size = settings.chunk_size
        self.max_model_len = settings.max_model_len
        self.identity = (
            f"minicheck:{self.model_name}#{self.family},chunk_size={self.chunk_size},"
            f"max_model_len={self.max_model_len}"
        )
        self._prompts: Prompts | None = None
        self._yes: dict[int, bool] = {}
        self._marker: str | None = None

    @property
    def causal(self) -> bool:
        """Whether this is the 7B (causal LM) family."""
        return self.family == "bespoke-minicheck-7b"

    def prompts(self) -> Prompts:
        """The 7B family's prompts (read once)."""
        if self._prompts is None:
            self._prompts = read_prompts(prompts_path())
        return self._prompts

    def fingerprint(self, digest: FileDigest) -> str:
        """The model's content (or hub revision), and for the 7B family its prompt file's."""
        model = model_fingerprint(self.model_name, digest)
        if not self.causal:
            return model
        return f"{model}+prompts:sha256:{digest(self.prompts().path.resolve())}"

    def preload(self, *, tokenizer: Any, model: Any) -> None:
        """Use an already built tokenizer and model (benchmarks); reads its token marker."""
        self._marker = leading_space_marker(tokenizer)
        super().preload(tokenizer=tokenizer, model=model)

    def _load(self) -> tuple[Any, Any]:
        import torch
        from transformers import (
            AutoModelForCausalLM,
            AutoModelForSeq2SeqLM,
            AutoModelForSequenceClassification,
            AutoTokenizer,
        )

        # float32 everywhere (MiniCheck's 7B code picks bf16 on a GPU): a GPU only adds speed.
        kwargs: dict[str, Any] = {"dtype": torch.float32}
        if cuda_available():
            kwargs["device_map"] = "auto"
        if self.causal:
            self.prompts()
            # The 7B model is InternLM2, whose code ships with the checkpoint (MiniCheck loads
            # it with trust_remote_code); a folder without such code loads as usual.
            remote = _has_remote_code(self.model_name)
            tokenizer = load_pretrained(AutoTokenizer, self.model_name, trust_remote_code=remote)
            if not getattr(tokenizer, "chat_template", None):
                raise NLIConfigError(
                    f"minicheck:{self.model_name}: its tokenizer has no chat template "
                    "(MiniCheck's 7B prompt is rendered with it)"
                )
            model = load_pretrained(
                AutoModelForCausalLM, self.model_name, trust_remote_code=remote, **kwargs
            )
            self._marker = leading_space_marker(tokenizer)
        else:
            tokenizer = load_pretrained(AutoTokenizer, self.model_name)
            for role in ("eos_token", "pad_token"):
                if getattr(tokenizer, role, None) is None:
                    use = "joins document and claim with" if role == "eos_token" else "pads with"
                    raise NLIConfigError(
                        f"minicheck:{self.model_name}: its tokenizer has no {role} "
                        f"(MiniCheck {use} it)"
                    )
            if self.family == "flan-t5-large":
                model = load_pretrained(AutoModelForSeq2SeqLM, self.model_name, **kwargs)
            else:
                model = load_pretrained(
                    AutoModelForSequenceClassification, self.model_name, num_labels=2, **kwargs
                )
        return tokenizer, model

    # -- chunks ----------------------------------------------------------------------------

    def document_chunks(self, documents: list[str]) -> dict[str, list[str]]:
        """Each document's chunks, as MiniCheck makes them (an empty document: one empty chunk)."""
        tok, _ = self.load()
        split = {doc: document_sentences(doc) for doc in documents}
        flat = list(dict.fromkeys(s for sentences in split.values() for s in sentences))
        if self.family == "flan-t5-large":
            sizes = {s: len(s.split()) for s in flat}
        else:
            # The classifiers count a sentence's tokens capped at max_model_len; the 7B code
            # does not cap.
            cap: dict[str, Any] = (
                {} if self.causal else {"max_length": self.max_model_len, "truncation": True}
            )
            ids = tok(flat, add_special_tokens=False, **cap)["input_ids"] if flat else []
            sizes = {s: len(x) for s, x in zip(flat, ids, strict=True)}
        chunks = {}
        for doc, sentences in split.items():
            packed = pack_chunks(sentences, [sizes[s] for s in sentences], self.chunk_size)
            chunks[doc] = packed or [""]
        return chunks

    # -- rows ------------------------------------------------------------------------------

    def _row_ids(self, tok: Any, rows: list[tuple[str, str]]) -> list[list[int]]:
        """Each (chunk, claim or claim sentence) row's input ids, as MiniCheck builds them."""
        if self.causal:
            prompts = self.prompts()
            texts = []
            for chunk, sentence in rows:
                messages = [
                    {"role": "system", "content": prompts.system},
                    {"role": "user", "content": user_message(prompts.user, chunk, sentence)},
                ]
                texts.append(
                    tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
                )
            # vLLM tokenizes a text prompt with add_special_tokens=True: a template that
            # already wrote <s> gets a second one.
            return [list(x) for x in tok(texts, add_special_tokens=True)["input_ids"]]
        prefix = "predict: " if self.family == "flan-t5-large" else ""
        texts = [prefix + tok.eos_token.join([chunk, claim]) for chunk, claim in rows]
        encoded = tok(texts, max_length=self.max_model_len, truncation=True)
        return [list(x) for x in encoded["input_ids"]]

    def support(self, rows: list[tuple[str, str]]) -> list[float]:
        """Each row's support probability (one chunk against the claim or a claim sentence)."""
        import torch

        tok, model = self.load()
        ids = self._row_ids(tok, rows)
        probs = [0.0] * len(rows)

        def forward(batch: list[int]) -> None:
            width = max(len(ids[i]) for i in batch)
            # Right-padded by hand: a causal row's last real token is then at its own length,
            # with positions 0..n-1 as unpadded; the encoders mask the padding.
            pad = tok.pad_token_id if tok.pad_token_id is not None else 0
            input_ids = torch.tensor(
                [ids[i] + [pad] * (width - len(ids[i])) for i in batch], device=model.device
            )
            mask = torch.tensor(
                [[1] * len(ids[i]) + [0] * (width - len(ids[i])) for i in batch],
                device=model.device,
            )
            with torch.inference_mode():
                if self.causal:
                    values = self._causal_support(tok, model, input_ids, mask, batch, ids)
                elif self.family == "flan-t5-large":
                    start = torch.zeros((len(batch), 1), dtype=torch.long, device=model.device)
                    logits = model(
                        input_ids=input_ids, attention_mask=mask, decoder_input_ids=start
                    ).logits[:, 0, list(FLAN_T5_LABEL_IDS)]
                    values = torch.softmax(logits.float(), dim=-1)[:, 1].tolist()
                else:
                    logits = model(input_ids=input_ids, attention_mask=mask).logits
                    values = torch.softmax(logits.float(), dim=1)[:, 1].tolist()
            for i, value in zip(batch, values, strict=True):
                probs[i] = float(value)

        self.run_batched([len(x) for x in ids], forward)
        return probs

    def _causal_support(
        self,
        tok: Any,
        model: Any,
        input_ids: Any,
        mask: Any,
        batch: list[int],
        ids: list[list[int]],
    ) -> list[float]:
        """Sum of the top-5 next-token probabilities whose text reads "yes", per row."""
        import math

        import torch

        # The base model's last hidden state, then the output layer on each row's last token
        # only: the logits of every position would be (rows x tokens x vocabulary) floats.
        hidden = model.base_model(input_ids=input_ids, attention_mask=mask, use_cache=False)[0]
        last = torch.tensor([len(ids[i]) - 1 for i in batch], device=hidden.device)
        states = hidden[torch.arange(len(batch), device=hidden.device), last]
        logits = model.get_output_embeddings()(states).float()
        top = torch.log_softmax(logits, dim=-1).topk(TOP_LOGPROBS, dim=-1)
        values = []
        for logprobs, token_ids in zip(top.values.tolist(), top.indices.tolist(), strict=True):
            values.append(
                sum(
                    math.exp(lp)
                    for lp, t in zip(logprobs, token_ids, strict=True)
                    if self._is_yes(tok, t)
                )
            )
        return values

    def _is_yes(self, tok: Any, token_id: int) -> bool:
        known = self._yes.get(token_id)
        if known is None:
            known = self._yes[token_id] = token_text(tok, token_id, self._marker).lower() == "yes"
        return known

    # -- pairs -----------------------------------------------------------------------------

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Decide a batch of (document, claim) pairs (blocking; runs in the batching thread)."""
        chunks = self.document_chunks(list(dict.fromkeys(doc for doc, _ in pairs)))
        rows: dict[tuple[str, str], int] = {}
        # Per pair, per claim part (the claim, or each 7B claim sentence): its rows' indices.
        plan: list[list[list[int]]] = []
        for doc, claim in pairs:
            parts = claim_sentences(claim) if self.causal else [claim]
            plan.append(
                [[rows.setdefault((c, part), len(rows)) for c in chunks[doc]] for part in parts]
            )
        probs = self.support(list(rows))
        results: list[NLIResult | Exception] = []
        for pair_rows in plan:
            score = min(max(probs[i] for i in part) for part in pair_rows)
            score = min(1.0, max(0.0, score))
            results.append(NLIResult(score > THRESHOLD, score))
        return results


def claim_sentences(claim: str) -> list[str]:
    """The 7B family's claim parts: nltk sentences (the claim whole when it has none)."""
    from inspect_cite.text.punkt import import_nltk

    import_nltk()  # nltk without scikit-learn and SciPy (inspect_cite.text.punkt)
    from nltk.tokenize import sent_tokenize

    from inspect_cite.text.punkt import ensure_punkt

    ensure_punkt()
    return sent_tokenize(claim) or [claim]


def _has_remote_code(model: str) -> bool:
    """Whether the model's config or tokenizer config maps classes to code of its own."""
    path = Path(model).expanduser()
    files: list[Path] = []
    if path.is_dir():
        files = [path / "config.json", path / "tokenizer_config.json"]
    else:
        from huggingface_hub import try_to_load_from_cache

        for name in ("config.json", "tokenizer_config.json"):
            cached = try_to_load_from_cache(model, name)
            if isinstance(cached, str):
                files.append(Path(cached))
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("auto_map"):
            return True
    return False


# --- preflight -----------------------------------------------------------------------------


def minicheck_problem(arg: str, flag: str) -> str | None:
    """Why ``minicheck:<arg>`` cannot be used here, one line with the fix; or None. Loads nothing.

    Args:
        arg: What follows ``minicheck:``.
        flag: How the user gave the spec (``-T nli``), for the fix.

    """
    from inspect_cite.checks.models import ModelKind, model_problem

    try:
        spec = parse_minicheck(arg)
    except NLIConfigError as e:
        return str(e)
    fix = f"give a MiniCheck model folder or hub id ({flag}=minicheck:DIR)"
    path = Path(spec.model).expanduser()
    problem = model_problem(spec.model, "any")
    if problem is not None:
        return f"{problem}; {fix}"
    try:
        config = read_model_config(spec.model)
        settings = resolve(spec, config)
    except NLIConfigError as e:
        return str(e)
    kinds: dict[Family, ModelKind] = {
        "flan-t5-large": "seq2seq",
        "bespoke-minicheck-7b": "causal-lm",
    }
    kind = kinds.get(settings.family, "any")
    if kind != "any" and (problem := model_problem(spec.model, kind)) is not None:
        return (
            f"{problem} (MiniCheck family {settings.family}); {fix}, or name its family after '#'"
        )
    if settings.family in ("roberta-large", "deberta-v3-large"):
        architectures = [str(a) for a in config.get("architectures") or []]
        if architectures and not any(
            a.endswith("ForSequenceClassification") for a in architectures
        ):
            # Loaded as a classifier, it would get a random classification layer.
            return (
                f"a {', '.join(architectures)}, not a sequence classifier; MiniCheck's "
                f"{settings.family} is one"
            )
        labels = config.get("id2label") or {}
        if labels and len(labels) != 2:
            return (
                f"a classifier with {len(labels)} labels; MiniCheck's {settings.family} has 2 "
                "(not supported, supported)"
            )
    if settings.family == "bespoke-minicheck-7b":
        if path.is_dir() and not _chat_template_in(path):
            return (
                f"no chat template in {path} (tokenizer_config.json chat_template or "
                "chat_template.jinja); MiniCheck's 7B prompt is rendered with it"
            )
        try:
            read_prompts(prompts_path())
        except NLIConfigError as e:
            return str(e).replace("\n", " ")
    return None


def _chat_template_in(directory: Path) -> bool:
    if any((directory / name).is_file() for name in ("chat_template.jinja", "chat_template.json")):
        return True
    try:
        data = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("chat_template"))
