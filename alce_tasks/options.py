"""The options every ALCE task takes, defined and documented once, checked into one object.

Each @task (``alce_tasks/asqa.py``, ...) declares its ``retriever`` and takes the rest from
:class:`AlceOptions` (:func:`inspect_cite.options.forwarding.forwards_to`), less the options
other datasets have (:func:`inspect_cite.benchmarks.alce.other_options`). :func:`resolve`
applies a ``-T config``, checks every value that needs no file or model, and resolves what
the strategy decides (its row in :data:`alce_tasks.strategies.STRATEGIES`): the
:class:`AlceRun` the builder reads.
"""

import inspect
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, cast

from inspect_ai.model import GenerateConfig

from alce_tasks.strategies import STRATEGIES, AlceStrategy, Strategy
from inspect_cite.alce.data import eval_file_name
from inspect_cite.alce.helmet import HelmetContext
from inspect_cite.alce.prompts import PromptVariant, UseShorter
from inspect_cite.alce.run_configs import (
    CONFIG_PARAMETERS,
    ConfigSettings,
    apply_config,
    config_settings,
    load_alce_config,
)
from inspect_cite.benchmarks.alce import ALCE_DATASETS, AlceDatasetName, Retriever
from inspect_cite.benchmarks.trust import TrustDatasetName
from inspect_cite.checks.errors import PreflightErrors
from inspect_cite.checks.run import check_sampling, check_thinking_switch, eval_model
from inspect_cite.generation.raw_prompt import check_raw_prompt
from inspect_cite.generation.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from inspect_cite.models.retrieval import GTR_RETRIEVER
from inspect_cite.options.cli_values import yaml_text
from inspect_cite.options.forwarding import given_arguments
from inspect_cite.options.task_options import TaskOptionError, check_choice, check_seed

TaskPrompt = Literal["default", "light_inst", "closedbook", "sum_or_ext"]
"""The ALCE prompt variants a task's ``prompt`` parameter accepts."""

# ALCE's defaults for ChatGPT in the paper: temperature 0.5, top_p 1.0, at most 300 new tokens.
ALCE_GENERATE_CONFIG = GenerateConfig(temperature=0.5, top_p=1.0, max_tokens=300)


class AlceTaskError(TaskOptionError):
    """An ALCE task was given parameters it cannot run with."""


class AlceTaskErrors(PreflightErrors, AlceTaskError):
    """Several parameters an ALCE task cannot run with, numbered in one message.

    Both a :class:`PreflightErrors` (the project's numbered list, which
    :class:`inspect_cite.checks.errors.Refusals` adds item by item) and an
    :class:`AlceTaskError`, as each of its items is.
    """


def raise_problems(problems: list[str]) -> None:
    """Refuse the options named: one as its line, several as one numbered message."""
    if len(problems) == 1:
        raise AlceTaskError(problems[0])
    if problems:
        raise AlceTaskErrors([AlceTaskError(problem) for problem in problems])


