"""``inspect-cite report``: compare runs across tasks, models and strategies.

Reads a directory of Inspect logs (one ``inspect eval-set`` directory, or any folder of ``.eval``
files) with ``inspect_ai.log``, and writes:

- ``metrics.md`` and ``metrics.csv``: every metric (mean and stderr) per run, each run named by
  task, model, strategy and whatever else sets it apart from the other runs of its task (its
  ``setting``), with its sample count and its log;
- ``<task>_metrics.png``: each metric by run, with stderr bars and which way is better (a rate
  corrected for its NLI judge's errors, ``<score> (corrected)``, with its interval);
- ``fullcite_doc_vs_snippet.png``: Doc-F1 against Snippet-F1 per run (FullCite tasks);
- ``citation_positions.png``: how often each context position is cited (primacy bias);
- ``diagnose_classes.png`` (runs scored with ``diagnose=true``): a stacked bar per run of its
  claims' classes (supported, misattributed, unsupported, uncited);
- ``diagnose_positions.png``: for the misattributed claims of each such run, the position of
  the document cited against the position of the document that supports the claim.

Logs that are not successful runs (failed, cancelled, unfinished) or cannot be read (truncated,
corrupt) are listed as skipped. Every text the report shows goes through
:func:`inspect_cite.downloads.http_client.redact_text`. Charts wrap their panels into a grid, so any
number of metrics stays under 2,000 px wide.
"""

import json
import math
import re
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
from inspect_ai.log import EvalLog, EvalScore, EvalSpec
from inspect_ai.model import ModelConfig

from inspect_cite.app.log_metrics import metric_direction, metric_name
from inspect_cite.citations.alce import marker_refs
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.nli.diagnose import DIAGNOSE_CLASSES, METADATA_KEY
from inspect_cite.statistics.calibration import CONFIDENCE

_ID_COLUMNS = ["task", "model", "strategy", "setting"]
# What metrics.csv and load_runs give about each run besides its metrics, in this order.
# "context": HELMET's length, where a run had one (the context chart's x-axis).
_RUN_COLUMNS = [*_ID_COLUMNS, "label", "samples", "log", "context"]
_NO_SETTING = "-"
# What a run that lacks an argument or option another run of its task sets reads as.
_UNSET = "default"
# The kinds of arguments and options that can set a run apart, by the flag that gives them
# (shown before a name only where two kinds share the name).
_TASK_ARG, _MODEL_ARG, _MODEL_ROLE, _SOLVER_ARG = "-T ", "-M ", "--model-role ", "-S "
_OPTION = "--"
# Eval options that change which samples are scored (the others change how a run is executed).
_SAMPLE_OPTIONS = {"limit", "sample_id", "epochs"}
# A cell a spreadsheet would run as a formula (OWASP, CSV injection) unless it is a number.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_MAX_ERROR_CHARS = 200
# The `corrected` metric's columns: "<score> (corrected)" and its "_low" / "_high" bounds.
_CORRECTED_METRIC = "corrected"
_CORRECTED = " (corrected)"
_BOUNDS = tuple(f"{_CORRECTED}{b}" for b in ("_low", "_high"))
# The runs table's attrs key for the metrics nan in every run of a task, with their reasons.
_ALL_NAN = "all_nan"
# A local log up to this size (compressed) is read whole, not a sample at a time.
_WHOLE_LOG_BYTES = 16 * 2**20
_UNREAD_FIELDS = {"events", "messages"}


def _strategy(spec: EvalSpec) -> str:
    # A solver given with --solver replaces the task's own, so it names the strategy first;
    # its package prefix adds nothing.
    if spec.solver:
        return spec.solver.split("/")[-1]
    strategy = (spec.task_args or {}).get("strategy")
    return strategy if isinstance(strategy, str) and strategy else "default"


def _benchmark(metadata: Any) -> str:
    return redact_text(str(metadata.get("benchmark", "-"))) if isinstance(metadata, dict) else "-"


def _task_name(spec: EvalSpec) -> str:
    return redact_text(spec.task.split("/")[-1])


def _first_line(message: str) -> str:
    """The first line of a message, redacted, cut to fit a line of the report.

    Redacted before it is cut: a URL cut before its ``@`` no longer shows as a URL.
    """
    lines = redact_text(message).strip().splitlines()
    return lines[0][:_MAX_ERROR_CHARS] if lines else ""


class SkippedRun(NamedTuple):
    """A log in the folder that is not a finished run (error, cancelled, started, unreadable)."""

    log: str
    task: str
    model: str
    status: str
    error: str

    def describe(self) -> str:
        """One line naming the log, its status and why."""
        run = f" ({self.task}, {self.model})" if self.task or self.model else ""
        why = f": {self.error}" if self.error else ""
        return f"{self.log}{run}: {self.status}{why}"


class Report(NamedTuple):
    """What ``write_report`` read and wrote."""

    runs: pd.DataFrame
    skipped: list[SkippedRun]
    written: list[Path]
    unscored: list[str] = []
    """One line per run none of whose samples was scored, saying why."""


class _SampleFacts(NamedTuple):
    """What a run's samples say beyond its header."""

    positions: Counter[int]
    """Counts of the context positions cited."""
    scored: int
    """Samples with at least one score value known (not nan)."""
    reasons: Counter[str]
    """Why scores were nan, by reason (the scorers' ``reason`` metadata)."""
    nan_reasons: dict[str, Counter[str]] = {}
    """Per score key (a dict value's key, else the score's name): why its values were nan."""
    misattributed: Counter[tuple[int, int]] = Counter()
    """``(cited, supporting)`` positions of misattributed claims (``diagnose=true`` runs)."""


class _Logs(NamedTuple):
    """A log directory as read: the successful runs' headers and the logs left out."""

    runs: list[EvalLog]
    skipped: list[SkippedRun]
    # What the samples of each run log say (when they were read).
    facts: dict[str, _SampleFacts]


def _shown_location(location: str) -> str:
    """A log's location as the report shows it: a local path, or the URL of a remote log."""
    if location.startswith("file://"):
        location = urllib.request.url2pathname(urllib.parse.urlsplit(location).path)
    return redact_text(location)


def _read_logs(log_dir: str | Path, *, samples: bool = False) -> _Logs:
    """Every log of ``log_dir``, sorted by location; with ``samples``, the positions cited.

    A log that cannot be read is skipped and named with the reason, like a failed run: one
    damaged file never stops the report.
    """
    from inspect_ai.log import list_eval_logs

    if "://" not in str(log_dir) and not Path(log_dir).is_dir():
        raise ValueError(f"log directory {log_dir} does not exist")
    # Sorted: the same logs make the same report, whatever order the folder lists them in.
    locations = sorted(info.name for info in list_eval_logs(str(log_dir)))
    if not locations:
        raise ValueError(f"no Inspect logs found in {log_dir}")
    logs = _Logs(runs=[], skipped=[], facts={})
    for location in locations:
        shown = _shown_location(location)
        try:
            log = _read_log(location, samples=samples)
            if log.status == "success" and samples:
                logs.facts[shown] = _sample_facts(location, log.samples)
            log.samples = None  # the facts hold what the report needs of them
        # Whatever a damaged log raises (a zip without its end record, bad JSON, a header that
        # fails validation), it concerns this log alone.
        except Exception as e:  # noqa: BLE001
            reason = _first_line(f"{type(e).__name__}: {e}")
            logs.skipped.append(SkippedRun(shown, "", "", "unreadable", reason))
            continue
        log.location = shown
        if log.status == "success":
            logs.runs.append(log)
        else:
            error = _first_line(log.error.message) if log.error else ""
            model = redact_text(log.eval.model)
            logs.skipped.append(SkippedRun(shown, _task_name(log.eval), model, log.status, error))
    logs.skipped.sort()
    return logs


