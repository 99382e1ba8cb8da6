"""``inspect-cite calibrate --stress``: whether the judge can be fooled.

From every human-supported pair of each dataset, :mod:`inspect_cite.app.perturb` makes
perturbed pairs: unsupported by construction (a judge should say "not supported") or
meaning-preserving (its decision should stay the one it gave the unperturbed pair). Each is
judged by the judge under calibration, through the same backend, batching and disk cache as
``calibrate``'s own pairs (:func:`inspect_cite.app.calibrate.judge_pairs`): the evidence texts
joined as the loaders join them (:data:`EVIDENCE_SEPARATOR`).

Per judge, dataset and type: ``n`` decided pairs, ``abstain``, and the rate a judge should hold
near 100: **detected** (unsupported types: the share it called "not supported") or **kept**
(invariant types: the share whose decision equals its decision on the source pair), with a
percentile-bootstrap interval (:func:`inspect_cite.statistics.calibration.agreement`: detected
is the specificity of verdicts against an all-"not supported" truth, kept the accuracy of
verdicts against the source decisions).

Writes ``stress.jsonl`` (a line per judge and perturbed pair), ``stress.json``, ``stress.md``
and ``stress.png``.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_cite.app.human_labels import EVIDENCE_SEPARATOR, HumanData
from inspect_cite.app.perturb import (
    INVARIANT,
    KIND,
    LANGUAGE_TYPES,
    MAX_PER_PAIR,
    TYPES,
    UNSUPPORTED,
    Perturbations,
    Source,
    perturb,
)
from inspect_cite.downloads.files import write_atomic
from inspect_cite.nli import NLIError, NLIResult
from inspect_cite.statistics.calibration import BOOTSTRAP_DRAWS, CONFIDENCE, Confusion, agreement

STRESS_JSONL = "stress.jsonl"
STRESS_JSON = "stress.json"
STRESS_MD = "stress.md"
STRESS_CHART = "stress.png"
MEASURE = {UNSUPPORTED: "detected", INVARIANT: "kept"}


def perturb_data(data: HumanData, *, seed: int) -> Perturbations:
    """The perturbed pairs of every human-supported pair of ``data``."""
    sources = [
        Source(position=i, evidence=p.evidence_texts, claim=p.claim)
        for i, p in enumerate(data.pairs)
    ]
    supported = [i for i, p in enumerate(data.pairs) if p.label]
    return perturb(sources, supported, seed=seed)


@dataclass
class StressLine:
    """One judge's answer on one perturbed pair (a line of ``stress.jsonl``)."""

    judge: str
    data: HumanData
    position: int
    type: str
    evidence: tuple[str, ...]
    claim: str
    decision: bool | None
    probability: float | None
    source_decision: bool | None
    reason: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The line: where its source pair is, the perturbation, the judge's answer."""
        pair = self.data.pairs[self.position]
        return {
            "judge": self.judge,
            "data": self.data.name,
            "index": pair.index,
            "pair": pair.pair,
            "subset": pair.subset,
            "kind": KIND[self.type],
            "type": self.type,
            "evidence": list(self.evidence),
            "claim": self.claim,
            "probability": self.probability,
            "decision": self.decision,
            "source_decision": self.source_decision,
            "reason": self.reason,
        }

    @property
    def hit(self) -> bool | None:
        """Detected (unsupported) or kept (invariant); None when it cannot be told."""
        if self.decision is None:
            return None
        if KIND[self.type] == UNSUPPORTED:
            return not self.decision
        return None if self.source_decision is None else self.decision == self.source_decision


