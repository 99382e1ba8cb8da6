"""ALCE ELI5: explanatory answers to Reddit questions, cited with [n]."""

from inspect_ai import Task, task

from alce_tasks.data import SphereRetriever
from alce_tasks.task import Strategy, TaskPrompt, alce_task
from inspect_cite.alce_prompts import UseShorter
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.retrieval import GTR_RETRIEVER
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS


@task
@accept_cli_values("-T")
# The shared parameters are documented once, at alce_task (D417 would restate them).
def eli5(  # noqa: D417
    retriever: SphereRetriever = "bm25",
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
    mauve: bool = False,
    mauve_model: str = "gpt2-large",
    mauve_seeds: int = 1,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    """ALCE ELI5 with ALCE's prompts, data and scoring.

    Example::

        inspect eval alce_tasks/eli5 --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

    ELI5 adds claim coverage by NLI and takes ``mauve`` (no ``qa``); the shared options are
    documented at :func:`alce_tasks.task.alce_task`.

    Args:
        retriever: Which retrieval results to read: `bm25` over Sphere (the only one ALCE ships).

    """
    # Every parameter goes to the builder by keyword, as given.
    return alce_task(dataset="eli5", **locals())
