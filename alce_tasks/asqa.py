"""ALCE ASQA: long-form answers to ambiguous factoid questions, cited with [n]."""

from inspect_ai import Task, task

from alce_tasks.data import WikipediaRetriever
from alce_tasks.task import Strategy, TaskPrompt, alce_task
from inspect_cite.alce_prompts import UseShorter
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.retrieval import GTR_RETRIEVER
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS


@task
@accept_cli_values("-T")
# The shared parameters are documented once, at alce_task (D417 would restate them).
def asqa(  # noqa: D417
    retriever: WikipediaRetriever = "gtr",
    oracle: bool = False,
    ndoc: int | None = None,
    shot: int = 2,
    seed: int = 42,
    prompt: TaskPrompt = "default",
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

    ASQA takes ``qa`` and ``mauve`` besides the options every ALCE task shares, which
    :func:`alce_tasks.task.alce_task` documents.

    Args:
        retriever: Which retrieval results to read: `gtr` (GTR-large, the paper's) or `dpr`.

    """
    # Every parameter goes to the builder by keyword, as given.
    return alce_task(dataset="asqa", **locals())