def _metric_column(score: str, metric: str, metrics: list[str]) -> str | None:
    """The report column of one metric of a score (``None``: per-group detail, left out)."""
    if metric == "mean":
        return score
    if metric == "stderr":
        return f"{score}_stderr"
    if metric == "weighted_mean":
        # citation_bias's share over all citations of the run.
        return f"{score} (weighted)"
    if "_by_group_" in metric:
        return None
    if metric.startswith(_CORRECTED_METRIC):
        # A rate corrected for its judge's errors and its interval (scorers/_judge_correction.py).
        bound = metric[len(_CORRECTED_METRIC) :].removeprefix("_mean")
        return f"{score}{_CORRECTED}{bound}"
    # A score with a single corpus-level metric (MAUVE, one seed) is named by the score alone.
    return score if len(metrics) == 1 else f"{score} ({metric})"


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _score_columns(score: EvalScore, label: str) -> dict[str, float]:
    """The columns of one score's metrics, the score named ``label`` in them."""
    names = [metric_name(k) for k in score.metrics]
    # A rate is corrected only where the scorer was given a judge calibration.
    calibrated = bool((score.params or {}).get("calibration"))
    columns: dict[str, float] = {}
    for name, m in zip(names, score.metrics.values(), strict=True):
        column = _metric_column(label, name, names)
        if column is not None and not (_CORRECTED in column and not calibrated):
            columns[column] = float(m.value)
    return columns


def _what_differs(score: EvalScore, first: dict[str, Any]) -> str:
    """What sets a later scorer of a score apart from the first: its judge, else its arguments.

    ``nli=<spec>`` when its NLI judge differs (a rescore with another judge), else the
    arguments it was given that the first scorer was not given alike, else its scorer name.
    """
    params = score.params or {}
    if params.get("nli") is not None and params.get("nli") != first.get("nli"):
        return f"nli={redact_text(_shown_value(params['nli']))}"
    differing = [f"{k}={_shown_value(v)}" for k, v in params.items() if first.get(k) != v]
    return redact_text(", ".join(differing)) or score.scorer


def _metric_values(log: EvalLog) -> dict[str, float]:
    """One value per metric column, read from the log's header.

    Several scorers may report a score of the same name: ``n_citations`` from Doc/Snippet-F1,
    citation_bias and the judge, or ``citation_rec`` after ``inspect score --action append``
    with another judge. The plain columns hold the first scorer's values. A later scorer
    whose judge differs, or any of whose values differ, gets columns of its own, all of them
    (mean, stderr, corrected rate): ``<score> (nli=<spec>)`` for another judge, else
    ``<score> (<its differing arguments>)`` or ``<score> (<scorer>)``. One that agrees
    (the same count from another scorer) adds nothing.
    """
    row: dict[str, float] = {}
    first_params: dict[str, dict[str, Any]] = {}
    for score in log.results.scores if log.results else []:
        params = score.params or {}
        columns = _score_columns(score, score.name)
        first = first_params.get(score.name)
        if first is None:
            first_params[score.name] = params
        else:
            other_judge = params.get("nli") is not None and params.get("nli") != first.get("nli")
            disagrees = any(c in row and not _same(row[c], v) for c, v in columns.items())
            if other_judge or disagrees:
                label = f"{score.name} ({_what_differs(score, first)})"
                columns = _score_columns(score, label)
                if any(c in row and not _same(row[c], v) for c, v in columns.items()):
                    # The same judge rescored twice, with other values: the scorer tells.
                    columns = _score_columns(score, f"{score.name} ({score.scorer})")
        for column, value in columns.items():
            row.setdefault(column, value)
    return row