@dataclass(frozen=True)
class AlceOptions:
    """The ALCE tasks' options (each task offers its dataset's and the shared ones).

    Args:
        retriever: Which retrieval results to read (per dataset: see its task).
        oracle: Use ALCE's reranked oracle file (5 documents chosen for maximal answer recall).
        ndoc: Documents shown per question and per demonstration (default: the strategy's,
            :data:`alce_tasks.strategies.STRATEGIES`: 5; the paper's 10 for `summ`, `snippet`
            and `interact`, 0 for `closedbook`).
        shot: Number of demonstrations, drawn from the prompt file with `seed` as run.py does.
        seed: Seed for the demonstration draw (`np.random.seed` + `np.random.choice`).
        prompt: ALCE prompt variant (`closedbook` shows no documents; `sum_or_ext` shows
            each document's summary or extraction, see `use_shorter`).
        use_shorter: Show documents' `summary` or `extraction`: with `prompt=sum_or_ext`
            (default `summary`), `interact` (default: the paper's pairing, ASQA summary,
            QAMPARI and ELI5 extraction) and `inlinesearch` with `ndoc` > 0; fixed by `summ`
            (summary) and `snippet` (extraction).
        dataset_path: An ALCE-format JSON list to use instead of the pinned download.
        prompt_file: An ALCE-format prompt file to use instead of the official one.
        nli: NLI model judging citations, one of the spec forms listed in
            :mod:`inspect_cite.nli` (default `true`: ALCE's T5-11B TRUE model, needs a GPU
            with ~23 GB). Decisions are cached on disk when `INSPECT_CITE_NLI_CACHE` names a
            SQLite file.
        strategy: How answers are generated, one of
            :data:`alce_tasks.strategies.STRATEGIES`: ALCE's baselines `vanilla`,
            `closedbook`, `summ`, `snippet`, `oracle`, `rerank`, `postcite`, `interact`,
            `inlinesearch`, or the FullCite names `prompt` (= vanilla), `constrained`
            (vanilla's prompt under a grammar allowing only [1]..[ndoc] after statements) and
            `posthoc` (ALCE's POSTCITE after vanilla); `native` (the provider's own document
            citations, written as [n]: anthropic/ models) and `agent` (the model finds
            documents with search and read tools; see docs/native.md).
        retrieval_model: sentence-transformers model (hub id or local dir) with which
            `postcite`, `posthoc` and `inlinesearch` find documents (the paper: GTR-large).
        qa: Add eval.py's QA accuracy (QA-EM, QA-F1, QA-Hit): an extractive QA model
            answers each disambiguated question from the output (ASQA only).
        qa_model: The QA model (hub id or local dir; eval.py's by default).
        mauve: Add MAUVE fluency (x100), as eval.py's `--mauve` (ASQA and ELI5).
        mauve_model: Causal LM whose features MAUVE compares (hub id or local dir).
        mauve_seeds: k-means seeds to report MAUVE's spread over (1 = ALCE's).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            `enable_thinking` templates; default off, so that the answer gets ALCE's 300
            tokens). An answer cut inside `<think>` is scored nan ("no answer").
        thinking_tokens: With `thinking`, tokens added to `max_tokens` for the thinking.
        config: One of ALCE's 78 run configurations by name (`configs/<name>.yaml`, e.g.
            `asqa_turbo_shot2_ndoc5_gtr_default`) or the path of a YAML file in their format:
            sets every parameter (and the temperature, top_p and max_tokens) as run.py reads
            it; a parameter or generate flag given explicitly overrides the config's value,
            and the log's metadata `config.overrides` says so.
        chat: Send ALCE's prompt as a chat message after ALCE's system message (run.py's
            OpenAI chat models); false sends run.py's raw prompt (its open models): no chat
            template, no system message, generation stopped at a newline and capped by
            `max_length` (:mod:`inspect_cite.generation.raw_prompt` says how per provider).
        max_length: With `chat=false`, run.py's `--max_length`: each generation gets at most
            `max_length` - prompt tokens (default: the model's context length).
        no_doc_in_demo: Show no documents in the demonstrations (run.py's `--no_doc_in_demo`).
        ndoc_in_demo: Documents shown per demonstration (run.py's `--fewer_doc_in_demo
            --ndoc_in_demo N`; default `ndoc`).
        quick_test: Run the N items run.py's `--quick_test N` draws (after the
            demonstrations, from the same seeded stream).
        retrieve_in_all_docs: `inlinesearch`: search every retrieved document (default, the
            paper's) or, false, only the `ndoc` of the prompt (run.py's default).
        force_cite_show: `interact`, `inlinesearch`: replace each output's citations by the
            documents shown last (default: true for `inlinesearch`, the paper's; false for
            `interact`).
        diagnose: Also classify every statement as `supported`, `misattributed`,
            `unsupported` or `uncited` (`citation_nli`'s `diagnose`; one more NLI pair per
            unsupported statement and document it does not cite).
        trust: TRUST-SCORE (grounded refusals): the authors' Trust-Score data (documents
            marked per gold answer, some questions unanswerable from them), their
            refusal-instructed prompt, and `trust_score` (trust-eval 0.1.5's metrics); see
            docs/alce.md, "Grounded refusals".
        context: HELMET's cite setting for this input length (`8k`, `16k`, `32k`, `64k`,
            `128k`; ASQA and QAMPARI): its passages (30 to 700 of its top-2000 GTR data),
            revised demonstrations, chat template, greedy decoding, 100 questions, and its
            eval_alce.py's scoring rules; see docs/alce.md, "Long context (HELMET)".
        nocite: With `context`, HELMET's no-citation control (its `alce_nocite`
            demonstrations, no shots, 600 new tokens; correctness only).
        corrected: With `trust`, fix trust-eval's defects (`trust_score`'s `corrected`):
            an undefined rate is nan, not 0; one refusal decision serves every metric; see
            docs/alce.md, "trust-eval's defects, and `corrected`".
        tokenizer: With `context`, the Hugging Face tokenizer (hub id or folder) HELMET's
            cut of the passages to the row's token budget counts with; default the model's
            own (`hf/` and `vllm/` models; other providers need it).

    """

    retriever: Retriever
    oracle: bool = False
    ndoc: int | None = None
    shot: int = 2
    seed: int = 42
    prompt: TaskPrompt = "default"
    use_shorter: UseShorter | None = None
    dataset_path: str | None = None
    prompt_file: str | None = None
    nli: str = "true"
    strategy: Strategy = "vanilla"
    retrieval_model: str = GTR_RETRIEVER
    qa: bool = False
    qa_model: str = "gaotianyu1350/roberta-large-squad"
    mauve: bool = False
    mauve_model: str = "gpt2-large"
    mauve_seeds: int = 1
    thinking: bool = False
    thinking_tokens: int = DEFAULT_THINKING_TOKENS
    config: str | None = None
    chat: bool = True
    max_length: int | None = None
    no_doc_in_demo: bool = False
    ndoc_in_demo: int | None = None
    quick_test: int | None = None
    retrieve_in_all_docs: bool | None = None
    force_cite_show: bool | None = None
    diagnose: bool = False
    trust: bool = False
    context: HelmetContext | None = None
    nocite: bool = False
    corrected: bool = False
    tokenizer: str | None = None


