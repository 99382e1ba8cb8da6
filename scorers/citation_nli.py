"""ALCE citation recall and precision judged by NLI (definitions in inspect_cite.alce.autoais)."""

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce.autoais import (
    CitationResult,
    StatementVerdict,
    at_most_citations_problem,
    citation_scores,
    diagnose_statements,
)
from inspect_cite.alce.helmet import (
    HELMET_MIN_STATEMENT_CHARS,
    ScoringRules,
    check_rules,
    scoring_output,
)
from inspect_cite.alce.prompts import AlceDatasetName, check_dataset_argument
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations.alce import marker_spans, render_marker
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.evidence.record import read_evidence
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.nli import NLIError
from inspect_cite.nli.diagnose import DIAGNOSE_KEYS, Diagnosis, not_diagnosed
from inspect_cite.nli.judge import failed_score, nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell, code, highlight_markdown, italic
from scorers._judge_correction import calibration_metadata, corrected, share
from scorers._no_answer import no_answer_score, unscored_score


def _title(doc: Mapping[str, Any]) -> str:
    title = " ".join(str(doc.get("title", "")).split())
    return italic(title) if title else "*(no title)*"


def _doc_label(ref: int | None, docs: Sequence[Mapping[str, Any]]) -> str:
    if ref is None:
        return "[a number too long to be a document] (no such document)"
    if ref < 0 and docs:
        # eval.py reads "[0]" as index -1: the last document.
        return f"[0] → last document, {_title(docs[ref])}"
    if 0 <= ref < len(docs):
        return f"{render_marker(ref + 1)} {_title(docs[ref])}"
    return f"{render_marker(ref + 1)} (no such document)"


def _statement_lines(i: int, s: StatementVerdict, docs: Sequence[Mapping[str, Any]]) -> list[str]:
    cites = ", ".join(_doc_label(r, docs) for r in s.refs) or "no citation"
    if s.status == "uncited":
        verdict = "not supported (no citation)"
    elif s.status == "invalid":
        verdict = (
            "not supported (a citation is out of range or names a document the model did not see)"
        )
    else:
        # A checked statement's citations are all in range (never None).
        judged = ", ".join(render_marker(r + 1) for r in s.used if r is not None)
        verdict = f"{'supported' if s.recall else 'not supported'} by {judged} together (NLI)"
    lines = [
        f"{i}. {cell(s.hypothesis, None)}",
        f"   - citations: {cites}",
        f"   - recall: **{s.recall}**, {verdict}; precision credit {s.credit}",
    ]
    for c in s.citations:
        if c.alone:
            why = "entails alone → needed (+1)"
        elif c.others:
            why = "not alone; the other citations entail without it → irrelevant (+0)"
        else:
            why = "not alone; the others do not entail without it → needed (+1)"
        lines.append(f"     - {_doc_label(c.ref, docs)}: {why}")
    return lines


def citation_explanation(
    result: CitationResult, docs: Sequence[Mapping[str, Any]], nli: str, at_most: int | None
) -> str:
    """Markdown listing every statement, its citations and each NLI verdict."""
    if result.skipped:
        return f"**Not scored:** {cell(result.skipped, None)}."
    assert result.recall is not None and result.precision is not None
    head = (
        f"**Citation recall {100 * result.recall:.1f}, precision {100 * result.precision:.1f}** "
        f"({sum(s.recall for s in result.statements)}/{len(result.statements)} statements "
        f"supported; precision credit {sum(s.credit for s in result.statements)}/"
        f"{result.total_citations} citations; NLI {code(redact_text(nli))}, at most {at_most} "
        "citations per statement)"
    )
    lines = [head, ""]
    for i, s in enumerate(result.statements, 1):
        lines += _statement_lines(i, s, docs)
    return "\n".join(lines)


CITATION_KEYS = ("citation_rec", "citation_prec")


def _unscored(reason: str, output: str, diagnose: bool) -> Score:
    keys = (*CITATION_KEYS, *DIAGNOSE_KEYS) if diagnose else CITATION_KEYS
    metadata = Diagnosis.failed(reason) if diagnose else None
    return unscored_score(keys, reason, output, metadata=metadata)


