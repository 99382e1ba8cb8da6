"""Gold-span annotation: a model extracts atomic verbatim evidence spans per document.

ASQA and ExpertQA have no evidence spans; the FullCite authors had GPT-5.4-mini extract them
and checked the method against BioASQ's gold snippets (> 90% ROUGE-L). Here any Inspect model
does it: for each (question, reference answer, document) it is asked for the verbatim
passages of the document that support the answer. Every span it returns is checked: kept if
it is an exact substring of the document, replaced by the document's own text when it is a
near copy (word-set Jaccard >= 0.7, the posthoc alignment rule), rejected otherwise.

Spans are cached per dataset and annotator model (``<cache>/fullcite/spans/``) as a spans
JSONL file (a bad line is set aside and its document annotated again), so the FullCite tasks
reuse them: ``fullcite_tasks/asqa`` and
``fullcite_tasks/expertqa`` run this annotator first (with the ``annotator`` model role) when
no ``spans_path`` is given, and ``fullcite_tasks/annotate_spans`` fills the same cache.
"""

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.downloads.cache import cache_dir
from inspect_cite.evidence.documents import Document, get_docs
from inspect_cite.evidence.gold_spans import (
    GoldSpan,
    SpanTable,
    append_spans,
    load_span_cache,
)
from inspect_cite.generation.structured_outputs import json_in_reply
from inspect_cite.text.alignment import DEFAULT_THRESHOLD, align
from inspect_cite.text.think import strip_think

ANNOTATION_PROMPT = """\
You are annotating evidence for a question-answering dataset.

Question: {question}

Reference answer:
{answer}

Document ({title}):
{document}

List every piece of evidence in this document that supports the reference answer to the \
question. Each piece must be atomic (one fact) and copied verbatim from the document: an \
exact, contiguous passage, usually a sentence or a clause, not paraphrased, shortened inside \
or joined from different places. If the document holds no evidence for the answer, return \
an empty list.

Reply with JSON only: {{"spans": ["<verbatim passage>", ...]}}"""

# The model roles asked for gold-span annotation inside the FullCite tasks, in order.
ANNOTATOR_ROLES = ("annotator", "grader")

_tables: dict[Path, SpanTable] = {}
_tables_lock = threading.Lock()


class AnnotatorMissingError(RuntimeError):
    """Gold spans must be annotated but no annotator model is bound."""