@dataclass
class Stress:
    """What ``--stress`` measured: each dataset's perturbations, every judged line, speeds."""

    seed: int
    perturbations: dict[str, Perturbations] = field(default_factory=dict)
    lines: list[StressLine] = field(default_factory=list)
    speed: dict[tuple[str, str], tuple[float, int, int]] = field(default_factory=dict)
    """Per (judge, dataset): seconds, pairs judged and the pairs the model was asked."""
    judged: list[str] = field(default_factory=list)
    """The judges, in the order judged: one with no pair to judge has its rows too (n 0)."""

    def rows(self, judge: str) -> list[dict[str, Any]]:
        """Per dataset and type (in :data:`TYPES` order): counts, rate, interval."""
        rows = []
        for name in self.perturbations:
            mine = [x for x in self.lines if x.judge == judge and x.data.name == name]
            for type_ in TYPES:
                row = _row(name, type_, [x for x in mine if x.type == type_])
                if not row["n"]:
                    row["reason"] = self._why_none(name, type_, row["abstain"])
                rows.append(row)
        return rows

    def _why_none(self, name: str, type_: str, abstained: int) -> str:
        # Why a row's rate is nan, in the row: never an empty table.
        made = self.perturbations[name]
        if not made.sources:
            return "no human-supported pair in the data"
        if abstained:
            return "the judge abstained on every pair"
        if type_ in made.skipped:
            return "none made: " + ", ".join(made.skipped[type_])
        return "none made"

    def judges(self) -> list[str]:
        """The judges, in the order judged."""
        return list(dict.fromkeys([*self.judged, *(x.judge for x in self.lines)]))

    def as_json(self) -> dict[str, Any]:
        """The content of ``stress.json``."""
        return {
            "version": 1,
            "seed": self.seed,
            "confidence": CONFIDENCE,
            "bootstrap_draws": BOOTSTRAP_DRAWS,
            "max_per_pair": MAX_PER_PAIR,
            "language_types": {k: list(v) for k, v in LANGUAGE_TYPES.items()},
            "data": [
                {
                    "data": name,
                    "source_pairs": p.sources,
                    "perturbed_pairs": len(p.pairs),
                    "languages": dict(p.languages),
                    "skipped": {t: dict(p.skipped[t]) for t in TYPES if t in p.skipped},
                }
                for name, p in self.perturbations.items()
            ],
            "judges": [
                {
                    "nli": judge,
                    "types": self.rows(judge),
                    "speed": {
                        name: _speed(*self.speed[(judge, name)])
                        for name in self.perturbations
                        if (judge, name) in self.speed
                    },
                }
                for judge in self.judges()
            ],
        }


def _speed(seconds: float, pairs: int, calls: int) -> dict[str, Any]:
    per_s = pairs / seconds if seconds > 0 else math.nan
    return {
        "pairs": pairs,
        "seconds": round(seconds, 3),
        "pairs_per_s": round(per_s, 2) if math.isfinite(per_s) else None,
        "nli_calls": calls,
    }


def _x100(value: float) -> float | None:
    return round(100 * value, 4) if math.isfinite(value) else None


def _rate_of(kind: str, hits: Sequence[bool]) -> tuple[float | None, list[float | None]]:
    """The share of ``hits`` (x100) and its bootstrap interval.

    Detected is the specificity of verdicts against an all-"not supported" truth; kept, the
    accuracy of verdicts against the source decisions: the project's bootstrap gives either.
    """
    if kind == UNSUPPORTED:
        confusion = Confusion.count([False] * len(hits), [not h for h in hits])
        key = "specificity"
    else:
        confusion = Confusion.count([True] * len(hits), list(hits))
        key = "accuracy"
    result = agreement(confusion)
    return _x100(result.values[key]), [_x100(v) for v in result.intervals[key]]


def _row(name: str, type_: str, lines: Sequence[StressLine]) -> dict[str, Any]:
    kind = KIND[type_]
    hits = [x.hit for x in lines if x.hit is not None]
    rate, interval = _rate_of(kind, [bool(h) for h in hits])
    row: dict[str, Any] = {
        "data": name,
        "kind": kind,
        "type": type_,
        "measure": MEASURE[kind],
        "n": len(hits),
        "abstain": len(lines) - len(hits),
        "hits": sum(bool(h) for h in hits),
        MEASURE[kind]: rate,
        f"{MEASURE[kind]}_ci": interval,
        "rate": rate,
        "rate_ci": interval,
    }
    if kind == UNSUPPORTED:
        # A judge that rejects everything detects everything: read detection where the judge
        # accepted the source pair, the pairs where being fooled was possible.
        accepted = [not x.decision for x in lines if x.source_decision and x.decision is not None]
        rate, interval = _rate_of(kind, accepted)
        row |= {
            "n_source_supported": len(accepted),
            "rate_source_supported": rate,
            "rate_source_supported_ci": interval,
        }
    return row


