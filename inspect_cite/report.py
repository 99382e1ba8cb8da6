"""``inspect-cite report``: compare runs across tasks, models and strategies.

Reads a directory of Inspect logs (one ``inspect eval-set`` directory, or any folder of ``.eval``
files) through ``inspect_ai.analysis``, and writes:

- ``metrics.md`` and ``metrics.csv``: every metric (mean and stderr) by task, model, strategy and
  whatever other task argument differs between the runs;
- ``<task>_metrics.png``: each metric by model and strategy, with stderr bars;
- ``fullcite_doc_vs_snippet.png``: Doc-F1 against Snippet-F1 per run (FullCite tasks);
- ``citation_positions.png``: how often each context position is cited (primacy bias).
"""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from inspect_cite.alce_citations import alce_refs
from inspect_cite.citations import parse_citations
from inspect_cite.http_client import redact_text

_ID_COLUMNS = ["task", "model", "strategy", "setting"]
_WEIGHTED = re.compile(r"^score_(.+)_(?:\w+/)?weighted_mean$")
# Task arguments that name files: never a "setting" that distinguishes runs.
_PATH_ARGS = re.compile(r"(_path|_file|_dir)$")


def _strategy(row: pd.Series) -> str:
    # A solver given with --solver replaces the task's own, so it names the strategy first;
    # its package prefix adds nothing.
    solver = row.get("solver")
    if isinstance(solver, str) and solver:
        return solver.split("/")[-1]
    strategy = row.get("task_arg_strategy")
    return strategy if isinstance(strategy, str) and strategy else "default"


def _benchmark(metadata: Any) -> str:
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return "-"
    return str(metadata.get("benchmark", "-")) if isinstance(metadata, dict) else "-"


def load_runs(log_dir: str | Path) -> pd.DataFrame:
    """One row per successful run with id columns and ``<metric>`` / ``<metric>_stderr`` columns."""
    from inspect_ai.analysis import evals_df

    df = evals_df(str(log_dir), quiet=True)
    if df.empty:
        raise ValueError(f"no Inspect logs found in {log_dir}")
    df = df[df["status"] == "success"].copy()
    if df.empty:
        raise ValueError(f"no successful runs in {log_dir}")
    # Task names alone are ambiguous (ALCE's and FullCite's asqa): when both benchmarks'
    # runs share a directory, the benchmark recorded in the task metadata prefixes the name.
    df["task"] = df["task_name"].astype(str).str.split("/").str[-1]
    benchmark = df["metadata"].map(_benchmark) if "metadata" in df.columns else None
    if benchmark is not None:
        for name, group in df.groupby("task"):
            if benchmark[group.index].nunique() > 1:
                df.loc[group.index, "task"] = benchmark[group.index] + "/" + str(name)
    df["strategy"] = df.apply(_strategy, axis=1)
    arg_cols = [
        c
        for c in df.columns
        if c.startswith("task_arg_") and c != "task_arg_strategy" and not _PATH_ARGS.search(c)
    ]

    def setting(row: pd.Series) -> str:
        same_task = df[df["task"] == row["task"]]
        varying = [c for c in arg_cols if same_task[c].astype(str).nunique() > 1]
        # Logs written before specs with credentials were refused may still hold them.
        shown = (f"{c[len('task_arg_') :]}={redact_text(str(row[c]))}" for c in varying)
        return ", ".join(shown) or "-"

    df["setting"] = df.apply(setting, axis=1)
    out = df[_ID_COLUMNS + ["log"]].copy()
    for column in sorted(c for c in df.columns if c.startswith("score_") and c.endswith("_mean")):
        weighted = _WEIGHTED.match(column)
        if weighted:
            # citation_bias's share over all citations: metric weighted_mean, registered as
            # scorers/weighted_mean when the package is installed.
            out[f"{weighted.group(1)} (weighted)"] = df[column]
            continue
        m = column[len("score_") : -len("_mean")]
        out[m] = df[column]
        if f"score_{m}_stderr" in df.columns:
            out[f"{m}_stderr"] = df[f"score_{m}_stderr"]
    return out.sort_values(_ID_COLUMNS).reset_index(drop=True)


def metric_names(runs: pd.DataFrame) -> list[str]:
    """The metric columns of ``load_runs`` output (without their stderr companions)."""
    return [c for c in runs.columns if c not in (*_ID_COLUMNS, "log") and not c.endswith("_stderr")]


