"""An ALCE run configuration as task parameters: what ``-T config=<name>`` sets.

run.py's options map onto the task's parameters one by one (``docs/alce.md`` has the table):
``prompt_file`` chooses the prompt variant (or a local file), ``eval_file`` the pinned data
file (retriever, oracle) or a local one, ``interactive``/``interactive_query`` the strategy
(``interact`` for ``doc_id``, ``inlinesearch`` for ``search``), ``use_shorter`` SUMM or
SNIPPET outside the interactive modes, ``openai_api`` the chat framing (the open models ran
on raw prompts: ``chat=false``), ``retriever`` the dense retrieval model, and ``temperature``,
``top_p``, ``max_new_tokens`` the generate config. An option the file does not set takes
run.py's default, which can differ from the task's (run.py's INLINESEARCH neither searches all
documents nor forces citations unless told to). A value the task cannot run as run.py would is
refused with one line naming the option, never dropped.
"""

import re
from dataclasses import dataclass, field
from typing import Any, get_args

from alce_tasks.data import EVAL_FILES
from inspect_cite.alce.prompts import AlceDatasetName, PromptVariant
from inspect_cite.alce.run_configs import RUN_PY_OPTIONS, AlceConfigError, AlceRunConfig

# run.py loads `sentence-transformers/<retriever>` when "gtr" is in the name.
_DENSE_PREFIX = "sentence-transformers/"
_PROMPT = re.compile(r"^(?:\./)?prompts/(asqa|qampari|eli5)_([a-z_]+)\.json$")
_EVAL = re.compile(
    r"^(?:\./)?data/((asqa|qampari|eli5)_eval_(gtr|dpr|bm25)_top100(_reranked_oracle)?\.json)$"
)
# The prompt variant each run.py mode reads (None: the variant the file names).
_MODE_VARIANT: dict[str, PromptVariant] = {
    "interact": "interact_doc_id",
    "inlinesearch": "interact_search",
    "summ": "sum_or_ext",
    "snippet": "sum_or_ext",
}
_VANILLA_VARIANTS = ("default", "light_inst", "closedbook")

GENERATE_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "max_new_tokens": "max_tokens"}
"""run.py's decoding options and the GenerateConfig field each sets."""


@dataclass(frozen=True)
class ConfigSettings:
    """What an ALCE config sets, in the task's terms.

    Attributes:
        parameters: Task parameters and their values as run.py reads the config.
        generate: GenerateConfig fields (``temperature``, ``top_p``, ``max_tokens``).
        record: What the log records about the config: its name, where it came from, and
            the options that name the run (``model``, ``tag``, ``eval_file``,
            ``prompt_file``).

    """

    parameters: dict[str, Any]
    generate: dict[str, Any]
    record: dict[str, Any] = field(default_factory=dict)


def _fail(config: AlceRunConfig, message: str) -> AlceConfigError:
    return AlceConfigError(f"{config.where()}: {message}")


def _strategy(config: AlceRunConfig, variant: PromptVariant | None) -> str:
    """run.py's generation mode for a config, as a task strategy."""
    opts = config.options
    if opts["interactive"]:
        query = opts["interactive_query"]
        if query not in ("doc_id", "search"):
            raise _fail(config, f"interactive_query must be doc_id or search, got {query!r}")
        return "interact" if query == "doc_id" else "inlinesearch"
    if opts["interactive_query"] is not None:
        raise _fail(config, "interactive_query has no effect without interactive: true")
    if opts["use_shorter"] is not None:
        return "summ" if opts["use_shorter"] == "summary" else "snippet"
    if variant == "closedbook" and opts["ndoc"] == 0:
        return "closedbook"
    return "vanilla"


def _prompt(config: AlceRunConfig, dataset: AlceDatasetName) -> tuple[PromptVariant | None, str]:
    """The official prompt variant ``prompt_file`` names, or None and the local path."""
    value = config.options["prompt_file"]
    if value is None:
        raise _fail(config, "sets no prompt_file (run.py needs one)")
    match = _PROMPT.match(value)
    if match is None:
        return None, value
    if match.group(1) != dataset:
        raise _fail(config, f"prompt_file {value} is a {match.group(1)} prompt, not {dataset}'s")
    if match.group(2) not in get_args(PromptVariant):
        return None, value
    return match.group(2), value  # type: ignore[return-value]