def annotation_cache_path(data_key: str, model_name: str) -> Path:
    """The spans cache for a dataset key and annotator model."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_name).strip("_")
    return cache_dir("fullcite", "spans") / f"{data_key}--{slug}.jsonl"


def _cached_table(path: Path) -> SpanTable:
    with _tables_lock:
        if path not in _tables:
            _tables[path] = load_span_cache(path)
        return _tables[path]


def read_spans(reply: str) -> list[str] | str:
    """The span strings of a reply (``{"spans": [...]}`` or a bare list), or why it is invalid.

    Every span must be a string: a reply holding numbers, booleans or objects is invalid (asked
    again), not read as "no evidence". Blank strings are dropped.
    """
    data = json_in_reply(strip_think(reply))
    if data is None:
        return "no JSON list of spans"
    if isinstance(data, dict):
        if "spans" not in data:
            return 'no "spans" field'
        data = data["spans"]
    if not isinstance(data, list):
        return f'"spans" must be a list, got {type(data).__name__}'
    for span in data:
        if not isinstance(span, str):
            return f'"spans" must hold strings, got {span!r:.40}'
    return [s for s in data if s.strip()]


def parse_spans(reply: str) -> list[str] | None:
    """The span strings of a reply (``{"spans": [...]}`` or a bare list), None if invalid."""
    spans = read_spans(reply)
    return None if isinstance(spans, str) else spans


def validate_spans(spans: list[str], text: str, threshold: float) -> dict[str, Any]:
    """Keep verbatim spans, align near copies, reject the rest (in document order)."""
    kept: list[tuple[int, str]] = []
    rejected, aligned = [], 0
    for raw in spans:
        found = align(raw.strip(), text, threshold)
        if found is None:
            rejected.append(raw)
            continue
        aligned += not found.verbatim
        if all(found.text != k for _, k in kept):
            kept.append((found.start, found.text))
    return {"spans": [s for _, s in sorted(kept)], "rejected": rejected, "aligned": aligned}


async def annotate_document(
    model: Model, question: str, answer: str, doc: Document, attempts: int, threshold: float
) -> dict[str, Any]:
    """Annotate one document; a failed or unparsable reply is retried, then reported."""
    prompt = ANNOTATION_PROMPT.format(
        question=question, answer=answer, title=doc["title"] or "untitled", document=doc["text"]
    )
    errors = []
    for _ in range(attempts):
        try:
            output = await model.generate(prompt)
        except Exception as e:  # a provider error is a failed attempt
            errors.append(f"{type(e).__name__}: {e}"[:200])
            continue
        spans = read_spans(output.completion)
        if isinstance(spans, str):
            errors.append(f"unparsable reply ({spans}): {output.completion[:120]!r}")
            continue
        return validate_spans(spans, doc["text"], threshold) | {"error": None}
    return {"spans": [], "rejected": [], "aligned": 0, "error": "; ".join(errors)}


def _annotator(model_role: str | None) -> Model:
    if model_role is None:
        return get_model()
    roles = model_roles()
    for role in (model_role, *[r for r in ANNOTATOR_ROLES if r != model_role]):
        if role in roles:
            return get_model(role=role)
    raise AnnotatorMissingError(
        "this task needs gold evidence spans and none were given, so they must be annotated "
        f"first, but no annotator model is set: pass --model-role {model_role}=<model> (the "
        "FullCite paper used GPT-5.4-mini), or -T spans_path=<spans JSONL> (e.g. written by "
        "`inspect eval fullcite_tasks/annotate_spans -T output_path=...`)"
    )


def written_samples(path: Path) -> set[str]:
    """The samples whose spans a spans file holds whole (a rerun does not write them again).

    The sample of a cut last write (a killed run) may lack rows: it is not counted, so its
    spans are written again (its complete rows twice, which the loaders read as once).
    """
    if not path.exists():
        return set()
    lines = path.read_bytes().splitlines(keepends=True)
    samples: list[str] = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("sample_id"), str):
            samples.append(row["sample_id"])
    if lines and not lines[-1].endswith(b"\n") and samples:
        return set(samples[:-1]) - {samples[-1]}
    return set(samples)


@solver
def span_annotator(
    data_key: str,
    model_role: str | None = "annotator",
    set_gold: bool = True,
    output_path: str | None = None,
    attempts: int = 3,
    threshold: float = DEFAULT_THRESHOLD,
) -> Solver:
    """Annotate gold evidence spans of each context document (cached per dataset and model).

    Writes ``metadata["span_annotation"]`` (``model``, ``cache``, ``status``: ``cached`` or
    ``annotated``, and per document ``spans``, ``rejected``, ``aligned``, ``error``) and, with
    ``set_gold``, ``metadata["gold_spans"]``. Documents whose annotation failed are not
    cached, so a rerun asks again.

    Args:
        data_key: Names the dataset in the cache file (source and data checksum).
        model_role: The model role that annotates (``annotator``, falling back to
            ``grader``); None for the model under evaluation.
        set_gold: Make the annotations the sample's gold spans.
        output_path: Also append the spans to this spans JSONL file.
        attempts: Tries per document before its annotation is reported as failed.
        threshold: Least word-set Jaccard for aligning a near-verbatim span.

    """
    written: set[str] | None = None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        nonlocal written
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        model = _annotator(model_role)
        cache = annotation_cache_path(data_key, str(model))
        table = _cached_table(cache)
        sample_id = str(state.sample_id)
        known = table.get(sample_id, {})
        todo = [d for d in docs if d["id"] not in known]
        question = str(state.metadata.get("question") or state.input_text)
        answer = "\n\n".join(state.metadata.get("reference_answers") or []) or "(none given)"
        results = await asyncio.gather(
            *(annotate_document(model, question, answer, d, attempts, threshold) for d in todo)
        )
        fresh = {d["id"]: r for d, r in zip(todo, results, strict=True)}
        done = {doc_id: r["spans"] for doc_id, r in fresh.items() if r["error"] is None}
        if done:
            append_spans(cache, sample_id, done)
            table.setdefault(sample_id, {}).update(done)
        per_doc = {
            d["id"]: fresh.get(d["id"])
            or {
                "spans": known[d["id"]],
                "rejected": [],
                "aligned": 0,
                "error": None,
                "cached": True,
            }
            for d in docs
        }
        spans = {doc_id: r["spans"] for doc_id, r in per_doc.items() if r["error"] is None}
        if output_path:
            if written is None:
                written = written_samples(Path(output_path))
            # A rerun (after a killed run) appends only the samples the file lacks.
            if sample_id not in written:
                append_spans(output_path, sample_id, spans)
                written.add(sample_id)
        state.metadata["span_annotation"] = {
            "model": str(model),
            "cache": str(cache),
            "status": "annotated" if todo else "cached",
            "docs": per_doc,
        }
        if set_gold:
            state.metadata["gold_spans"] = [
                GoldSpan(doc_id=doc_id, span=s) for doc_id, ss in spans.items() for s in ss
            ]
            state.metadata["gold_spans_status"] = "annotated"
        return state

    return solve
