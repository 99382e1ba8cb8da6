"""Gold evidence spans, and the spans JSONL file that holds them.

Spans file (``-T spans_path=``): JSON Lines, one span per line::

    {"sample_id": "-1020319779014404165", "doc_id": "ninth-doctor", "span": "verbatim text"}

``span`` may be ``null``: the document was annotated and holds no evidence (so an annotation
cache knows not to ask again). Sample ids are the ids the data gives its samples; doc ids are
the ids of the sample's documents (docs/fullcite.md, "Sample and document ids"). Lines for
documents a run does not show (beyond ``ndoc``) are not used; a line whose ``doc_id`` is not
a document of its sample, or whose ``span`` that document does not hold, is refused
(:func:`check_spans_file`), every such line at once.

The FullCite loaders read a spans file (``fullcite_tasks.data``); the span annotator
(``solvers/span_annotator``) keeps its annotations in one, a cache it repairs and appends to.
"""

import difflib
import json
import logging
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.record_check import ID, STRING, problems_error, type_problem
from inspect_cite.downloads.cache import corrupt_path
from inspect_cite.downloads.files import json_problem, loads, read_jsonl, write_atomic
from inspect_cite.text.verbatim import match_snippet

logger = logging.getLogger(__name__)


class GoldSpan(TypedDict):
    """One gold evidence span: verbatim text of a context document."""

    doc_id: str
    span: str


# sample_id -> doc_id -> spans ([] when the document was annotated and holds no span)
SpanTable = dict[str, dict[str, list[str]]]

_append_lock = threading.Lock()


class SpansFileError(PreflightError, ValueError):
    """A spans file is missing or malformed."""


def _row_problem(row: Any) -> str | None:
    if not isinstance(row, dict):
        return "expected an object with sample_id, doc_id, span"
    for key in ("sample_id", "doc_id"):
        if problem := type_problem(row, (key,), ID):
            return problem
    return type_problem(row, ("span",), STRING, optional=True)


def _add_row(table: SpanTable, row: dict[str, Any]) -> None:
    spans = table.setdefault(str(row["sample_id"]), {}).setdefault(str(row["doc_id"]), [])
    span = row.get("span")
    if span is not None and span.strip() and span not in spans:
        spans.append(span)