def _shown_value(value: Any) -> str:
    """A recorded argument as a command line gives it: ``2``, ``true``, ``null``, plain text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, ModelConfig) for v in value):
        return ",".join(_shown_value(v) for v in value)
    if isinstance(value, ModelConfig):  # a model role
        return value.model + (f" {_shown_value(value.args)}" if value.args else "")
    return json.dumps(value, sort_keys=True, default=str)


def _task_args(spec: EvalSpec) -> tuple[dict[str, Any], set[str]]:
    """The task's arguments, a default as the task resolved it, and the names left at default.

    Inspect records a task's defaults as declared (ALCE's ``ndoc=None``: the strategy's
    number); this project's tasks also record, in ``metadata["parameters"]``, the values
    they resolved (``ndoc=5``), which the report shows for an argument the run did not give.
    Logs without ``task_args_passed`` (older Inspect) mark nothing as a default.
    """
    args = dict(spec.task_args or {})
    passed = getattr(spec, "task_args_passed", None)
    if passed is None:
        return args, set()
    parameters = (spec.metadata or {}).get("parameters")
    resolved = parameters if isinstance(parameters, dict) else {}
    defaults = {name for name in args if name not in passed}
    for name in defaults:
        if name in resolved:
            args[name] = resolved[name]
    return args, defaults


# Task arguments another argument sets when a run leaves them out: HELMET's row (-T context)
# sets the passages and demonstrations (metadata["helmet"] records the row).
_SET_BY = {"context": ("helmet", ("ndoc", "shot"))}


def _set_by_other_argument(spec: EvalSpec, defaults: set[str]) -> dict[str, str]:
    """The arguments left out (``defaults``) whose value another given argument set.

    ``{"ndoc": "context"}`` for a HELMET run given ``-T context`` and no ``-T ndoc``: its
    ndoc is the row's, not the task's default.
    """
    passed = set(getattr(spec, "task_args_passed", None) or {})
    metadata = spec.metadata or {}
    by: dict[str, str] = {}
    for option, (record, names) in _SET_BY.items():
        if option in passed and isinstance(metadata.get(record), dict):
            by |= {name: option for name in names if name in defaults}
    return by


def _facets(log: EvalLog) -> dict[tuple[str, str], str]:
    """Everything a run was given that can set it apart, as ``{(flag, name): value}``.

    Task arguments as the task received them, defaults included as the task resolved them (a
    default that another run overrides is a difference like any other), model arguments
    (``-M model_path``), model roles, solver arguments, the generate config (the model's, the
    eval's on top) and the eval options that choose the samples.
    """
    spec = log.eval
    args, _ = _task_args(spec)
    facets = {(_TASK_ARG, k): _shown_value(v) for k, v in args.items()}
    facets |= {(_MODEL_ARG, k): _shown_value(v) for k, v in (spec.model_args or {}).items()}
    if spec.model_base_url:
        facets[(_MODEL_ARG, "base_url")] = spec.model_base_url
    facets |= {(_MODEL_ROLE, k): _shown_value(v) for k, v in (spec.model_roles or {}).items()}
    if spec.solver:
        facets |= {(_SOLVER_ARG, k): _shown_value(v) for k, v in (spec.solver_args or {}).items()}
    options = spec.model_generate_config.model_dump(exclude_none=True)
    if log.plan is not None:
        options |= log.plan.config.model_dump(exclude_none=True)
    options |= spec.config.model_dump(include=_SAMPLE_OPTIONS, exclude_none=True)
    facets |= {(_OPTION, k): _shown_value(v) for k, v in options.items()}
    return facets


def _settings(
    facets: list[dict[tuple[str, str], str]],
    models: list[str],
    strategies: list[str],
    defaults: list[set[str]] | None = None,
    set_by: list[dict[str, str]] | None = None,
) -> list[str]:
    """For the runs of one task, what sets each apart (``ndoc=2, model_path=/m/b``), or ``-``.

    An argument or option counts when its value differs between the runs (a run without it
    reads ``default``). Model arguments are compared between runs of the same model and
    solver arguments between runs of the same solver (another model or solver has other
    arguments, and its name already tells it apart); ``-T strategy`` is left out where the
    strategy column shows it. A task argument a run left at its default (``defaults``: the
    names, per run) reads ``ndoc=5 (default)``, or ``default`` where the task left it unset
    (null), as a model argument or option a run lacks does; one another argument set
    (``set_by``: name -> that argument, per run) reads ``ndoc=30 (by context)``.
    """
    defaults = defaults or [set() for _ in facets]
    set_by = set_by or [{} for _ in facets]
    peers_by = {_MODEL_ARG: models, _SOLVER_ARG: strategies}
    keys = list(dict.fromkeys(key for run in facets for key in run))

    def differs(key: tuple[str, str], i: int) -> bool:
        scope = peers_by.get(key[0])
        peers = [run for j, run in enumerate(facets) if scope is None or scope[j] == scope[i]]
        return len({run.get(key, _UNSET) for run in peers}) > 1

    strategy = (_TASK_ARG, "strategy")
    if all(run.get(strategy) == s for run, s in zip(facets, strategies, strict=True)):
        keys = [k for k in keys if k != strategy]
    shown = [[k for k in keys if differs(k, i)] for i in range(len(facets))]
    # A name that two kinds share (-T x and -M x) is shown with its flag.
    flags = Counter(name for _, name in {k for run_keys in shown for k in run_keys})

    def shown_value(
        run: dict[tuple[str, str], str], key: tuple[str, str], left: set[str], by: dict[str, str]
    ) -> str:
        value = run.get(key, _UNSET)
        if key[0] != _TASK_ARG:
            return value
        if key[1] in by:
            # Resolved from another argument the run gave (HELMET's ndoc from its context).
            return f"{value} (by {by[key[1]]})"
        if key[1] in left:
            # A default the task left unresolved (null) reads as a missing option does.
            return _UNSET if value == "null" else f"{value} (default)"
        return value

    return [
        ", ".join(
            f"{name if flags[name] == 1 else flag + name}="
            + shown_value(run, (flag, name), left, by)
            for flag, name in run_keys
        )
        or _NO_SETTING
        for run, run_keys, left, by in zip(facets, shown, defaults, set_by, strict=True)
    ]


def _label(model: str, strategy: str, setting: str) -> str:
    return f"{model}, {strategy}" + (f", {setting}" if setting != _NO_SETTING else "")


def _runs(logs: _Logs, log_dir: str | Path) -> pd.DataFrame:
    """One row per successful run: its id columns, label, sample count, log and metrics.

    Rows are sorted by task, model, strategy, setting and log, so every table and chart
    numbers the same runs the same way.
    """
    if not logs.runs:
        names = "; ".join(s.describe() for s in logs.skipped)
        raise ValueError(f"no successful runs in {log_dir} (skipped: {names})")
    runs = logs.runs
    df = pd.DataFrame(
        {
            "task": [_task_name(log.eval) for log in runs],
            "model": [redact_text(log.eval.model) for log in runs],
            "strategy": [redact_text(_strategy(log.eval)) for log in runs],
            # The scored samples where they were read; else those the header counts.
            "samples": [
                logs.facts[str(log.location)].scored
                if str(log.location) in logs.facts
                else (log.results.completed_samples if log.results else 0)
                for log in runs
            ],
            "log": [str(log.location) for log in runs],
            # HELMET's length, where the run had one (the context chart's x-axis).
            "context": [(log.eval.task_args or {}).get("context") for log in runs],
        }
    )
    # Task names alone are ambiguous (ALCE's, FullCite's and TRUST-SCORE's asqa): when two
    # benchmarks' runs share a directory, the benchmark recorded in the task metadata
    # prefixes every task's name, so that sections are named alike (``alce/asqa`` beside
    # ``alce/qampari``, never beside a bare ``qampari``). Other tasks record none.
    benchmark = pd.Series([_benchmark(log.eval.metadata) for log in runs], index=df.index)
    recorded = benchmark != "-"
    if benchmark[recorded].nunique() > 1:
        df.loc[recorded, "task"] = benchmark[recorded] + "/" + df.loc[recorded, "task"]
    facets = [_facets(log) for log in runs]
    defaults = [_task_args(log.eval)[1] for log in runs]
    set_by = [
        _set_by_other_argument(log.eval, left) for log, left in zip(runs, defaults, strict=True)
    ]
    df["setting"] = _NO_SETTING
    for _, group in df.groupby("task"):
        settings = _settings(
            [facets[i] for i in group.index],
            group["model"].tolist(),
            group["strategy"].tolist(),
            [defaults[i] for i in group.index],
            [set_by[i] for i in group.index],
        )
        # Arguments may hold credentials (a model's api_key, a spec recorded before specs
        # with credentials were refused).
        df.loc[group.index, "setting"] = [redact_text(s) for s in settings]
    df["label"] = [_label(*r) for r in zip(df["model"], df["strategy"], df["setting"], strict=True)]
    # Runs given the same everything (a rerun), or differing only in a redacted value, are
    # told apart by their log's file name (its path where the names meet too).
    repeated = df.duplicated(["task", "label"], keep=False)
    logs_of = df.loc[repeated, "log"]
    names = logs_of.map(lambda log: re.split(r"[/\\]", log)[-1])
    names = names.where(~names.duplicated(keep=False), logs_of)
    df.loc[repeated, "setting"] = [
        f"log={name}" if s == _NO_SETTING else f"{s}, log={name}"
        for s, name in zip(df.loc[repeated, "setting"], names, strict=True)
    ]
    df["label"] = [_label(*r) for r in zip(df["model"], df["strategy"], df["setting"], strict=True)]
    values = [_metric_values(log) for log in runs]
    # Columns in the order the scorers report them (TRUST-SCORE's headline first), not by name.
    metrics = pd.DataFrame(values, index=df.index)
    out = pd.concat([df[_RUN_COLUMNS], metrics], axis=1)
    all_nan = _all_nan_metrics(out, values, logs.facts)
    out = out.sort_values([*_ID_COLUMNS, "log"], kind="stable").reset_index(drop=True)
    out.attrs[_ALL_NAN] = all_nan
    return out


def _all_nan_metrics(
    runs: pd.DataFrame, values: list[dict[str, float]], facts: dict[str, _SampleFacts]
) -> dict[str, dict[str, str]]:
    """Per task, the metrics its runs logged as nan in every run, each with the logged reason.

    The reason is the commonest one the scorers gave for the key's nan values over the
    task's samples (where the samples were read).
    """
    found: dict[str, dict[str, str]] = {}
    for task, group in runs.groupby("task", sort=True):
        logged = list(dict.fromkeys(c for i in group.index for c in values[i]))
        for metric in metric_names(runs[logged]):
            if group[metric].notna().any():
                continue
            key = metric.split(" (", 1)[0]
            why: Counter[str] = Counter()
            for log in group["log"]:
                why.update(facts[log].nan_reasons.get(key, Counter()) if log in facts else {})
            common = why.most_common(1)
            reason = f"{common[0][0]} ({common[0][1]} samples)" if common else "no reason logged"
            found.setdefault(str(task), {})[metric] = reason
    return found


def load_runs(log_dir: str | Path) -> pd.DataFrame:
    """One row per successful run: id columns, ``label``, ``samples``, ``log`` and metrics.

    Metrics are ``<metric>`` / ``<metric>_stderr`` columns.
    """
    return _runs(_read_logs(log_dir), log_dir)


def metric_names(runs: pd.DataFrame) -> list[str]:
    """The metric columns of ``load_runs`` output (without their stderr companions)."""
    return [
        c for c in runs.columns if c not in _RUN_COLUMNS and not c.endswith(("_stderr", *_BOUNDS))
    ]


def _interval(run: pd.Series, metric: str) -> tuple[float, float] | None:
    """The interval beside a corrected rate, or None."""
    low, high = run.get(f"{metric}_low"), run.get(f"{metric}_high")
    if metric.endswith(_CORRECTED) and pd.notna(low) and pd.notna(high):
        return float(low), float(high)
    return None


def _cell(run: pd.Series, metric: str) -> str:
    value, err = run[metric], run.get(f"{metric}_stderr")
    if pd.isna(value):
        # Not computable for this run: never a blank that reads as "not measured" or a 0.
        return "nan"
    if (bounds := _interval(run, metric)) is not None:
        return f"{value:.2f} [{bounds[0]:.2f}, {bounds[1]:.2f}]"
    return f"{value:.2f} ± {err:.2f}" if err is not None and pd.notna(err) else f"{value:.2f}"


def _task_metrics(group: pd.DataFrame, all_nan: dict[str, str] | None = None) -> list[str]:
    """The metrics of a task's runs: those known in a run, and those logged nan in every run."""
    return [m for m in metric_names(group) if group[m].notna().any() or m in (all_nan or {})]


def _all_nan(runs: pd.DataFrame, task: Any) -> dict[str, str]:
    """The metrics of ``task`` that are nan in every run, with why (``_runs`` records them)."""
    return runs.attrs.get(_ALL_NAN, {}).get(str(task), {})


def _nan_notes(all_nan: dict[str, str]) -> str:
    """A line per metric nan in every run of a task, with its logged reason."""
    if not all_nan:
        return ""
    lines = "\n".join(f"- {_md(m)}: nan in every run: {_md(why)}" for m, why in all_nan.items())
    return f"\n\nnan in every run:\n\n{lines}"


def _md(text: Any) -> str:
    """Text for a markdown table cell: a ``|`` or a line break would end the cell or row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown_table(runs: pd.DataFrame) -> str:
    """One markdown table per task: a row per run, ``mean ± stderr`` per metric, and its log.

    Rows are in the order the terminal and the charts number the runs.
    """
    parts = []
    for task, group in runs.groupby("task", sort=True):
        all_nan = _all_nan(runs, task)
        metrics = _task_metrics(group, all_nan)
        columns = ["model", "strategy", "setting", "samples", *metrics, "log"]
        rows = [
            [
                *(_md(r[c]) for c in ("model", "strategy", "setting", "samples")),
                *(_cell(r, m) for m in metrics),
                _md(r["log"]),
            ]
            for _, r in group.iterrows()
        ]
        lines = [columns, *rows]
        header, *body = ("| " + " | ".join(cells) + " |" for cells in lines)
        rule = "|" + "---|" * len(columns)
        parts.append(f"### {task}\n\n{header}\n{rule}\n" + "\n".join(body) + _nan_notes(all_nan))
    return "\n\n".join(parts) + "\n"


def _legend(run: pd.Series) -> str:
    return f"{run['label']} (n = {run['samples']})"


def terminal_table(runs: pd.DataFrame) -> str:
    """Per task, the runs numbered and a table with a row per metric and a column per run.

    Metrics are rows so that every name is printed in full, once, however many there are.
    """
    parts = []
    for task, group in runs.groupby("task", sort=True):
        all_nan = _all_nan(runs, task)
        legend = [f"{i}. {_legend(r)}: {r['log']}" for i, (_, r) in enumerate(group.iterrows(), 1)]
        header = "| metric | " + " | ".join(str(i) for i in range(1, len(group) + 1)) + " |"
        rule = "|---|" + "---|" * len(group)
        rows = [
            f"| {m} | " + " | ".join(_cell(r, m) for _, r in group.iterrows()) + " |"
            for m in _task_metrics(group, all_nan)
        ]
        parts.append(
            f"### {task}\n\n"
            + "\n".join(legend)
            + f"\n\n{header}\n{rule}\n"
            + "\n".join(rows)
            + _nan_notes(all_nan)
        )
    return "\n\n".join(parts) + "\n"


def skipped_table(skipped: list[SkippedRun]) -> str:
    """A markdown list of the logs left out, or ``""`` when there are none."""
    if not skipped:
        return ""
    lines = [f"- {s.describe()}" for s in skipped]
    return f"### skipped runs ({len(skipped)}, not successful)\n\n" + "\n".join(lines) + "\n"


def _csv_cell(value: Any) -> Any:
    """``value`` safe to open in a spreadsheet: text that starts like a formula gets a ``'``.

    The OWASP rule for CSV injection; a number (``-0.5``) stays a number.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_csv(runs: pd.DataFrame, path: Path) -> None:
    """``metrics.csv``: a row per run, its text neutralised against formula injection."""
    table = runs.assign(setting=runs["setting"].replace(_NO_SETTING, ""))
    # Column by column: DataFrame.map needs pandas 2.1, and the project supports 2.0.
    table = table.apply(lambda column: column.map(_csv_cell))
    table.columns = [_csv_cell(c) for c in table.columns]
    table.to_csv(path, index=False)


def cited_positions(output: str, docs: list[dict[str, Any]]) -> list[int]:
    """1-based context positions cited by an ALCE answer's ``[n]`` markers (shown docs only)."""
    return [r + 1 for r in marker_refs(output) if r is not None and 0 <= r < len(docs)]


def sample_positions(sample: Any) -> list[int]:
    """1-based context positions a logged sample cites.

    FullCite samples: the positions ``citation_bias`` computed (its score metadata), invalid
    citations left out. ALCE samples (no ``citation_bias`` score): the ``[n]`` markers.
    """
    bias = (sample.scores or {}).get("citation_bias")
    positions = (bias.metadata or {}).get("positions") if bias is not None else None
    if isinstance(positions, list):
        return [p for p in positions if isinstance(p, int)]
    docs = (sample.metadata or {}).get("docs") or []
    return cited_positions(sample.output.completion if sample.output else "", docs)


def _known(value: Any) -> bool:
    """Whether a score value is known: anything but nan or nothing (a dict: any of its values).

    Inspect's own scorers (``match()``, ``includes()``, ``choice()``) give ``"C"``/``"I"``
    (and ``"P"``, ``"N"``): a string value is a grade, as known as a number.
    """
    if isinstance(value, dict):
        return any(_known(v) for v in value.values())
    if isinstance(value, list):
        return any(_known(v) for v in value)
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, int)