@dataclass(frozen=True)
class AlceRun:
    """An ALCE task's options after its config and checks, with what its strategy decides.

    Attributes:
        dataset: The dataset.
        options: The options to run with (a config's values in place; ``ndoc``, ``oracle``
            and ``use_shorter`` resolved).
        given: The options as given, for the log (a config's values in place).
        spec: The strategy's row.
        variant: The prompt variant the samples' prompts are built from (by the task or the
            strategy's solver).
        demo_docs: Documents per demonstration (None: ``ndoc``).
        data_name: The pinned eval file (None with ``dataset_path``).
        generate_config: The task's generate config.
        settings: What ``-T config`` set (None without one).
        overrides: The config's values the user overrode.
        resolved: Values resolved from others, as the log records them.

    """

    dataset: AlceDatasetName
    options: AlceOptions
    given: dict[str, Any]
    spec: AlceStrategy
    variant: PromptVariant
    demo_docs: int | None
    data_name: str | None
    generate_config: GenerateConfig
    settings: ConfigSettings | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    resolved: dict[str, Any] = field(default_factory=dict)


def explicit_arguments(given: dict[str, Any]) -> set[str]:
    """The task arguments the user gave (each overrides a config's value).

    Through the @task functions these are exactly the ``-T`` values given
    (:func:`inspect_cite.options.forwarding.given_arguments`); for a direct call of the
    builder, the arguments that differ from the defaults (``retriever`` is then the config's).
    """
    names = given_arguments()
    if names is not None:
        return set(names)
    defaults = {p.name: p.default for p in inspect.signature(AlceOptions).parameters.values()}
    return {k for k, v in given.items() if k in defaults and v != defaults[k] and k != "retriever"}


TRUST_STRATEGIES = ("vanilla", "prompt", "rerank")
"""The strategies that answer from the refusal-instructed prompt as it is."""

# Options of ALCE's own runs that a TRUST-SCORE run does not read (its data and prompt are
# the authors', its scorer trust_score alone, its strategies retrieve nothing): refused rather
# than ignored.
TRUST_NOT_READ = {
    "oracle": False,
    "use_shorter": None,
    "config": None,
    "qa": False,
    "qa_model": AlceOptions.qa_model,
    "mauve": False,
    "mauve_model": AlceOptions.mauve_model,
    "mauve_seeds": AlceOptions.mauve_seeds,
    "retrieval_model": AlceOptions.retrieval_model,
    "diagnose": False,
    "quick_test": None,
    "retrieve_in_all_docs": None,
    "force_cite_show": None,
}


def trust_problems(dataset: str, options: AlceOptions) -> list[str]:
    """Every option a TRUST-SCORE run cannot take (one line each, naming the flag)."""
    problems = []
    alce = dataset in ALCE_DATASETS
    strategies = TRUST_STRATEGIES if alce else TRUST_STRATEGIES[:2]
    if options.strategy not in strategies:
        # ExpertQA's user never passed -T trust=true: name the task that is a TRUST-SCORE run.
        run = "-T trust=true" if alce else f"alce_tasks/{dataset} (a TRUST-SCORE run)"
        problems.append(
            f"-T strategy={options.strategy}: {run} answers from the authors' "
            f"refusal-instructed prompt; use one of {', '.join(strategies)}"
        )
    if options.prompt != "default":
        problems.append(
            f"-T prompt={options.prompt}: -T trust=true reads the authors' refusal prompt file"
        )
    row = ALCE_DATASETS.get(dataset)  # type: ignore[call-overload]
    if row is not None and options.retriever != row.retrievers[0]:
        problems.append(
            f"-T retriever={options.retriever}: not read by a TRUST-SCORE run (-T trust=true "
            "reads the authors' Trust-Score documents); drop it"
        )
    for name, default in TRUST_NOT_READ.items():
        value = getattr(options, name)
        if value != default:
            shown = yaml_text(value) if isinstance(value, bool | int | float) else value
            problems.append(
                f"-T {name}={shown}: not read by a TRUST-SCORE run (-T trust=true); drop it"
            )
    return problems