def _reason(error: NLIError) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else "failed"


def judged_pairs(perturbations: Perturbations) -> list[tuple[str, str]]:
    """The (premise, hypothesis) the judge reads for each perturbed pair, in order."""
    return [(EVIDENCE_SEPARATOR.join(p.evidence), p.claim) for p in perturbations.pairs]


def add_judged(
    stress: Stress,
    judge: str,
    data: HumanData,
    results: Sequence[NLIResult | NLIError],
    source_decisions: Sequence[bool | None],
    speed: tuple[float, int],
) -> None:
    """Add one judge's answers on ``data``'s perturbed pairs to ``stress``.

    Args:
        stress: Holds the perturbations of ``data`` that were judged.
        judge: The judge's name in the outputs.
        data: The dataset.
        results: The judge's answer on each pair of :func:`judged_pairs`, in order.
        source_decisions: The judge's decision on each pair of ``data``.
        speed: Seconds the judging took and the pairs the model was asked.

    """
    perturbed = stress.perturbations[data.name].pairs
    if judge not in stress.judged:
        stress.judged.append(judge)
    stress.speed[(judge, data.name)] = (speed[0], len(perturbed), speed[1])
    for p, result in zip(perturbed, results, strict=True):
        line = StressLine(
            judge=judge,
            data=data,
            position=p.position,
            type=p.type,
            evidence=p.evidence,
            claim=p.claim,
            decision=None,
            probability=None,
            source_decision=source_decisions[p.position],
        )
        if isinstance(result, NLIError):
            line.reason = _reason(result)
        else:
            line.decision = bool(result.entailed)
            line.probability = None if result.prob is None else float(result.prob)
        stress.lines.append(line)


# Output ----------------------------------------------------------------------------------------


def _rate(row: dict[str, Any], key: str = "rate") -> str:
    if row.get(key) is None:
        return "-" if key not in row else "nan"
    low, high = row[f"{key}_ci"]
    return f"{row[key]:.1f} [{low:.1f}, {high:.1f}]"