def markdown_table(runs: pd.DataFrame) -> str:
    """One markdown table per task: a row per run, ``mean ± stderr`` per metric."""
    parts = []
    for task, group in runs.groupby("task", sort=True):
        metrics = [m for m in metric_names(group) if group[m].notna().any()]
        header = "| model | strategy | setting | " + " | ".join(metrics) + " |"
        rule = "|" + "---|" * (3 + len(metrics))
        rows = []
        for _, r in group.iterrows():
            cells = []
            for m in metrics:
                value, err = r[m], r.get(f"{m}_stderr")
                if pd.isna(value):
                    cells.append("-")
                elif pd.notna(err):
                    cells.append(f"{value:.2f} ± {err:.2f}")
                else:
                    cells.append(f"{value:.2f}")
            rows.append(
                f"| {r['model']} | {r['strategy']} | {r['setting']} | " + " | ".join(cells) + " |"
            )
        parts.append(f"### {task}\n\n{header}\n{rule}\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


def cited_positions(output: str, docs: list[dict[str, Any]]) -> list[int]:
    """1-based context positions cited by an answer (ALCE ``[n]`` or FullCite doc ids)."""
    ids = [str(d.get("id")) for d in docs]
    positions: list[int] = []
    for citation in parse_citations(output, ids).citations:
        if citation.doc_id in ids:
            positions.append(ids.index(citation.doc_id) + 1)
    if not positions:
        positions = [r + 1 for r in alce_refs(output) if r is not None and 0 <= r < len(docs)]
    return positions


def position_counts(runs: pd.DataFrame) -> dict[str, Counter[int]]:
    """Counts of cited positions per task, over every sample of every run."""
    from inspect_ai.log import read_eval_log

    counts: dict[str, Counter[int]] = {}
    for _, run in runs.iterrows():
        log = read_eval_log(str(run["log"]))
        counter = counts.setdefault(str(run["task"]), Counter())
        for sample in log.samples or []:
            docs = (sample.metadata or {}).get("docs") or []
            counter.update(cited_positions(sample.output.completion if sample.output else "", docs))
    return counts


def _bar_chart(group: pd.DataFrame, task: str, path: Path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    metrics = [m for m in metric_names(group) if group[m].notna().any()]
    labels = [
        f"{r['model']}\n{r['strategy']}" + (f"\n{r['setting']}" if r["setting"] != "-" else "")
        for _, r in group.iterrows()
    ]
    fig, axes = plt.subplots(
        1, len(metrics), figsize=(max(4, 2.6 * len(metrics)), 4), squeeze=False
    )
    x = np.arange(len(labels))
    for ax, m in zip(axes[0], metrics, strict=True):
        err = group[f"{m}_stderr"] if f"{m}_stderr" in group else None
        ax.bar(x, group[m].fillna(0), yerr=None if err is None else err.fillna(0), capsize=3)
        ax.set_title(m, fontsize=9)
        ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=7)
    fig.suptitle(f"{task}: metrics by model and strategy")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _doc_vs_snippet(runs: pd.DataFrame, path: Path) -> bool:
    import matplotlib.pyplot as plt

    doc = next((c for c in ("doc_f1", "Doc-F1") if c in runs), None)
    snip = next((c for c in ("snippet_f1", "Snippet-F1") if c in runs), None)
    if doc is None or snip is None:
        return False
    data = runs.dropna(subset=[doc, snip])
    if data.empty:
        return False
    fig, ax = plt.subplots(figsize=(5, 5))
    for _, r in data.iterrows():
        ax.scatter(r[doc], r[snip])
        ax.annotate(f"{r['task']} {r['model']} {r['strategy']}", (r[doc], r[snip]), fontsize=7)
    ax.plot([0, 100], [0, 100], linestyle=":", color="grey")
    ax.set_xlabel("Doc-F1")
    ax.set_ylabel("Snippet-F1")
    ax.set_title("FullCite: document vs evidence-span attribution")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _positions_chart(counts: dict[str, Counter[int]], path: Path) -> bool:
    import matplotlib.pyplot as plt

    counts = {t: c for t, c in counts.items() if sum(c.values())}
    if not counts:
        return False
    fig, axes = plt.subplots(1, len(counts), figsize=(4 * len(counts), 3.5), squeeze=False)
    for ax, (task, counter) in zip(axes[0], sorted(counts.items()), strict=True):
        total = sum(counter.values())
        positions = range(1, max(counter) + 1)
        shares = [100 * counter[p] / total for p in positions]
        ax.bar(list(positions), shares)
        first_two = 100 * (counter[1] + counter[2]) / total
        ax.set_title(f"{task}: {first_two:.1f}% to the first two", fontsize=9)
        ax.set_xlabel("cited context position")
        ax.set_ylabel("% of citations")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_report(log_dir: str | Path, out_dir: str | Path) -> tuple[pd.DataFrame, list[Path]]:
    """Write the tables and charts; return the runs table and the files written."""
    import matplotlib

    matplotlib.use("Agg")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = load_runs(log_dir)
    written = [out / "metrics.md", out / "metrics.csv"]
    (out / "metrics.md").write_text(markdown_table(runs))
    runs.drop(columns=["log"]).to_csv(out / "metrics.csv", index=False)
    for task, group in runs.groupby("task", sort=True):
        path = out / f"{str(task).replace('/', '_')}_metrics.png"
        _bar_chart(group, str(task), path)
        written.append(path)
    if _doc_vs_snippet(runs, out / "fullcite_doc_vs_snippet.png"):
        written.append(out / "fullcite_doc_vs_snippet.png")
    if _positions_chart(position_counts(runs), out / "citation_positions.png"):
        written.append(out / "citation_positions.png")
    return runs, written