# The diagnose keys are declared here and logged only with diagnose=true: Inspect resolves a
# scorer's metric keys against the keys its samples' values hold, so keys that no sample of a
# run holds are not reported (every sample of a run holds the same keys).
@scorer(
    metrics={
        **{key: [mean(), stderr(), corrected(key)] for key in CITATION_KEYS},
        **{key: [mean(), stderr()] for key in DIAGNOSE_KEYS},
    }
)
@accept_cli_values("-S")
def citation_nli(
    nli: str = "true",
    at_most_citations: int = 3,
    alce_compat: bool = True,
    dataset: AlceDatasetName | None = None,
    nli_cache: str | None = None,
    calibration: str | None = None,
    diagnose: bool = False,
    rules: ScoringRules = "alce",
) -> Scorer:
    """ALCE citation recall and precision (x100), judged by an NLI model as eval.py does.

    The output is cleaned as ALCE does and cut to its first line; citations ``[n]`` refer to
    ``metadata["docs"]`` in order. An output with no statements (empty) is not scored (nan,
    as eval.py skips it); a sample whose NLI call fails is not scored either, with the reason.
    A citation of a document the model did not see (one no agent tool returned) is invalid,
    as one out of range is, and a seen document is judged by the text the model saw
    (:mod:`inspect_cite.evidence.record`).

    Args:
        nli: NLI backend spec, one of the forms in :data:`inspect_cite.nli.registry.NLI_SPECS`
            (``true``: ALCE's T5-11B).
        at_most_citations: Judge at most this many citations per statement (eval.py: 3).
        alce_compat: Reproduce eval.py's quirks (True) or fix its defects (False); see
            ``inspect_cite.alce.autoais``.
        dataset: ``qampari`` judges each listed entity as a statement; ``None`` reads
            ``metadata["dataset"]``.
        nli_cache: SQLite file caching NLI decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        calibration: ``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` measuring this ``nli``
            judge: the log then carries each rate corrected for the judge's errors
            (``corrected`` metric, :mod:`scorers._judge_correction`).
        diagnose: Also classify every statement as ``supported``, ``misattributed``,
            ``unsupported`` or ``uncited`` (x100 shares, plus ``uncited_but_supported``;
            :mod:`inspect_cite.nli.diagnose`), judging each unsupported statement against the
            shown documents it does not cite.
        rules: ``alce`` scores as ALCE's eval.py; ``helmet`` as HELMET's eval_alce.py (the
            whole output with newlines made spaces, sentences under 5 characters not judged;
            :mod:`inspect_cite.alce.helmet`).

    """
    check_rules(rules, who="citation_nli")
    problem = at_most_citations_problem(at_most_citations)
    if problem is not None:
        raise ArgumentError(f"citation_nli: {problem}")
    check_dataset_argument(dataset, who="citation_nli")
    judge = nli_judge(nli, nli_cache=nli_cache, calibration=calibration)
    backend, judge_calibration = judge.backend, judge.calibration

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        where = f"sample {state.sample_id}"
        output = scoring_output(
            state.output.completion,
            rules,
            metadata,
            prompt_opened=think_opened_by_prompt(state.output),
        )
        evidence = read_evidence(metadata, where)
        docs = evidence.judged_docs()
        allowed = evidence.allowed()
        qampari = (dataset or metadata.get("dataset")) == "qampari"
        question = metadata.get("question")
        keys = (*CITATION_KEYS, *DIAGNOSE_KEYS) if diagnose else CITATION_KEYS
        if unscored := no_answer_score(state, keys):
            return unscored
        if qampari and not isinstance(question, str):
            # QAMPARI statements are "question entity": without the question none can be judged.
            return _unscored(
                'QAMPARI statements need metadata["question"], and it is missing', output, diagnose
            )
        try:
            result = await citation_scores(
                output,
                docs,
                question or "",
                backend,
                qampari=qampari,
                at_most_citations=at_most_citations,
                alce_compat=alce_compat,
                allowed=allowed,
                min_statement_chars=HELMET_MIN_STATEMENT_CHARS if rules == "helmet" else 0,
            )
        except NLIError as e:
            return failed_score(keys, e, answer=output, diagnose=diagnose)
        if result.skipped:
            return _unscored(result.skipped, output, diagnose)
        assert result.recall is not None and result.precision is not None
        checked = [s for s in result.statements if s.status == "checked"]
        # Uncited and invalid statements score 0 without the judge: no judge error in them.
        judged = {
            "citation_rec": share(len(checked), len(result.statements)),
            "citation_prec": share(sum(len(s.used) for s in checked), result.total_citations),
        }
        values = {
            "citation_rec": 100 * result.recall,
            "citation_prec": 100 * result.precision,
        }
        explanation = (
            f"**Answer:** {highlight_markdown(output, marker_spans(output))}\n\n"
            + citation_explanation(result, docs, nli, at_most_citations)
        )
        metadata = calibration_metadata(judge_calibration, judged, values) or {}
        if not diagnose:
            return Score(
                value=values, answer=output, explanation=explanation, metadata=metadata or None
            )
        if output.strip():
            diagnosis = await diagnose_statements(
                result, docs, backend, alce_compat=alce_compat, allowed=allowed
            )
        else:
            # eval.py reads an empty QAMPARI answer as one empty item (recall 0): it claims
            # nothing, so it has no class.
            diagnosis = not_diagnosed("no statements: the answer is empty")
        labels = [_doc_label(i, docs) for i in range(len(docs))]
        value, shown, extra = diagnosis.added_to(
            labels, value=values, explanation=explanation, metadata=metadata
        )
        return Score(value=value, answer=output, explanation=shown, metadata=extra)

    return score