HELMET_FIXED = (
    "oracle",
    "ndoc",
    "shot",
    "seed",
    "prompt",
    "use_shorter",
    "config",
    "quick_test",
    "no_doc_in_demo",
    "ndoc_in_demo",
    "retrieve_in_all_docs",
    "force_cite_show",
    "max_length",
)
"""Options HELMET's settings fix for a length: given explicitly with `-T context`, refused."""


def helmet_problems(dataset: str, o: AlceOptions, explicit: set[str]) -> list[str]:
    """Every option a HELMET run cannot take, or a HELMET option without HELMET (one line each)."""
    if o.context is None:
        problems = []
        if o.nocite:
            problems.append("-T nocite=true: HELMET's no-citation control needs -T context")
        if o.tokenizer is not None:
            problems.append(
                f"-T tokenizer={o.tokenizer}: only HELMET's rows (-T context) cut by tokens"
            )
        return problems
    check_choice("context", o.context, HelmetContext, what="HELMET length", error=AlceTaskError)
    if dataset not in ("asqa", "qampari"):
        return [f"-T context={o.context}: HELMET runs ASQA and QAMPARI, not {dataset}"]
    problems = []
    if o.trust:
        problems.append(
            f"-T context={o.context}: HELMET's ladder is not TRUST-SCORE's; drop -T trust"
        )
    if o.nocite and o.diagnose:
        problems.append(
            "-T diagnose=true: HELMET's no-citation control (-T nocite=true) has no citations "
            "to diagnose; drop one of them"
        )
    if o.strategy != "vanilla":
        problems.append(
            f"-T strategy={o.strategy}: HELMET's ladder runs the vanilla prompt; drop it"
        )
    if not o.chat:
        problems.append(
            f"-T context={o.context} with -T chat=false: HELMET's raw prompts have no stop "
            "sequence, which -T chat=false adds; use the chat template (HELMET's cite configs)"
        )
    for name in ("qa", "mauve"):
        if getattr(o, name):
            problems.append(f"-T {name}=true: HELMET computes no {name.upper()} (drop it)")
    if o.retriever != "gtr":
        problems.append(f"-T retriever={o.retriever}: HELMET's data is its top-2000 GTR passages")
    for name in HELMET_FIXED:
        if name in explicit:
            problems.append(
                f"-T {name}={getattr(o, name)}: HELMET's -T context={o.context} sets it "
                "(docs/alce.md, 'Long context (HELMET)')"
            )
    return problems


def _check_values(dataset: str, o: AlceOptions, config: GenerateConfig) -> None:
    """Every check of a single value, or of one value against the dataset (one line each)."""
    check_sampling(config)
    check_thinking_switch(o.thinking, config)
    check_choice("strategy", o.strategy, Strategy, error=AlceTaskError)
    for name, value in (("ndoc", o.ndoc), ("shot", o.shot), ("ndoc_in_demo", o.ndoc_in_demo)):
        if value is not None and value < 0:
            raise AlceTaskError(f"-T {name}={value}: must be 0 or more")
    for name, value in (("quick_test", o.quick_test), ("max_length", o.max_length)):
        if value is not None and value < 1:
            raise AlceTaskError(f"-T {name}={value}: must be 1 or more")
    check_seed(o.seed, error=AlceTaskError)
    check_choice(
        "prompt",
        o.prompt,
        TaskPrompt,
        what="prompt variant",
        hint=" (or -T prompt_file=FILE for your own)",
        error=AlceTaskError,
    )
    row = ALCE_DATASETS.get(dataset)  # type: ignore[call-overload]
    own = row.options if row is not None else ()
    if o.qa and "qa" not in own:
        raise AlceTaskError("-T qa=true needs ASQA's qa_pairs (eval.py computes QA only for ASQA)")
    seeds = o.mauve_seeds
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise AlceTaskError(f"-T mauve_seeds={seeds}: must be a whole number of at least 1")
    if o.mauve and "mauve" not in own:
        raise AlceTaskError("-T mauve=true: eval.py does not compute MAUVE for QAMPARI lists")