def _data(config: AlceRunConfig, dataset: AlceDatasetName) -> dict[str, Any]:
    """The task's data parameters for ``eval_file``: a pinned file, or a local path."""
    value = config.options["eval_file"]
    if value is None:
        raise _fail(config, "sets no eval_file (run.py needs one)")
    match = _EVAL.match(value)
    if match is None or match.group(1) not in EVAL_FILES:
        return {"dataset_path": value}
    if match.group(2) != dataset:
        raise _fail(config, f"eval_file {value} holds {match.group(2)} items, not {dataset}'s")
    return {
        "dataset_path": None,
        "retriever": match.group(3),
        "oracle": match.group(4) is not None,
    }


def _demos(config: AlceRunConfig) -> dict[str, Any]:
    """``no_doc_in_demo`` and ``fewer_doc_in_demo``/``ndoc_in_demo`` as run.py combines them."""
    opts = config.options
    if opts["no_doc_in_demo"] and opts["fewer_doc_in_demo"]:
        raise _fail(config, "no_doc_in_demo and fewer_doc_in_demo: run.py uses only the first")
    if opts["fewer_doc_in_demo"] and opts["ndoc_in_demo"] is None:
        raise _fail(config, "fewer_doc_in_demo needs ndoc_in_demo (run.py asserts it)")
    if not opts["fewer_doc_in_demo"] and opts["ndoc_in_demo"] is not None:
        raise _fail(config, "ndoc_in_demo has no effect without fewer_doc_in_demo: true")
    return {"no_doc_in_demo": opts["no_doc_in_demo"], "ndoc_in_demo": opts["ndoc_in_demo"]}


def _unsupported(config: AlceRunConfig) -> None:
    """Refuse the run.py options the tasks have no way to honour."""
    opts = config.options
    if opts["azure"]:
        raise _fail(config, "azure selects run.py's Azure client: choose the model with --model")
    if opts["num_samples"] != 1:
        raise _fail(
            config,
            f"num_samples={opts['num_samples']}: run.py keeps several answers per question in "
            "one output; run Inspect's --epochs instead (each answer is scored)",
        )
    for key, solver in (("max_turn", "alce_interact"), ("max_doc_show", "alce_interact")):
        if opts[key] != RUN_PY_OPTIONS[key][1]:
            raise _fail(
                config,
                f"{key}={opts[key]} is not a task parameter: run the solver "
                f"(--solver solvers/{solver} -S {key}={opts[key]})",
            )
    if opts["retriever_device"] != RUN_PY_OPTIONS["retriever_device"][1]:
        raise _fail(config, "retriever_device: the retriever runs on CUDA when there is one")