def _nan_reason(score: Any, key: str) -> str | None:
    """Why a score's value for ``key`` is nan, as the scorer logged it, or None.

    A scorer gives one reason per key (``metadata["reasons"]``, LongBench-Cite's citation
    keys), or one for the score (``metadata["reason"]``); else its explanation says why when it
    starts "**Not scored:**" or "**nan:**" (the project's scorers' form).
    """
    metadata = score.metadata or {}
    per_key = metadata.get("reasons")
    reason = per_key.get(key) if isinstance(per_key, dict) else None
    reason = reason or metadata.get("reason")
    if not (isinstance(reason, str) and reason.strip()):
        explanation = score.explanation or ""
        for prefix in ("**Not scored:**", "**nan:**"):
            if explanation.startswith(prefix):
                reason = explanation[len(prefix) :]
                break
        else:
            return None
    return _first_line(reason) or None


def _read_log(location: str, *, samples: bool) -> EvalLog:
    """A log's header; with ``samples``, a small local log's samples too, in the same read.

    Inspect's sample-by-sample reader opens the log again for every sample (0.15 s for a
    log of 20 samples where reading it whole takes 0.07 s: most of the report's time on many
    small logs, issue 52 item 6). Neither the samples' events nor
    their messages (most of a log: every prompt, twice) are read. A large or remote log is
    read as its header alone, and its samples streamed (``_sample_facts``), so that they are
    never all in memory at once.
    """
    from inspect_ai.log import read_eval_log

    local = Path(_shown_location(location))
    if samples and local.is_file() and local.stat().st_size <= _WHOLE_LOG_BYTES:
        try:
            return read_eval_log(location, exclude_fields=_UNREAD_FIELDS)
        # A log whose samples cannot be read whole (unfinished, damaged) is read as the
        # header-only path reads it, which says why it is skipped.
        except Exception:  # noqa: BLE001
            pass
    return read_eval_log(location, header_only=True)