def resolve(name: AlceDatasetName | TrustDatasetName, given: dict[str, Any]) -> AlceRun:
    """The options of an ALCE task, its config applied, checked and resolved.

    Args:
        name: The dataset (ExpertQA: TRUST-SCORE's only).
        given: The task's arguments as given (every option of :class:`AlceOptions`).

    Raises:
        AlceTaskError: A value the task cannot run with (one line naming the flag).
        PreflightError: Sampling or thinking settings that contradict the task.

    """
    # ExpertQA is TRUST-SCORE's alone: it reaches nothing that reads ALCE's three (refused below).
    dataset = cast(AlceDatasetName, name)
    given = asdict(AlceOptions(**given))
    settings: ConfigSettings | None = None
    overrides: dict[str, Any] = {}
    if given["config"] is not None:
        settings = config_settings(load_alce_config(given["config"]), dataset)
        given, overrides = apply_config(settings, given, explicit_arguments(given))
    o = AlceOptions(**{k: given[k] for k in (*CONFIG_PARAMETERS, *_OTHERS)})
    config = ALCE_GENERATE_CONFIG
    if settings is not None:
        config = config.merge(GenerateConfig(**settings.generate))
    config = thinking_generate_config(config, o.thinking, o.thinking_tokens)
    _check_values(dataset, o, config)
    spec = STRATEGIES[o.strategy]
    if problem := spec.options_problem(o.strategy, o):
        raise AlceTaskError(problem)
    # Every option the run would not read, in one message: a user who passed four learns of
    # all four at once, not one per try.
    problems = trust_problems(dataset, o) if o.trust else []
    if o.corrected and not o.trust:
        problems.append(
            "-T corrected=true: corrects trust-eval's defects, so it needs -T trust=true "
            "(a TRUST-SCORE run); drop it"
        )
    problems += helmet_problems(dataset, o, explicit_arguments(given))
    raise_problems(problems)
    if not o.trust and dataset not in ALCE_DATASETS:
        raise AlceTaskError(f"{dataset}: only TRUST-SCORE runs it (-T trust=true)")
    if not o.chat and (model := eval_model()) is not None:
        check_raw_prompt(model)
    ndoc = spec.ndoc if o.ndoc is None else o.ndoc
    # The variant whose file the samples' prompts are built from, by the task or the solver.
    variant: PromptVariant = spec.prompt or o.prompt
    use_shorter, problem = spec.resolve_use_shorter(o.strategy, dataset, o.use_shorter, ndoc)
    if problem:
        raise AlceTaskError(problem)
    if variant == "sum_or_ext" and use_shorter is None:
        use_shorter = "summary"
    if variant != "sum_or_ext" and use_shorter is not None and spec.task_prompt:
        raise AlceTaskError(
            f"-T use_shorter={use_shorter}: use_shorter={use_shorter!r} needs "
            f"prompt=sum_or_ext, got prompt={variant!r}"
        )
    oracle = o.oracle or spec.oracle
    interactive = spec.run_py in ("doc_id", "search")
    resolved = {
        "ndoc": ndoc,
        "oracle": oracle,
        "use_shorter": use_shorter,
        "chat": o.chat,
        "retrieve_in_all_docs": (
            (o.retrieve_in_all_docs is not False) if spec.run_py == "search" else False
        ),
        "force_cite_show": (
            bool(o.force_cite_show if o.force_cite_show is not None else spec.run_py == "search")
            if interactive
            else False
        ),
    }
    # retriever and oracle choose among ALCE's pinned files (TRUST-SCORE has its own data).
    data_name = None
    if o.dataset_path is None and not o.trust:
        data_name = eval_file_name(dataset, o.retriever, oracle)  # type: ignore[arg-type]
    return AlceRun(
        dataset=dataset,
        options=replace(o, ndoc=ndoc, oracle=oracle, use_shorter=use_shorter),
        given=given,
        spec=spec,
        variant=variant,
        demo_docs=0 if o.no_doc_in_demo else o.ndoc_in_demo,
        data_name=data_name,
        generate_config=config,
        settings=settings,
        overrides=overrides,
        resolved=resolved,
    )


# The options a config cannot set (CONFIG_PARAMETERS are those it can).
_OTHERS = tuple(
    name for name in inspect.signature(AlceOptions).parameters if name not in CONFIG_PARAMETERS
)
