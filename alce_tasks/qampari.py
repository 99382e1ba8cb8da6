"""ALCE QAMPARI: comma-separated lists of entities, each cited with [n]."""

from typing import Literal

from inspect_ai import Task, task

from alce_tasks.task import Strategy, alce_task
from inspect_cite.alce_prompts import UseShorter
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.retrieval import GTR_RETRIEVER
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS


@task
@accept_cli_values("-T")
def qampari(
    retriever: Literal["gtr", "dpr"] = "gtr",
    oracle: bool = False,
    ndoc: int | None = None,
    shot: int = 2,
    seed: int = 42,
    prompt: Literal["default", "light_inst", "closedbook", "sum_or_ext"] = "default",
    use_shorter: UseShorter | None = None,
    dataset_path: str | None = None,
    prompt_file: str | None = None,
    nli: str = "true",
    strategy: Strategy = "vanilla",
    retrieval_model: str = GTR_RETRIEVER,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    """ALCE QAMPARI with ALCE's prompts, data and scoring.

    Example::

        inspect eval alce_tasks/qampari --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

    Args:
        retriever: Which retrieval results to read: `gtr` (GTR-large, the paper's) or `dpr`.
        oracle: Use ALCE's reranked oracle file (5 documents chosen for maximal answer recall).
        ndoc: Documents shown per question and per demonstration (default 5; the paper's 10
            for `summ`, `snippet` and `interact`, 0 for `closedbook`).
        shot: Number of demonstrations, drawn from the prompt file with `seed` as run.py does.
        seed: Seed for the demonstration draw (`np.random.seed` + `np.random.choice`).
        prompt: ALCE prompt variant (`closedbook` shows no documents; `sum_or_ext` shows
            each document's summary or extraction, see `use_shorter`).
        use_shorter: With `prompt=sum_or_ext`: `summary` (default) or `extraction`.
        dataset_path: An ALCE-format JSON list to use instead of the pinned download.
        prompt_file: An ALCE-format prompt file to use instead of the official one.
        nli: NLI model judging citations: `true` (ALCE's T5-11B TRUE model, needs a
            GPU with ~23 GB), `classifier:<hub id or dir>` (e.g. a DeBERTa-v3 MNLI model),
            `seq2seq:<hub id or dir>` (TRUE-format), `model:<model or role>` (an LLM asked
            yes/no) or `python:<module>:<fn>`. Decisions are cached on disk when
            `INSPECT_CITE_NLI_CACHE` names a SQLite file.
        strategy: How answers are generated: ALCE's baselines `vanilla`, `closedbook`,
            `summ`, `snippet`, `oracle`, `rerank`, `postcite`, `interact`, `inlinesearch`, or
            the FullCite names `prompt` (= vanilla), `constrained` (vanilla's prompt under a
            grammar allowing only [1]..[ndoc] after statements) and `posthoc` (POSTCITE after
            vanilla).
        retrieval_model: sentence-transformers model (hub id or local dir) with which
            `postcite`, `posthoc` and `inlinesearch` find documents (the paper: GTR-large).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            `enable_thinking` templates; default off, so that the answer gets ALCE's 300
            tokens). An answer cut inside `<think>` is scored nan ("no answer").
        thinking_tokens: With `thinking`, tokens added to `max_tokens` for the thinking.

    """
    return alce_task(
        "qampari",
        retriever,
        oracle,
        ndoc,
        shot,
        seed,
        prompt,
        use_shorter,
        dataset_path,
        prompt_file,
        nli,
        strategy=strategy,
        retrieval_model=retrieval_model,
        thinking=thinking,
        thinking_tokens=thinking_tokens,
    )