def _sample_facts(location: str, samples: Iterable[Any] | None = None) -> _SampleFacts:
    """The positions a log's samples cite, how many were scored, and why the others were not.

    ``samples``: the log's samples where it was read whole; else they are streamed.
    """
    from inspect_ai.log import read_eval_log_samples

    if samples is None:
        samples = read_eval_log_samples(
            location, all_samples_required=False, exclude_fields=_UNREAD_FIELDS
        )
    cited: Counter[int] = Counter()
    scored = 0
    reasons: Counter[str] = Counter()
    nan_reasons: dict[str, Counter[str]] = {}
    misattributed: Counter[tuple[int, int]] = Counter()
    for sample in samples:
        cited.update(sample_positions(sample))
        misattributed.update(misattributed_positions(sample))
        scores = (sample.scores or {}).items()
        for name, s in scores:
            values = s.value if isinstance(s.value, dict) else {name: s.value}
            for key, value in values.items():
                if not _known(value):
                    why = _nan_reason(s, str(key))
                    if why:
                        nan_reasons.setdefault(str(key), Counter())[why] += 1
        if any(_known(s.value) for _, s in scores):
            scored += 1
            continue
        for _, s in scores:
            reason = (s.metadata or {}).get("reason")
            if isinstance(reason, str) and reason:
                reasons[_first_line(redact_text(reason))] += 1
    return _SampleFacts(cited, scored, reasons, nan_reasons, misattributed)


def _cited_positions(location: str) -> Counter[int]:
    """Counts of the context positions cited by the samples of one log."""
    return _sample_facts(location).positions


def _unscored_runs(runs: pd.DataFrame, logs: _Logs) -> list[str]:
    """One line per run with no scored sample: its log, task, label and the commonest reason."""
    lines = []
    for _, run in runs.iterrows():
        facts = logs.facts.get(str(run["log"]))
        if facts is None or facts.scored:
            continue
        common = facts.reasons.most_common(1)
        why = common[0][0] if common else "every score value is nan"
        lines.append(f"{run['log']} ({run['task']}, {run['label']}): no sample was scored: {why}")
    return lines


def _by_task(runs: pd.DataFrame, cited: dict[str, Counter[int]]) -> dict[str, Counter[int]]:
    counts: dict[str, Counter[int]] = {}
    for task, log in zip(runs["task"], runs["log"], strict=True):
        counts.setdefault(str(task), Counter()).update(cited[str(log)])
    return counts


def position_counts(runs: pd.DataFrame) -> dict[str, Counter[int]]:
    """Counts of cited positions per task, over every sample of every run."""
    return _by_task(runs, {str(log): _cited_positions(str(log)) for log in runs["log"]})


# Charts are laid out on a grid of fixed-size panels: at most _MAX_COLUMNS panels a row keeps
# every PNG under _MAX_WIDTH_PX wide however many metrics or tasks there are.
_DPI = 100
_PANEL_INCHES = (3.6, 2.6)
_MAX_COLUMNS = 5
_MAX_WIDTH_PX = 2000
_LABEL_WIDTH = 70
_PANEL_TITLE_WIDTH = 40
_TITLE_FONT_SIZE = 11
# Past this many runs a chart names them in metrics.md, not in a legend line each; run
# numbers under the bars are thinned to about _MAX_TICKS; charts with a panel per run pool
# their runs by task past _MAX_RUN_PANELS panels.
_MAX_LEGEND_RUNS = 40
_MAX_TICKS = 12
_MAX_RUN_PANELS = 30
# A figure title may take up to this share of the figure's width: constrained layout makes
# room above the panels for a title's height, never its width, so a wider one is cut off.
_TITLE_SHARE = 0.95