def _spans_rows(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a spans file with their ``<file>:<line>``, every malformed line refused at once.

    Raises:
        SpansFileError: Naming the file, and the line and field of every line at fault.

    """
    rows: list[tuple[str, dict[str, Any]]] = []
    problems: list[str] = []
    for where, row in read_jsonl(
        Path(path), "spans file", SpansFileError, "-T spans_path", problems
    ):
        problem = _row_problem(row)
        if problem is not None:
            problems.append(f"{where}: {problem}")
        else:
            rows.append((where, row))
    if problems:
        raise problems_error(f"spans file {path} (-T spans_path)", problems, SpansFileError)
    return rows


def load_spans_file(path: str | Path) -> SpanTable:
    """Read a spans JSONL file.

    Raises:
        SpansFileError: Naming the file, and the line and field of every line at fault.

    """
    table: SpanTable = {}
    try:
        for _, row in _spans_rows(path):
            _add_row(table, row)
    except SpansFileError as e:
        try:
            raw = Path(path).read_bytes()
        except OSError:
            raise e from None
        if raw and not raw.endswith(b"\n") and f":{len(raw.splitlines())}: " in str(e):
            # A killed annotate_spans run: the fix is to run it again, not to edit the file.
            raise SpansFileError(
                f"{e}\nThe last line is cut (a killed annotate_spans run; -T spans_path): run the "
                "same `inspect eval fullcite_tasks/annotate_spans ... -T output_path=...` "
                "command again; it sets the cut line aside and writes its sample again."
            ) from e
        raise
    return table


SpanDocuments = Mapping[str, Mapping[str, str]]
"""sample id -> doc id -> document text: every document a spans file may name, per sample."""


def spans_file_problems(path: str | Path, documents: SpanDocuments) -> tuple[list[str], list[str]]:
    """What a spans file says that its data does not hold, line by line.

    Args:
        path: The spans file (already read by :func:`load_spans_file`).
        documents: Every document of every sample of the data, by sample id and doc id (all
            of an item's documents, not only the ``ndoc`` shown: a file annotated with more
            documents stays usable).

    Returns:
        The lines to refuse (``<file>:<line>: ...``): a ``doc_id`` that is not a document of its
        sample, a ``span`` its document does not hold (verbatim or near-verbatim, as
        ``inspect_cite.text.verbatim`` reads a snippet); and the lines naming a sample the data
        does not hold, which are left out (a spans file may cover more questions than a
        data file of one's own).

    """
    refused: list[str] = []
    other_samples: list[str] = []
    for where, row in _spans_rows(path):
        sample_id, doc_id, span = str(row["sample_id"]), str(row["doc_id"]), row.get("span")
        docs = documents.get(sample_id)
        if docs is None:
            other_samples.append(f"{where} (sample_id {sample_id!r})")
            continue
        text = docs.get(doc_id)
        if text is None:
            close = difflib.get_close_matches(doc_id, list(docs), n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"its documents: {_some(docs)}"
            refused.append(
                f"{where}: doc_id {doc_id!r} is not a document of sample {sample_id!r}; {hint}"
            )
        elif span is not None and span.strip() and match_snippet(span, text) is None:
            refused.append(
                f"{where}: span {_quoted(span)} is not in document {doc_id!r} of sample "
                f"{sample_id!r}"
            )
    return refused, other_samples


def check_spans_file(path: str | Path, documents: SpanDocuments) -> None:
    """Refuse a spans file whose lines name documents or spans the data does not hold.

    Every such line is named at once (:func:`spans_file_problems`); lines naming samples the
    data does not hold are left out with one warning.

    Raises:
        SpansFileError: ``spans file X (-T spans_path): 2 problems: X:3: doc_id 'tenth-dr' is
            not a document of sample '-1234'; did you mean 'tenth-doctor'?; X:7: ...``.

    """
    refused, other_samples = spans_file_problems(path, documents)
    if refused:
        raise problems_error(f"spans file {path} (-T spans_path)", refused, SpansFileError)
    if other_samples:
        logger.warning(
            f"spans file {path}: {len(other_samples)} line(s) name a sample the data file does "
            f"not hold and are left out, e.g. {other_samples[0]}"
        )


def _some(names: Mapping[str, Any], n: int = 5) -> str:
    shown = ", ".join(repr(name) for name in list(names)[:n])
    return shown + (", ..." if len(names) > n else "")


def _quoted(text: str, n: int = 60) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


# What append_spans writes first on each line: enough of a cut line to tell whose it was.
_ROW_START = re.compile(
    r'\{"sample_id": ("(?:[^"\\]|\\.)*"|-?\d+)(?:, "doc_id": ("(?:[^"\\]|\\.)*"|-?\d+))?'
)


def _owner(text: str) -> tuple[str, str | None] | None:
    """(sample_id, doc_id or None) named at the start of a cut spans line, if any."""
    m = _ROW_START.match(text.strip())
    if m is None:
        return None
    try:
        sample = str(loads(m.group(1)))
        doc = str(loads(m.group(2))) if m.group(2) else None
    except ValueError:
        return None
    return sample, doc


def load_span_cache(path: Path) -> SpanTable:
    """Read an annotation cache (spans JSONL from :func:`append_spans`), repairing it if needed.

    Annotations are paid for, so one bad line (a write cut by a killed run, a disk error) must
    not cost the rest: it is reported with its file and line, moved to
    ``<file>.corrupt-<time>`` with the other lines of the document it names (whose spans may be
    incomplete), and the cache is rewritten without them. Those documents are then missing and
    are annotated again; every good line is kept.
    """
    if not path.exists():
        return {}
    raw = path.read_bytes()
    lines = raw.splitlines(keepends=True)
    rows: list[tuple[bytes, dict[str, Any]]] = []
    bad: list[bytes] = []
    broken_samples: set[str] = set()
    broken_docs: set[tuple[str, str]] = set()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = loads(line.decode("utf-8"))
            reason = _row_problem(row)
        except ValueError as e:
            row, reason = None, json_problem(e).removeprefix("is ")
        if reason is None:
            rows.append((line, row))
            continue
        bad.append(line)
        owner = _owner(line.decode("utf-8", errors="replace"))
        if owner is None:
            dropped = "its document is unknown"
        elif owner[1] is None:
            broken_samples.add(owner[0])
            dropped = f"sample {owner[0]} is annotated again"
        else:
            broken_docs.add((owner[0], owner[1]))
            dropped = f"document {owner[1]} of sample {owner[0]} is annotated again"
        logger.warning(f"annotation cache {path}:{lineno}: {reason}; line set aside, {dropped}")
    if not bad and raw.endswith(b"\n"):
        table: SpanTable = {}
        for _, row in rows:
            _add_row(table, row)
        return table

    def broken(row: dict[str, Any]) -> bool:
        sample, doc = str(row["sample_id"]), str(row["doc_id"])
        return sample in broken_samples or (sample, doc) in broken_docs

    kept = [(line, row) for line, row in rows if not broken(row)]
    aside = bad + [line for line, row in rows if broken(row)]
    with _append_lock:
        if aside:
            dest = corrupt_path(path)
            write_atomic(dest, b"".join(line.rstrip(b"\r\n") + b"\n" for line in aside))
            logger.warning(f"annotation cache {path}: {len(aside)} line(s) moved to {dest.name}")
        # Rewritten whole (never appended to): a cut last line would swallow the next append.
        write_atomic(path, b"".join(line.rstrip(b"\r\n") + b"\n" for line, _ in kept))
    table = {}
    for _, row in kept:
        _add_row(table, row)
    return table


def _cut_tail(path: Path) -> None:
    """Make ``path`` end in a newline, setting aside a last line cut by an interrupted write.

    Appending to a file whose last line has no newline would glue the new row onto it and
    make both unreadable. A last line that is a whole row (only its newline is missing) is
    kept; any other is moved to ``<file>.corrupt-<time>`` with one warning naming the file and
    line. Its sample's spans are written again when the sample is annotated again.
    """
    try:
        with open(path, "rb") as f:
            if f.seek(0, os.SEEK_END) == 0:
                return
            f.seek(-1, os.SEEK_END)
            if f.read(1) == b"\n":
                return
            f.seek(0)
            data = f.read()
    except FileNotFoundError:
        return
    start = data.rfind(b"\n") + 1
    tail = data[start:]
    try:
        reason = _row_problem(loads(tail.decode("utf-8")))
    except ValueError as e:
        reason = json_problem(e).removeprefix("is ")
    if reason is None or not tail.strip():
        with open(path, "ab") as f:
            f.write(b"\n")
        return
    lineno = data.count(b"\n") + 1
    dest = corrupt_path(path)
    write_atomic(dest, tail + b"\n")
    with open(path, "r+b") as f:
        f.truncate(start)
    logger.warning(
        f"spans file {path}:{lineno}: the last line is cut ({reason}), as by "
        f"an interrupted run; moved to {dest.name} so the next row is not glued onto it (its "
        "sample is written again when annotated again)"
    )


def append_spans(path: str | Path, sample_id: str, doc_spans: Mapping[str, list[str]]) -> None:
    """Append one sample's spans (``null`` for an annotated document without any).

    The sample's whole lines are written in one ``write`` under a lock, so concurrent samples
    never interleave and a killed run leaves at most one cut line, at the end; the next append
    sets that line aside first (:func:`_cut_tail`) instead of gluing its row onto it.
    """
    lines = []
    for doc_id, spans in doc_spans.items():
        rows: list[dict[str, str | None]] = [
            {"sample_id": sample_id, "doc_id": doc_id, "span": s} for s in spans
        ] or [{"sample_id": sample_id, "doc_id": doc_id, "span": None}]
        lines += [json.dumps(row, ensure_ascii=False) + "\n" for row in rows]
    data = "".join(lines).encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _append_lock:
        _cut_tail(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