def table(stress: Stress, judge: str) -> str:
    """A judge's rows: counts, detected or kept [interval], detected where it took the source."""
    lines = [
        "| data | kind | type | n | abstain | detected / kept (x100) | source judged supported: "
        "n, detected |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in stress.rows(judge):
        accepted = (
            f"{r['n_source_supported']}, {_rate(r, 'rate_source_supported')}"
            if "n_source_supported" in r
            else "-"
        )
        why = f" ({r['reason']})" if "reason" in r else ""
        lines.append(
            f"| {r['data']} | {r['kind']} | {r['type']} | {r['n']} | {r['abstain']} | "
            f"{r['measure']} {_rate(r)}{why} | {accepted} |"
        )
    return "\n".join(lines)


def _skipped(stress: Stress) -> list[str]:
    out = []
    for name, p in stress.perturbations.items():
        langs = ", ".join(f"{lang} {n}" for lang, n in sorted(p.languages.items()))
        skipped = "; ".join(
            f"{t}: " + ", ".join(f"{n} {why}" for why, n in p.skipped[t].items())
            for t in TYPES
            if t in p.skipped
        )
        out.append(
            f"{name}: {p.sources} human-supported pairs ({langs}) gave {len(p.pairs)} perturbed "
            f"pairs; skipped: {skipped or 'none'}"
        )
    return out


def terminal(stress: Stress) -> str:
    """Per judge its table, then what each dataset's perturbations skipped."""
    parts = [f"### stress: judge {judge}\n\n{table(stress, judge)}" for judge in stress.judges()]
    parts.append("\n".join(_skipped(stress)))
    return "\n\n".join(parts) + "\n"


def markdown(stress: Stress) -> str:
    """``stress.md``: what each type is, the tables, speeds and what was skipped."""
    level = round(100 * CONFIDENCE)
    parts = [
        "# Can the judge be fooled?",
        "Perturbed pairs made from every human-supported pair (seed "
        f"{stress.seed}). Unsupported types: the share the judge called *not supported* "
        "(detected). Invariant types: the share whose decision equals the judge's decision on "
        f"the unperturbed pair (kept). x100, {level}% bootstrap intervals ({BOOTSTRAP_DRAWS} "
        f"draws); abstentions counted apart. A judge that rejects everything detects everything: "
        "the last column counts detection only where the judge called the source pair "
        f"supported. Every judged pair is in {STRESS_JSONL}.",
    ]
    for judge in stress.judges():
        speeds = [
            f"{name}: {s['pairs']} pairs, {s['pairs_per_s']} pairs/s, {s['nli_calls']} NLI calls"
            for name, s in (
                (n, _speed(*stress.speed[(judge, n)]))
                for n in stress.perturbations
                if (judge, n) in stress.speed
            )
        ]
        parts.append(f"## {judge}\n\n{table(stress, judge)}\n\n" + "; ".join(speeds))
    parts.append("## Data\n\n" + "\n".join(f"- {line}" for line in _skipped(stress)))
    return "\n\n".join(parts) + "\n"


LABEL_WIDTH = 40
"""Characters per line of a chart label."""


def _wrapped(text: str, width: int = LABEL_WIDTH, lines: int = 2) -> list[str]:
    # Break after ":" "/" "-" where one falls in the line; the start of a judge's name says
    # which judge it is, so a name too long is shortened at its end, marked with "...".
    out: list[str] = []
    while text and len(out) < lines:
        if len(text) <= width:
            out.append(text)
            text = ""
            break
        cut = max(text.rfind(c, 0, width) for c in ":/-_ ")
        cut = cut + 1 if cut >= width // 2 else width
        out.append(text[:cut])
        text = text[cut:]
    if text:
        out[-1] = out[-1][: width - 3] + "..."
    return out


def chart_label(judge: str, row: dict[str, Any]) -> str:
    """A bar's label: the judge's name (wrapped, shortened at its end), data, type, measure."""
    what = f"{row['data'][:20]} {row['type']} ({row['measure']})"
    return "\n".join([*_wrapped(judge), what])


def chart(stress: Stress, path: Path) -> None:
    """Detected / kept per judge, dataset and type, with intervals (100 = never fooled)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = [(judge, r) for judge in stress.judges() for r in stress.rows(judge) if r["n"]]
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.42 * max(len(bars), 1)), layout="constrained")
    y = list(range(len(bars)))
    values = [r["rate"] or 0.0 for _, r in bars]
    low = [
        0.0 if r["rate"] is None else r["rate"] - (r["rate_ci"][0] or r["rate"]) for _, r in bars
    ]
    high = [
        0.0 if r["rate"] is None else (r["rate_ci"][1] or r["rate"]) - r["rate"] for _, r in bars
    ]
    colours = ["tab:red" if r["kind"] == UNSUPPORTED else "tab:blue" for _, r in bars]
    ax.barh(y, values, xerr=[low, high], capsize=2, color=colours)
    labels = [chart_label(judge, r) for judge, r in bars]
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"% detected (red) or kept (blue), {round(100 * CONFIDENCE)}% interval")
    ax.set_title("Can the judge be fooled? (100 = never)")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_stress(stress: Stress, out: Path) -> list[Path]:
    """Write ``stress.jsonl``, ``stress.json``, ``stress.md`` and ``stress.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    lines = (
        json.dumps(x.as_json(), ensure_ascii=False, allow_nan=False) + "\n" for x in stress.lines
    )
    write_atomic(out / STRESS_JSONL, "".join(lines))
    write_atomic(out / STRESS_JSON, json.dumps(stress.as_json(), indent=2, allow_nan=False))
    write_atomic(out / STRESS_MD, markdown(stress))
    chart(stress, out / STRESS_CHART)
    return [out / f for f in (STRESS_JSON, STRESS_MD, STRESS_CHART, STRESS_JSONL)]