def _figure(n_panels: int, legend_rows: int = 0) -> tuple[Any, list[Any]]:
    """A figure with ``n_panels`` axes on a grid (unused cells hidden), room for a legend below."""
    import matplotlib.pyplot as plt

    ncols = max(1, min(n_panels, _MAX_COLUMNS))
    nrows = max(1, -(-n_panels // ncols))
    width = max(ncols * _PANEL_INCHES[0], 5.0)
    height = nrows * _PANEL_INCHES[1] + 0.8 + 0.22 * legend_rows
    # Constrained layout fits titles, ticks and the legend inside the figure, and, unlike
    # tight_layout, does not give up with a warning when there are many axes.
    fig = plt.figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _save(fig: Any, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=_DPI)
    plt.close(fig)


def _suptitle(fig: Any, title: str) -> None:
    """Set the figure's title, wrapped into lines that fit the figure's width."""
    import textwrap

    text = fig.suptitle(title, fontsize=_TITLE_FONT_SIZE)
    renderer = fig.canvas.get_renderer()
    room = fig.bbox.width * _TITLE_SHARE
    chars = len(title)
    while chars > 1 and (wide := text.get_window_extent(renderer).width) > room:
        # Lines the width of the room or less, by the measured width of a character.
        chars = min(chars - 1, int(chars * room / wide))
        text.set_text("\n".join(textwrap.wrap(title, max(chars, 1))))


def _wrap(label: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(label, _LABEL_WIDTH)) or label


def _error_bars(group: pd.DataFrame, metric: str, values: list[float]) -> Any:
    """Each run's stderr bar, or, for a corrected rate, its interval (asymmetric)."""
    if metric.endswith(_CORRECTED):
        bounds = [_interval(r, metric) for _, r in group.iterrows()]
        return [
            [0.0 if b is None else max(0.0, v - b[0]) for v, b in zip(values, bounds, strict=True)],
            [0.0 if b is None else max(0.0, b[1] - v) for v, b in zip(values, bounds, strict=True)],
        ]
    if f"{metric}_stderr" in group:
        return group[f"{metric}_stderr"].astype(float).fillna(0).tolist()
    return None


def _run_legend(fig: Any, labels: list[str], colors: list[Any]) -> None:
    """The runs named below the panels; past ``_MAX_LEGEND_RUNS`` runs, one line that says so."""
    from matplotlib.patches import Patch

    if len(labels) > _MAX_LEGEND_RUNS:
        # A legend line per run makes a chart taller than any screen (issue 52, item 6):
        # the runs are numbered as in metrics.md and the terminal table, which name them.
        fig.legend(
            [Patch(color="none")],
            [f"{len(labels)} runs, numbered as in metrics.md (its rows, in order)"],
            loc="outside lower center",
            fontsize=8,
            handlelength=0,
        )
        return
    legend_cols = 2 if len(labels) > 3 else 1
    handles = [Patch(color=c) for c in colors]
    fig.legend(handles, labels, loc="outside lower center", ncols=legend_cols, fontsize=8)


def _legend_rows(labels: list[str]) -> int:
    """The legend's height in lines (``_run_legend``)."""
    if len(labels) > _MAX_LEGEND_RUNS:
        return 1
    legend_cols = 2 if len(labels) > 3 else 1
    return sum(label.count("\n") + 1 for label in labels) // legend_cols + 1


def _run_ticks(ax: Any, n: int) -> None:
    """Run numbers under the bars: every one for few runs, evenly spaced ones for many."""
    least = 1 if n <= _MAX_LEGEND_RUNS // 2 else -(-n // (_MAX_TICKS - 1))
    # A round step (1, 2, 5, 10, 20, 50, ...) at least that wide.
    step = min(
        m * 10**e for e in range(len(str(least)) + 1) for m in (1, 2, 5) if m * 10**e >= least
    )
    # Run 1, then every step-th run (20, 40, ...): numbers a reader finds in metrics.md.
    numbers = sorted({1, *range(step, n + 1, step)})
    ax.set_xticks([k - 1 for k in numbers], [str(k) for k in numbers], fontsize=7)


def _bar_chart(
    group: pd.DataFrame, task: str, path: Path, all_nan: dict[str, str] | None = None
) -> None:
    """Every metric of a task in its own panel, one coloured bar per run, runs named below.

    A run whose value is nan shows ``nan`` where its bar would be (a 0 is a bar of height
    0 with its value axis); a metric nan in every run (``all_nan``) keeps its panel, saying
    why. Panels are in the order the scorers report their metrics.
    """
    import textwrap

    import matplotlib.pyplot as plt

    all_nan = all_nan or {}
    metrics = _task_metrics(group, all_nan)
    labels = [_wrap(f"{i}. {_legend(r)}") for i, (_, r) in enumerate(group.iterrows(), 1)]
    colors = [plt.get_cmap("tab20")(i % 20) for i in range(len(labels))]
    fig, axes = _figure(len(metrics), _legend_rows(labels))
    x = list(range(len(labels)))
    for ax, m in zip(axes, metrics, strict=True):
        values = group[m].astype(float).tolist()
        # A long name (a rescore's judge) wraps to the panel's width.
        name = "\n".join(textwrap.wrap(m, _PANEL_TITLE_WIDTH)) or m
        ax.set_title(f"{name}\n{metric_direction(m)}", fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
        if m in all_nan:
            why = "\n".join(textwrap.wrap(f"nan in every run: {all_nan[m]}", 34))
            ax.text(0.5, 0.5, why, ha="center", va="center", fontsize=7, transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        err = _error_bars(group, m, values)
        # Caps on hundreds of thin bars would merge into one black band.
        capsize = 3 if len(x) <= _MAX_LEGEND_RUNS else 0
        bars = [0.0 if pd.isna(v) else v for v in values]
        ax.bar(x, bars, color=colors, yerr=err, capsize=capsize)
        for xi, v in zip(x, values, strict=True):
            if pd.isna(v) or v == 0:
                # Not computable for that run: no bar, and "nan" where it would stand; a 0
                # (a bar of no height) says "0", so the two never look alike.
                ax.patches[xi].set_visible(not pd.isna(v))
                ax.annotate(
                    "nan" if pd.isna(v) else "0",
                    (xi, 0),
                    xycoords=("data", "axes fraction"),
                    xytext=(0, 2),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    rotation=90,
                    fontsize=6,
                    color="dimgrey",
                )
        _run_ticks(ax, len(x))
        # Each panel says what its error bars are: a corrected rate shows its interval.
        ax.set_xlabel(f"run; bars: {_bar_kind(m, err)}", fontsize=7)
        _value_axis(ax, values, err[1] if m.endswith(_CORRECTED) else err)
    _run_legend(fig, labels, colors)
    _suptitle(fig, f"{task}: metrics by run (mean over n samples)")
    _save(fig, path)


def _bar_kind(metric: str, err: Any) -> str:
    """What a panel's error bars show, as its axis says it."""
    if metric.endswith(_CORRECTED):
        return f"{CONFIDENCE:.0%} interval"
    return "± stderr" if err is not None else "no error bars"


def _value_axis(ax: Any, values: list[float], upper: list[float] | None) -> None:
    """Start a panel of values that are all >= 0 at 0; all zero, show 0 to 1.

    Matplotlib centres a panel whose bars are all 0 on 0 (-0.04 to 0.04), which reads as
    negative values; a rate or count starts at 0 and its top is the highest bar or bar end.
    """
    known = [v for v in values if not pd.isna(v)]
    if not known or min(known) < 0:
        return
    ends = [v + (upper[i] if upper is not None else 0.0) for i, v in enumerate(values)]
    top = max((end for end in ends if not pd.isna(end)), default=0.0)
    ax.set_ylim(0, top * 1.05 if top > 0 else 1.0)


def _doc_vs_snippet(runs: pd.DataFrame, path: Path) -> bool:
    """Doc-F1 against Snippet-F1, a numbered point per run, the runs named below the axes."""
    import matplotlib.pyplot as plt

    doc = next((c for c in ("doc_f1", "Doc-F1") if c in runs), None)
    snip = next((c for c in ("snippet_f1", "Snippet-F1") if c in runs), None)
    if doc is None or snip is None:
        return False
    data = runs.dropna(subset=[doc, snip])
    if data.empty:
        return False
    labels = [
        _wrap(f"{i}. {r['task']}: {_legend(r)}") for i, (_, r) in enumerate(data.iterrows(), 1)
    ]
    # A legend row per line of a wrapped label: long labels (a dataset path) wrap.
    lines = sum(label.count("\n") + 1 for label in labels)
    fig = plt.figure(figsize=(7, 6 + 0.2 * lines), layout="constrained")
    ax = fig.subplots()
    points: dict[tuple[float, float], list[str]] = {}
    for i, (_, r) in enumerate(data.iterrows()):
        color = plt.get_cmap("tab20")(i % 20)
        ax.scatter(r[doc], r[snip], color=color, label=labels[i])
        points.setdefault((round(r[doc], 1), round(r[snip], 1)), []).append(str(i + 1))
    # Runs at the same point share one label instead of overprinting each other.
    for (x, y), numbers in points.items():
        text = ",".join(numbers)
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.plot([0, 100], [0, 100], linestyle=":", color="grey")
    ax.set_xlim(-5, 105)
    ax.set_ylim(-5, 105)
    ax.set_xlabel(f"Doc-F1 ({metric_direction(doc)})")
    ax.set_ylabel(f"Snippet-F1 ({metric_direction(snip)})")
    ax.set_title("FullCite: document vs evidence-span attribution")
    fig.legend(loc="outside lower center", fontsize=8)
    _save(fig, path)
    return True


# HELMET's "Cite" metrics per dataset (its scripts/collect_results.py): plotted against length.
_CONTEXT_METRICS = ("str_em", "qampari_rec_top5", "citation_rec", "citation_prec")


def _context_chart(runs: pd.DataFrame, path: Path) -> bool:
    """Score against HELMET's context length, a line per run series differing only by it.

    Runs of a task with a ``-T context`` form a series when they agree on everything else
    (model, strategy, every other setting); a series needs two lengths or more.
    """
    import matplotlib.pyplot as plt

    from inspect_cite.alce.helmet import context_tokens

    if "context" not in runs or runs["context"].isna().all():
        return False
    data = runs.dropna(subset=["context"]).copy()
    # A default the context sets (HELMET's ndoc per length) is no setting of the series.
    data["series"] = [
        ", ".join(
            p
            for p in str(s).split(", ")
            if not p.startswith("context=") and not p.endswith(("(default)", "(by context)"))
        )
        or _NO_SETTING
        for s in data["setting"]
    ]
    series = [
        (key, group.assign(x=[context_tokens(c) for c in group["context"]]).sort_values("x"))
        for key, group in data.groupby(["task", "model", "strategy", "series"], sort=True)
        if group["context"].nunique() >= 2
    ]
    metrics = [m for m in _CONTEXT_METRICS if m in data and data[m].notna().any()]
    if not series or not metrics:
        return False
    fig = plt.figure(figsize=(4.2 * len(metrics), 3.6 + 0.25 * len(series)), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics, strict=True):
        for i, ((task, model, strategy, setting), group) in enumerate(series):
            label = _wrap(
                f"{task}: {model}, {strategy}" + ("" if setting == _NO_SETTING else f", {setting}")
            )
            ax.plot(
                group["x"],
                group[metric],
                marker="o",
                color=plt.get_cmap("tab10")(i % 10),
                label=label if ax is axes[0] else None,
            )
        ax.set_xscale("log", base=2)
        ticks = sorted({int(x) for _, g in series for x in g["x"]})
        ax.set_xticks(ticks, [f"{t // 1024}k" for t in ticks])
        ax.set_xlabel("context length (HELMET, tokens)")
        ax.set_title(f"{metric}\n{metric_direction(metric)}", fontsize=9)
    _suptitle(fig, "Score against context length (HELMET's cite ladder)")
    fig.legend(loc="outside lower center", fontsize=8)
    _save(fig, path)
    return True


def _positions_chart(runs: pd.DataFrame, cited: dict[str, Counter[int]], path: Path) -> bool:
    """Share of citations per context position, a panel per run, with its citation count.

    Runs are numbered within their task as in the tables and coloured as in the metric
    charts; a run that cited nothing gets an empty panel saying so.
    """
    import matplotlib.pyplot as plt

    panels = [
        (str(task), str(i), run["samples"], cited.get(str(run["log"]), Counter()))
        for task, group in runs.groupby("task", sort=True)
        for i, (_, run) in enumerate(group.iterrows(), 1)
    ]
    if not any(sum(counter.values()) for *_, counter in panels):
        return False
    labels = [
        _wrap(f"{task} {i}. {_legend(run)}")
        for task, group in runs.groupby("task", sort=True)
        for i, (_, run) in enumerate(group.iterrows(), 1)
    ]
    colors = [plt.get_cmap("tab20")((int(i) - 1) % 20) for _, i, _, _ in panels]
    pooled_runs = len(panels) > _MAX_RUN_PANELS
    if pooled_runs:
        # A panel per run would make a chart thousands of pixels tall: a panel per task, its
        # runs' citations pooled.
        panels = []
        for task, group in runs.groupby("task", sort=True):
            pooled: Counter[int] = Counter()
            for log in group["log"]:
                pooled.update(cited.get(str(log), Counter()))
            samples = int(group["samples"].sum())
            panels.append((str(task), f"({len(group)} runs pooled)", samples, pooled))
        colors = [plt.get_cmap("tab20")(0)] * len(panels)
        labels = [f"{len(runs)} runs, their citations pooled by task"]
    fig, axes = _figure(len(panels), _legend_rows(labels))
    for ax, (task, i, samples, counter), color in zip(axes, panels, colors, strict=True):
        total = sum(counter.values())
        ax.set_xlabel("cited context position", fontsize=8)
        ax.set_ylabel("% of citations", fontsize=8)
        if not total:
            ax.set_title(f"{task} {i}: no citations\nn = {samples} samples", fontsize=9)
            ax.set_xticks([])
            ax.set_ylim(0, 100)
            continue
        positions = range(1, max(counter) + 1)
        shares = [100 * counter[p] / total for p in positions]
        ax.bar(list(positions), shares, color=color)
        ax.set_xticks(list(positions), [str(p) for p in positions], fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        first_two = 100 * (counter[1] + counter[2]) / total
        ax.set_title(
            f"{task} {i}: {first_two:.1f}% to the first two\n"
            f"{total} citations, n = {samples} samples",
            fontsize=9,
        )
        ax.set_ylim(0, max(shares) * 1.05)
    _run_legend(fig, labels, colors[: len(labels)])
    # A position's share describes the bias; which share is right depends on the evidence.
    by = "by task, runs pooled" if pooled_runs else "by run"
    _suptitle(fig, f"Cited positions, {by} ({metric_direction('first_two_share')})")
    _save(fig, path)
    return True


# One colour per class, in DIAGNOSE_CLASSES order: green for supported, the failures warm.
_CLASS_COLORS = ("#4c9a2a", "#e39b27", "#c8423b", "#9a9a9a")


def _diagnosed(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs scored with ``diagnose=true`` (they have every class's mean)."""
    if not set(DIAGNOSE_CLASSES) <= set(runs.columns):
        return runs.iloc[0:0]
    return runs.dropna(subset=list(DIAGNOSE_CLASSES))


def _classes_chart(runs: pd.DataFrame, path: Path) -> bool:
    """A stacked bar per diagnosed run of its claims' classes, a panel per task, runs named."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    data = _diagnosed(runs)
    if data.empty:
        return False
    tasks = sorted(data.groupby("task"), key=lambda item: str(item[0]))
    # One full-width panel per task: the runs' labels fit beside their bars.
    heights = [0.45 * len(group) + 0.9 for _, group in tasks]
    fig = plt.figure(figsize=(11, sum(heights) + 1.0), layout="constrained")
    axes = fig.subplots(len(tasks), 1, squeeze=False, height_ratios=heights).ravel()
    for ax, (task, group) in zip(axes, tasks, strict=True):
        y = list(range(len(group)))[::-1]
        left = [0.0] * len(group)
        for name, color in zip(DIAGNOSE_CLASSES, _CLASS_COLORS, strict=True):
            values = group[name].astype(float).tolist()
            ax.barh(y, values, left=left, color=color)
            left = [a + b for a, b in zip(left, values, strict=True)]
        labels = [_wrap(f"{i}. {_legend(r)}") for i, (_, r) in enumerate(group.iterrows(), 1)]
        ax.set_yticks(y, labels, fontsize=7)
        ax.set_xlim(0, 100)
        ax.set_title(str(task), fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1].set_xlabel("% of claims (mean over samples)", fontsize=8)
    handles = [Patch(color=c) for c in _CLASS_COLORS]
    fig.legend(handles, DIAGNOSE_CLASSES, loc="outside lower center", ncols=4, fontsize=8)
    _suptitle(fig, "Why citations fail: each claim's class")
    _save(fig, path)
    return True


def misattributed_positions(sample: Any) -> list[tuple[int, int]]:
    """``(cited, supporting)`` document positions of a logged sample's misattributed claims.

    Read from the diagnosis a scorer run with ``diagnose=true`` keeps in its score metadata;
    every cited position is paired with every supporting one.
    """
    pairs: list[tuple[int, int]] = []
    for score in (sample.scores or {}).values():
        diagnosis = (score.metadata or {}).get(METADATA_KEY)
        if not isinstance(diagnosis, dict):
            continue
        for claim in diagnosis.get("claims") or []:
            if not isinstance(claim, dict) or claim.get("class") != "misattributed":
                continue
            cited, supporting = claim.get("cited") or [], claim.get("supporting") or []
            pairs += [
                (c, s)
                for c in cited
                for s in supporting
                if isinstance(c, int) and isinstance(s, int)
            ]
    return pairs


def _misattribution_chart(
    runs: pd.DataFrame, pairs: dict[str, Counter[tuple[int, int]]], path: Path
) -> bool:
    """Per diagnosed run with misattributed claims: cited position against supporting one.

    ``pairs``: each log's ``(cited, supporting)`` counts, read with its samples' other facts.
    """
    panels: list[tuple[Any, Counter[tuple[int, int]]]] = [
        (run, pairs[str(run["log"])])
        for _, run in _diagnosed(runs).iterrows()
        if run["misattributed"] > 0 and pairs.get(str(run["log"]))
    ]
    if not panels:
        return False
    titles = [f"{run['task']}: {run['label']}" for run, _ in panels]
    if len(panels) > _MAX_RUN_PANELS:
        # A panel per task, its runs pooled, as the positions chart does.
        pooled: dict[str, tuple[int, Counter[tuple[int, int]]]] = {}
        for run, counts in panels:
            n, total = pooled.get(str(run["task"]), (0, Counter()))
            pooled[str(run["task"])] = (n + 1, total + counts)
        titles = [f"{task} ({n} runs pooled)" for task, (n, _) in pooled.items()]
        panels = [(None, counts) for _, counts in pooled.values()]
    fig, axes = _figure(len(panels))
    for ax, title, (_, counts) in zip(axes, titles, panels, strict=True):
        size = max(max(pair) for pair in counts)
        grid = [[counts[(c, s)] for c in range(1, size + 1)] for s in range(1, size + 1)]
        ax.imshow(grid, origin="lower", cmap="Oranges", extent=(0.5, size + 0.5, 0.5, size + 0.5))
        most = max(counts.values())
        for (c, s), n in counts.items():
            # Dark cells get white text.
            color = "white" if n > most / 2 else "black"
            ax.annotate(str(n), (c, s), ha="center", va="center", fontsize=7, color=color)
        ticks = list(range(1, size + 1))
        ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=7)
        ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=7)
        ax.set_xlabel("cited position", fontsize=8)
        ax.set_ylabel("supporting document's position", fontsize=8)
        ax.set_title(_wrap(title), fontsize=7)
    _suptitle(fig, "Misattributed claims: the document cited vs the one that supports the claim")
    _save(fig, path)
    return True


def write_report(log_dir: str | Path, out_dir: str | Path) -> Report:
    """Write the tables and charts; return the runs, the logs skipped and the files written."""
    import matplotlib

    matplotlib.use("Agg")
    logs = _read_logs(log_dir, samples=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = _runs(logs, log_dir)
    written = [out / "metrics.md", out / "metrics.csv"]
    unscored = _unscored_runs(runs, logs)
    tables = markdown_table(runs)
    if unscored:
        lines = "\n".join(f"- {line}" for line in unscored)
        tables += f"\n### runs without a scored sample ({len(unscored)})\n\n{lines}\n"
    if logs.skipped:
        tables += "\n" + skipped_table(logs.skipped)
    (out / "metrics.md").write_text(tables)
    write_csv(runs, out / "metrics.csv")
    for task, group in runs.groupby("task", sort=True):
        # A task name is the user's text: only letters, digits, '.', '_' and '-' name a file.
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", str(task)).strip("._") or "task"
        path = out / f"{stem}_metrics.png"
        _bar_chart(group, str(task), path, _all_nan(runs, task))
        written.append(path)
    if _doc_vs_snippet(runs, out / "fullcite_doc_vs_snippet.png"):
        written.append(out / "fullcite_doc_vs_snippet.png")
    if _context_chart(runs, out / "context_length.png"):
        written.append(out / "context_length.png")
    positions = {log: facts.positions for log, facts in logs.facts.items()}
    if _positions_chart(runs, positions, out / "citation_positions.png"):
        written.append(out / "citation_positions.png")
    if _classes_chart(runs, out / "diagnose_classes.png"):
        written.append(out / "diagnose_classes.png")
    pairs = {log: facts.misattributed for log, facts in logs.facts.items()}
    if _misattribution_chart(runs, pairs, out / "diagnose_positions.png"):
        written.append(out / "diagnose_positions.png")
    return Report(runs=runs, skipped=logs.skipped, written=written, unscored=unscored)
