"""ALCE ASQA: long-form answers to ambiguous factoid questions, cited with [n]."""

from typing import Literal

from inspect_ai import Task, task

from alce_tasks.task import Strategy, alce_task
from inspect_cite.alce_prompts import UseShorter
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.retrieval import GTR_RETRIEVER
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS


@task
@accept_cli_values("-T")
def asqa(
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
    qa: bool = False,
    qa_model: str = "gaotianyu1350/roberta-large-squad",
    mauve: bool = False,
    mauve_model: str = "gpt2-large",
    mauve_seeds: int = 1,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    """ALCE ASQA with ALCE's prompts, data and scoring.

    Example::

        inspect eval alce_tasks/asqa --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

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
        qa: Add eval.py's QA accuracy (QA-EM, QA-F1, QA-Hit): an extractive QA model
            answers each disambiguated question from the output.
        qa_model: The QA model (hub id or local dir; eval.py's by default).
        mauve: Add MAUVE fluency (x100), as eval.py's `--mauve`.
        mauve_model: Causal LM whose features MAUVE compares (hub id or local dir).
        mauve_seeds: k-means seeds to report MAUVE's spread over (1 = ALCE's).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            `enable_thinking` templates; default off, so that the answer gets ALCE's 300
            tokens). An answer cut inside `<think>` is scored nan ("no answer").
        thinking_tokens: With `thinking`, tokens added to `max_tokens` for the thinking.

    """
    return alce_task(
        "asqa",
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
        qa=qa,
        qa_model=qa_model,
        mauve=mauve,
        mauve_model=mauve_model,
        mauve_seeds=mauve_seeds,
        thinking=thinking,
        thinking_tokens=thinking_tokens,
    )
