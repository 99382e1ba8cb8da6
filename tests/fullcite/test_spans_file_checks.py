"""A spans file is checked against its data (issue 40, item 8).

A line whose ``doc_id`` is not a document of its sample was dropped silently, and a ``span``
its document does not hold was accepted: ``inspect-cite check`` printed ``ok``. Both are now
refused when the task is built, every such line at once, each as ``file:line``. The ids a spans
file names (docs/fullcite.md, "Sample and document ids") are the data's: ASQA's ``sample_id``
(else ``id``, else the item's index) and slugified titles with ``-2`` for a repeated title;
ExpertQA's line index and bracket numbers.
"""

import json
import logging

import pytest

from fullcite_tasks import asqa, expertqa
from inspect_cite.evidence.gold_spans import SpansFileError, load_spans_file
from tests.conftest import ASQA_ARGS, EXPERTQA_ARGS, FIXTURES

ASQA_ITEM = "-1234567890123"


def spans_file(tmp_path, rows, name="spans.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def build_asqa(spans, **args):
    return asqa(**{**ASQA_ARGS, "spans_path": str(spans), "similarity_model": None, **args})


def test_an_unknown_doc_id_and_a_span_not_in_its_document_are_refused_at_once(tmp_path, cache_root):
    good = {"sample_id": ASQA_ITEM, "doc_id": "ninth-doctor", "span": "portrayed by Christopher"}
    spans = spans_file(
        tmp_path,
        [
            good,
            {"sample_id": ASQA_ITEM, "doc_id": "tenth-docter", "span": "David Tennant"},
            {"sample_id": ASQA_ITEM, "doc_id": "ninth-doctor", "span": "played by Peter Capaldi"},
            {"sample_id": ASQA_ITEM, "doc_id": "ninth-doctor", "span": None},
        ],
    )
    with pytest.raises(SpansFileError) as refused:
        build_asqa(spans)
    message = str(refused.value)
    assert "\n" not in message
    assert message == (
        f"spans file {spans} (-T spans_path): 2 problems: "
        f"{spans}:2: doc_id 'tenth-docter' is not a document of sample '{ASQA_ITEM}'; "
        "did you mean 'tenth-doctor'?; "
        f"{spans}:3: span 'played by Peter Capaldi' is not in document 'ninth-doctor' of "
        f"sample '{ASQA_ITEM}'"
    )
    # Without the bad lines the file is taken.
    spans = spans_file(tmp_path, [good, {**good, "span": None}])
    [sample] = [s for s in build_asqa(spans).dataset if s.id == ASQA_ITEM]
    assert sample.metadata["gold_spans"] == [
        {"doc_id": "ninth-doctor", "span": "portrayed by Christopher"}
    ]


def test_documents_beyond_ndoc_and_a_repeated_title_keep_their_ids(tmp_path, cache_root):
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())
    items[0]["docs"][3] = {**items[0]["docs"][0], "text": "A second passage on the Ninth Doctor."}
    data = tmp_path / "asqa.json"
    data.write_text(json.dumps(items))
    spans = spans_file(
        tmp_path,
        [
            # The 4th passage repeats the 1st one's title: its id is ninth-doctor-2.
            {"sample_id": ASQA_ITEM, "doc_id": "ninth-doctor-2", "span": "A second passage"},
            # The 6th passage is beyond ndoc=2: the line is valid, and not used by the run.
            {"sample_id": ASQA_ITEM, "doc_id": "matt-smith", "span": None},
        ],
    )
    task = build_asqa(spans, dataset_path=str(data), ndoc=4)
    [sample] = [s for s in task.dataset if s.id == ASQA_ITEM]
    assert [d["id"] for d in sample.metadata["docs"]][3] == "ninth-doctor-2"
    assert sample.metadata["gold_spans"] == [
        {"doc_id": "ninth-doctor-2", "span": "A second passage"}
    ]
    build_asqa(spans, dataset_path=str(data), ndoc=2)


def test_an_item_without_sample_id_is_named_by_its_index(tmp_path, cache_root):
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())
    for item in items:
        item.pop("sample_id")
    data = tmp_path / "asqa.json"
    data.write_text(json.dumps(items))
    spans = spans_file(tmp_path, [{"sample_id": "1", "doc_id": "eiffel-tower", "span": "1887"}])
    task = build_asqa(spans, dataset_path=str(data))
    assert task.dataset[1].id == "1"
    assert task.dataset[1].metadata["gold_spans"] == [{"doc_id": "eiffel-tower", "span": "1887"}]
    bad = spans_file(tmp_path, [{"sample_id": "0", "doc_id": "eiffel-tower", "span": "1887"}])
    with pytest.raises(SpansFileError, match=r"spans.jsonl:1: doc_id 'eiffel-tower' is not a"):
        build_asqa(bad, dataset_path=str(data))


def test_lines_naming_samples_the_data_does_not_hold_are_left_out_with_a_warning(
    tmp_path, cache_root, caplog
):
    rows = [json.loads(line) for line in (FIXTURES / "fullcite_asqa_spans.jsonl").open()]
    spans = spans_file(tmp_path, [*rows, {"sample_id": "nope", "doc_id": "x", "span": "y"}])
    with caplog.at_level(logging.WARNING):
        build_asqa(spans)
    assert "1 line(s) name a sample the data file does not hold" in caplog.text
    assert f"{spans}:{len(rows) + 1} (sample_id 'nope')" in caplog.text


def test_expertqa_spans_name_line_indexes_and_bracket_numbers(tmp_path, cache_root):
    args = {**EXPERTQA_ARGS, "similarity_model": None}
    expertqa(**args)  # the fixture's spans file is valid
    spans = spans_file(
        tmp_path,
        [
            {"sample_id": "2", "doc_id": "1", "span": "Integrated treatment addresses"},
            {"sample_id": "2", "doc_id": "7", "span": "Integrated treatment addresses"},
            {"sample_id": "3", "doc_id": "1", "span": "Chloride ions dissolve concrete"},
        ],
    )
    with pytest.raises(SpansFileError) as refused:
        expertqa(**{**args, "spans_path": str(spans)})
    message = str(refused.value)
    assert f"{spans}:2: doc_id '7' is not a document of sample '2'; its documents: '1'" in message
    assert f"{spans}:3: span 'Chloride ions dissolve concrete' is not in document '1'" in message
    assert f"{spans}:1:" not in message


def test_every_malformed_line_is_named_at_once(tmp_path):
    path = tmp_path / "spans.jsonl"
    path.write_text(
        '{"sample_id": "s", "doc_id": "a", "span": "ok"}\n'
        '{"sample_id": "s", "span": "no doc"}\n'
        "not json\n"
        '{"sample_id": "s", "doc_id": "a", "span": 3}\n'
    )
    with pytest.raises(SpansFileError) as refused:
        load_spans_file(path)
    message = str(refused.value)
    assert message.startswith(f"spans file {path} (-T spans_path): 3 problems: ")
    assert all(f"{path}:{line}: " in message for line in (2, 3, 4)) and "\n" not in message