def config_settings(config: AlceRunConfig, dataset: AlceDatasetName) -> ConfigSettings:
    """The task parameters and generate config an ALCE config sets for ``dataset``.

    Raises:
        AlceConfigError: Naming the config and the option, for a config of another dataset,
            a missing ``prompt_file``/``eval_file``/``shot``/``ndoc``, or a value the task
            cannot run as run.py would.

    """
    opts = config.options
    if opts["dataset_name"] not in (None, dataset):
        raise _fail(
            config,
            f"dataset_name={opts['dataset_name']}: run it with alce_tasks/{opts['dataset_name']}",
        )
    for key in ("shot", "ndoc"):
        if opts[key] is None:
            raise _fail(config, f"sets no {key} (run.py needs one)")
    _unsupported(config)
    if opts["use_shorter"] not in (None, "summary", "extraction"):
        raise _fail(
            config, f"use_shorter must be summary or extraction, got {opts['use_shorter']!r}"
        )
    variant, prompt_path = _prompt(config, dataset)
    strategy = _strategy(config, variant)
    if strategy == "interact" and opts["use_shorter"] is None:
        raise _fail(
            config,
            "interactive_query: doc_id without use_shorter shows full documents up front; the "
            "task's interact shows summaries or extractions (set use_shorter)",
        )
    parameters: dict[str, Any] = {
        **_data(config, dataset),
        "strategy": strategy,
        "ndoc": opts["ndoc"],
        "shot": opts["shot"],
        "seed": opts["seed"],
        "use_shorter": opts["use_shorter"],
        **_demos(config),
        "quick_test": opts["quick_test"],
        # The chat API got ALCE's system message; every other model got the raw prompt.
        "chat": opts["openai_api"],
        "prompt": "default",
        "prompt_file": None,
    }
    own = _MODE_VARIANT.get(strategy, "closedbook" if strategy == "closedbook" else None)
    if variant is None:
        parameters["prompt_file"] = prompt_path
    elif own is not None and variant != own:
        raise _fail(config, f"{strategy} reads the {own} prompt, not {prompt_path}")
    elif own is None:
        if variant not in _VANILLA_VARIANTS:
            raise _fail(config, f"{prompt_path} is the prompt of a mode this config does not set")
        parameters["prompt"] = variant
    if strategy in ("interact", "inlinesearch"):
        parameters["force_cite_show"] = opts["force_cite_show"]
        parameters["retrieve_in_all_docs"] = opts["retrieve_in_all_docs"]
    else:
        for key in ("force_cite_show", "retrieve_in_all_docs"):
            if opts[key]:
                raise _fail(config, f"{key} applies to the interactive modes only")
    retriever = opts["retriever"]
    if strategy == "inlinesearch":
        if retriever is None or "gtr" not in retriever:
            raise _fail(
                config,
                f"retriever={retriever}: interactive search here uses a dense retriever "
                "(run.py's gtr-t5-large); tfidf is not available",
            )
        parameters["retrieval_model"] = _DENSE_PREFIX + retriever
    elif retriever is not None:
        raise _fail(config, "retriever applies to interactive_query: search only")
    if "max_length" in config.given:
        if opts["openai_api"]:
            raise _fail(config, "max_length caps raw-prompt runs only (the open models')")
        parameters["max_length"] = opts["max_length"]
    generate = {field: opts[option] for option, field in GENERATE_OPTIONS.items()}
    record = {
        "name": config.name,
        **config.source,
        **{key: opts[key] for key in ("model", "tag", "eval_file", "prompt_file")},
    }
    return ConfigSettings(parameters=parameters, generate=generate, record=record)


CONFIG_PARAMETERS = (
    "retriever",
    "oracle",
    "dataset_path",
    "strategy",
    "ndoc",
    "shot",
    "seed",
    "prompt",
    "prompt_file",
    "use_shorter",
    "no_doc_in_demo",
    "ndoc_in_demo",
    "quick_test",
    "chat",
    "max_length",
    "retrieve_in_all_docs",
    "force_cite_show",
    "retrieval_model",
)
"""The task parameters a config can set (:func:`config_settings`), in the task's unpacking order."""

# The generate flags that override a config's decoding options, by GenerateConfig field.
_GENERATE_FLAGS = {"temperature": "--temperature", "top_p": "--top-p", "max_tokens": "--max-tokens"}


def apply_config(
    settings: ConfigSettings, given: dict[str, Any], explicit: set[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task's arguments with the config's values, and the explicit ones that override it.

    Args:
        settings: What the config sets.
        given: Every task argument (defaults included).
        explicit: The arguments the user gave; each overrides the config's value.

    Returns:
        The arguments to run with (``config`` becomes the config's name), and the overrides:
        ``{name: {"config": value, "given": value}}`` for each explicit argument that differs
        from the config's value.

    """
    values = {**given, "config": settings.record["name"]}
    overrides: dict[str, Any] = {}
    for name, value in settings.parameters.items():
        if name not in explicit:
            values[name] = value
        elif given[name] != value:
            overrides[name] = {"config": value, "given": given[name]}
    return values, overrides


def generate_overrides(settings: ConfigSettings, eval_config: Any) -> dict[str, Any]:
    """The generate flags (``--temperature``...) that override the config's decoding options.

    Args:
        settings: What the config sets.
        eval_config: The eval's generate config (``inspect_cite.checks.run.eval_generate_config``),
            or None when the task is built outside an eval (nothing can then be known).

    """
    if eval_config is None:
        return {}
    overrides = {}
    for field_name, value in settings.generate.items():
        flag_value = getattr(eval_config, field_name, None)
        if flag_value is not None and flag_value != value:
            overrides[field_name] = {
                "config": value,
                "given": flag_value,
                "flag": _GENERATE_FLAGS[field_name],
            }
    return overrides
