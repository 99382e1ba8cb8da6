"""FullCite data: spans files, snippet location, BioASQ, ASQA ids, ExpertQA parsing and download."""

import hashlib
import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from fullcite_tasks.data import expertqa as expertqa_data
from fullcite_tasks.data.asqa import asqa_records, slugify_title, unique_slugs
from fullcite_tasks.data.bioasq import (
    BioasqDataError,
    bioasq_records,
    load_abstracts_file,
    load_bioasq,
    parse_question_types,
    pmid_from_url,
    select_abstracts,
)
from fullcite_tasks.data.expertqa import (
    ExpertqaDataError,
    evidence_passages,
    expertqa_records,
    load_expertqa,
)
from fullcite_tasks.data.pubmed import Abstract
from fullcite_tasks.data.spans import gold_spans_for, locate_snippet
from inspect_cite.downloads.download import hub_blob_problem
from inspect_cite.downloads.hub_files import manifest_path
from inspect_cite.evidence.gold_spans import (
    SpansFileError,
    append_spans,
    load_span_cache,
    load_spans_file,
)
from tests.conftest import FIXTURES, load_fixture, reference_dir

BIOASQ = FIXTURES / "fullcite_bioasq.json"
ABSTRACTS = FIXTURES / "fullcite_bioasq_abstracts.json"


def test_spans_file_round_trip_and_errors(tmp_path):
    path = tmp_path / "spans.jsonl"
    append_spans(path, "s1", {"a": ["one", "two"], "b": []})
    append_spans(path, "s1", {"a": ["one"]})  # a repeat is read once
    table = load_spans_file(path)
    assert table == {"s1": {"a": ["one", "two"], "b": []}}
    assert gold_spans_for(table, "s1", ["b", "a", "zz"]) == [
        {"doc_id": "a", "span": "one"},
        {"doc_id": "a", "span": "two"},
    ]
    assert gold_spans_for(table, "other", ["a"]) is None
    assert gold_spans_for(None, "s1", ["a"]) is None
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"sample_id": "x", "doc_id": "a", "span": "ok"}\n\n{"sample_id": "x", "span": 3}\n'
    )
    with pytest.raises(SpansFileError, match=r"bad.jsonl:3: field \"doc_id\" must be a string or"):
        load_spans_file(bad)
    bad.write_text("[1]\n")
    with pytest.raises(SpansFileError, match="bad.jsonl:1"):
        load_spans_file(bad)
    with pytest.raises(SpansFileError, match="does not exist"):
        load_spans_file(tmp_path / "nope.jsonl")


def test_annotation_cache_sets_aside_bad_lines_and_the_documents_they_cut(tmp_path, caplog):
    cache = tmp_path / "spans.jsonl"
    append_spans(cache, "s1", {"a": ["one"], "b": []})
    append_spans(cache, "s2", {"a": ["first", "second"], "c": ["kept"]})
    append_spans(cache, "s3", {"a": ["x"]})
    lines = cache.read_bytes().splitlines(keepends=True)
    # s2/a's second span was cut mid-line by a killed run; s3's line is unreadable garbage.
    cache.write_bytes(b"".join(lines[:3]) + lines[3][:-9] + b"\n" + lines[4] + b"\x00\x01\n")
    table = load_span_cache(cache)
    # s2/a may have lost spans: it is dropped whole (annotated again), the rest is kept.
    assert table == {"s1": {"a": ["one"], "b": []}, "s2": {"c": ["kept"]}}
    assert f"{cache}:4: not valid JSON" in caplog.text and "document a of sample s2" in caplog.text
    assert f"{cache}:6: not valid JSON" in caplog.text
    [aside] = cache.parent.glob("spans.jsonl.corrupt-*")
    assert len(aside.read_bytes().splitlines()) == 3  # the two bad lines and s2/a's good one
    # The cache was rewritten with the good lines: it reads cleanly and appends cleanly.
    caplog.clear()
    append_spans(cache, "s2", {"a": ["first", "second"]})
    assert load_spans_file(cache)["s2"] == {"c": ["kept"], "a": ["first", "second"]}
    assert load_span_cache(cache)["s2"]["a"] == ["first", "second"] and not caplog.text


def test_annotation_cache_without_a_final_newline_is_repaired_before_appending(tmp_path):
    cache = tmp_path / "spans.jsonl"
    append_spans(cache, "s1", {"a": ["one"]})
    cache.write_bytes(cache.read_bytes().rstrip(b"\n"))  # killed just before the newline
    assert load_span_cache(cache) == {"s1": {"a": ["one"]}}
    append_spans(cache, "s2", {"b": []})
    assert load_spans_file(cache) == {"s1": {"a": ["one"]}, "s2": {"b": []}}


def test_appending_after_a_cut_last_line_sets_it_aside_instead_of_gluing(tmp_path, caplog):
    out = tmp_path / "spans.jsonl"
    append_spans(out, "s1", {"a": ["one"], "b": []})
    append_spans(out, "s2", {"a": ["first", "second"]})
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:3]) + lines[3][:-12])  # killed mid-row: line 4 is cut
    append_spans(out, "s3", {"c": ["three"]})
    assert load_spans_file(out) == {
        "s1": {"a": ["one"], "b": []},
        "s2": {"a": ["first"]},
        "s3": {"c": ["three"]},
    }
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning.startswith(f"spans file {out}:4: the last line is cut (not valid JSON")
    [aside] = tmp_path.glob("spans.jsonl.corrupt-*")
    assert aside.read_bytes() == lines[3][:-12] + b"\n"
    # A whole row that lost only its newline is kept, and nothing is reported.
    caplog.clear()
    out.write_bytes(out.read_bytes().rstrip(b"\n"))
    append_spans(out, "s4", {"d": []})
    assert load_spans_file(out)["s3"] == {"c": ["three"]} and "s4" in load_spans_file(out)
    assert not caplog.records
    # A cut line in the middle is left alone and refused by -T spans_path, by file and line.
    out.write_bytes(b"".join(lines[:2]) + lines[3][:-12] + b"\n" + lines[0])
    append_spans(out, "s5", {"e": []})
    with pytest.raises(SpansFileError, match="spans.jsonl:3: not valid JSON"):
        load_spans_file(out)


def test_locate_snippet_methods():
    text = "Alpha beta gamma. Delta epsilon zeta eta theta."
    assert locate_snippet("Delta epsilon", text, begin=18, end=31).method == "offset"
    # BioASQ releases with an inclusive end offset.
    assert locate_snippet("Delta epsilon", text, begin=18, end=30).method == "offset"
    found = locate_snippet("delta   EPSILON", text, begin=0, end=5)
    assert (found.method, found.span, found.start) == ("search", "Delta epsilon", 18)
    assert locate_snippet("Big title", text, title="A Big title here").method == "title"
    aligned = locate_snippet("Delta epsilon zeta eta iota", text)
    assert aligned.method == "aligned" and aligned.span in text
    assert locate_snippet("nothing like it", text) is None
    assert locate_snippet("  ", text) is None
    # A decomposed abstract (NFD) holds a precomposed snippet verbatim.
    nfd = unicodedata.normalize("NFD", "Effets de la caféine sur le cœur")
    found = locate_snippet("caféine sur le cœur", nfd)
    assert (found.method, found.span) == ("search", nfd[nfd.index("cafe") :])


def test_bioasq_loader_errors_name_the_problem(tmp_path):
    with pytest.raises(BioasqDataError, match="participants-area.bioasq.org"):
        load_bioasq(None)
    with pytest.raises(BioasqDataError, match="participants-area.bioasq.org"):
        load_bioasq(tmp_path / "missing.json")
    data = json.loads(BIOASQ.read_text())
    data["questions"][1]["type"] = "essay"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(
        BioasqDataError, match=r"question 1 \(id \"bq-factoid\"\): field \"type\" is 'essay'"
    ):
        load_bioasq(bad)
    data["questions"][1]["type"] = "factoid"
    data["questions"][1]["documents"] = ["http://example.org/no-id"]
    bad.write_text(json.dumps(data))
    with pytest.raises(BioasqDataError, match="cannot read a PubMed id"):
        load_bioasq(bad)
    assert pmid_from_url("http://www.ncbi.nlm.nih.gov/pubmed/15858239") == "15858239"
    assert pmid_from_url("https://pubmed.ncbi.nlm.nih.gov/15858239/") == "15858239"
    assert parse_question_types("yes/no, list") == ("yesno", "list")
    assert parse_question_types(["summary"]) == ("summary",)
    with pytest.raises(ValueError, match="question_types"):
        parse_question_types("essay")


def test_bioasq_records_locate_snippets_and_skip_documents_without_abstract():
    records, stats = bioasq_records(load_bioasq(BIOASQ), load_abstracts_file(ABSTRACTS), ndoc=5)
    assert stats == {
        "questions": 4,
        "kept": 4,
        "filtered_type": 0,
        "no_documents": 0,
        "snippets_located": 8,
        "snippets_unlocated": 1,
        "snippets_outside_context": 0,
    }
    yesno = records[0]
    assert [d["id"] for d in yesno.docs] == ["31000001", "31000002", "31000004"]
    assert yesno.docs[0]["title"] == "AXL receptor tyrosine kinase in malignancy"
    assert [loc["method"] for loc in yesno.extra["snippet_locations"]] == [
        "offset",
        "search",
        "title",
    ]
    assert yesno.extra["unlocated_snippets"] == [
        {"doc_id": "31000004", "text": "AXL is absent from all tissues."}
    ]
    assert yesno.question_type == "yesno" and yesno.extra["exact_answer"] == "yes"
    summary = records[3]
    assert summary.gold_spans[1] == {
        "doc_id": "31000007",
        "span": "Dysfunction of a single step may interrupt the cycle",
    }
    assert summary.extra["snippet_locations"][1]["method"] == "aligned"
    # ndoc=1 keeps the first document with an abstract; snippets of others are outside.
    records, stats = bioasq_records(
        load_bioasq(BIOASQ), load_abstracts_file(ABSTRACTS), ndoc=1, question_types=("yesno",)
    )
    assert [r.id for r in records] == ["bq-yesno"] and stats["filtered_type"] == 3
    assert stats["snippets_outside_context"] == 3


def test_select_abstracts_fetches_only_what_is_shown():
    questions = load_bioasq(BIOASQ)
    known = load_abstracts_file(ABSTRACTS)
    calls = []

    def fetch(pmids):
        calls.append(list(pmids))
        return {p: known.get(p) or Abstract(p, "", "", missing=True) for p in pmids}

    have = select_abstracts(questions[:1], 2, fetch)
    # Round 1 asks for the first two; 31000003 is missing, so round 2 asks for one more.
    assert calls == [["31000001", "31000003"], ["31000002"]]
    assert set(have) == {"31000001", "31000002", "31000003"}


def test_asqa_doc_ids_match_the_authors_slugs():
    # Titles behind doc ids in the authors' released ASQA outputs (reference/fullcite/incite).
    assert [
        slugify_title(t)
        for t in (
            "The Sound of Silence",
            "Wednesday Morning, 3 A.M.",
            "The Dark Tower: The Wind Through the Keyhole",
            "James and Oliver Phelps",
            "Legal status of tattooing in the United States",
            "2016 United States presidential election",
            "List of footballers with 500 or more goals",
            "List of Cars characters",
        )
    ] == [
        "the-sound-of-silence",
        "wednesday-morning,-3-a.m.",
        "the-dark-tower:-the-wind-through-the-keyhole",
        "james-and-oliver-phelps",
        "legal-status-of-tattooing-in-the-united-states",
        "2016-united-states-presidential-election",
        "list-of-footballers-with-500-or-more-goals",
        "list-of-cars-characters",
    ]
    assert unique_slugs(["Paris", "Paris", "Paris (city)", "{x}"]) == [
        "paris",
        "paris-2",
        "paris-city",
        "x",
    ]


def test_asqa_records_with_spans_file():
    spans = load_spans_file(FIXTURES / "fullcite_asqa_spans.jsonl")
    records = asqa_records(load_fixture("alce_asqa.json"), 5, spans)
    first, second, third = records
    assert [d["id"] for d in first.docs] == [
        "ninth-doctor",
        "tenth-doctor",
        "doctor-who-series-1",
        "russell-t-davies",
        "bbc-wales",
    ]
    assert first.gold_spans[1] == {
        "doc_id": "tenth-doctor",
        "span": "The Tenth Doctor is portrayed by David Tennant",
    }
    assert first.extra["gold_spans_status"] == "given" and first.extra["qa_pairs"]
    assert len(first.reference_answers) == 2
    assert second.gold_spans == [
        {"doc_id": "eiffel-tower", "span": "It was constructed from 1887 to 1889"}
    ]
    assert third.extra["gold_spans_status"] == "not_in_spans_file" and third.gold_spans == []
    assert (
        asqa_records(load_fixture("alce_asqa.json"), 2, None)[0].extra["gold_spans_status"]
        == "missing"
    )


def test_expertqa_evidence_of_the_reference_record():
    path = reference_dir() / "fullcite" / "expertqa" / "expertqa_rand_test_first.jsonl"
    [row] = load_expertqa(path)
    passages = evidence_passages(row["answers"]["rr_sphere_gpt4"])
    # [3] repeats [2]'s passage and is dropped.
    assert [p["number"] for p in passages] == [1, 2, 4, 5]
    assert passages[1]["url"] == "https://www.treatmentalternatives.com/treatment/therapies/"
    assert passages[1]["text"].startswith("Psycho-Therapeutic Approaches for Addiction")
    records, stats = expertqa_records([row], "any", 3, None)
    [r] = records
    assert [d["id"] for d in r.docs] == ["1", "2", "4"] and r.docs[0]["title"].startswith(
        "https://"
    )
    assert r.question_type.startswith("Question that describes a hypothetical scenario")
    assert "[2]" not in r.reference_answers[0] and r.extra["system"] == "rr_sphere_gpt4"
    assert expertqa_records([row], "rr_gs_gpt4", 3, None)[1]["other_system"] == 1


def test_expertqa_fixture_systems_and_spans():
    rows = load_expertqa(FIXTURES / "fullcite_expertqa.jsonl")
    spans = load_spans_file(FIXTURES / "fullcite_expertqa_spans.jsonl")
    records, stats = expertqa_records(rows, "rr_gs_gpt4", 5, spans)
    assert stats == {"rows": 4, "kept": 2, "other_system": 2, "no_passages": 0}
    assert [r.id for r in records] == ["2", "3"]
    assert (
        records[1].gold_spans[0]["doc_id"] == "1"
        and records[1].extra["gold_spans_status"] == "given"
    )
    records, stats = expertqa_records(rows, "any", 5, None)
    assert stats["no_passages"] == 1  # the bing_chat answer cites URLs only


def test_expertqa_loader_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "answers": []}\n')
    with pytest.raises(
        ExpertqaDataError,
        match=r"bad.jsonl:1 \(sample id \"0\"\): field \"answers\" must be an object",
    ):
        load_expertqa(bad)
    with pytest.raises(ExpertqaDataError, match="does not exist"):
        load_expertqa(tmp_path / "none.jsonl")


def test_hub_blob_verification(tmp_path):
    # The hub cache names a blob after its object id; a symlink stands for a snapshot entry.
    def blob(object_id: str) -> Path:
        target = tmp_path / object_id
        target.write_bytes(b"hello\n")
        link = tmp_path / f"link-{object_id}"
        link.symlink_to(target)
        return link

    assert hub_blob_problem(blob(hashlib.sha256(b"hello\n").hexdigest())) is None
    # `git hash-object`
    assert hub_blob_problem(blob("ce013625030ba8dba906f756967f9e9ca394464a")) is None
    assert "checksum mismatch" in str(hub_blob_problem(blob("0" * 64)))
    assert "unexpected hub object id" in str(hub_blob_problem(blob("not-an-id")))


def hub_online(monkeypatch) -> None:
    """Downloads go to a faked hub client: as if online (the suite sets HF_HUB_OFFLINE)."""
    monkeypatch.setattr("inspect_cite.downloads.hub_files.hub_offline", lambda: False)
    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_hub_reachable", lambda: None)


def test_expertqa_download_is_pinned_verified_and_cached(cache_root, monkeypatch):
    source = FIXTURES / "fullcite_expertqa.jsonl"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    calls = []

    def fake_download(repo_id, filename, repo_type, revision, cache_dir):
        calls.append((repo_id, filename, repo_type, revision))
        # The hub cache stores an LFS blob under its SHA-256 and links the file name to it.
        blob = Path(cache_dir, "blobs", digest)
        blob.parent.mkdir(parents=True)
        shutil.copy(source, blob)
        link = Path(cache_dir, "snapshots", revision, filename)
        link.parent.mkdir(parents=True)
        link.symlink_to(blob)
        return str(link)

    monkeypatch.setattr("huggingface_hub.hf_hub_download", fake_download)
    hub_online(monkeypatch)
    path = expertqa_data.expertqa_data_path()
    assert path.read_bytes() == source.read_bytes()
    assert calls == [
        ("cmalaviya/expertqa", "r2_compiled_anon.jsonl", "dataset", expertqa_data.EXPERTQA_REVISION)
    ]
    assert expertqa_data.expertqa_data_path() == path and len(calls) == 1  # cache hit
    path.write_text("tampered\n")  # a corrupt cache is fetched again
    assert expertqa_data.expertqa_data_path().read_bytes() == source.read_bytes()
    assert len(calls) == 2

    def corrupt_download(repo_id, filename, repo_type, revision, cache_dir):
        blob = Path(cache_dir, "0" * 64)
        blob.write_text("corrupt")
        return str(blob)

    path.unlink()
    monkeypatch.setattr("huggingface_hub.hf_hub_download", corrupt_download)
    with pytest.raises(ExpertqaDataError, match="checksum mismatch"):
        expertqa_data.expertqa_data_path()

    def offline(*args, **kwargs):
        raise OSError("no network")

    monkeypatch.setattr("huggingface_hub.hf_hub_download", offline)
    with pytest.raises(ExpertqaDataError, match="dataset_path"):
        expertqa_data.expertqa_data_path()


def test_expertqa_corrupt_manifest_is_moved_aside_and_fetched_again(
    cache_root, monkeypatch, caplog
):
    source = FIXTURES / "fullcite_expertqa.jsonl"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    calls = []

    def fake_download(repo_id, filename, repo_type, revision, cache_dir):
        calls.append(filename)
        blob = Path(cache_dir, "blobs", digest)
        blob.parent.mkdir(parents=True)
        shutil.copy(source, blob)
        return str(blob)

    monkeypatch.setattr("huggingface_hub.hf_hub_download", fake_download)
    hub_online(monkeypatch)
    path = expertqa_data.expertqa_data_path()
    manifest = manifest_path(path)
    for text in ("", "[1, 2]", '{"sha256": null}', '{"sha2'):
        manifest.write_text(text)
        assert expertqa_data.expertqa_data_path() == path
        assert json.loads(manifest.read_text())["sha256"] == digest
    assert len(calls) == 5
    assert caplog.text.count(f"cached file {manifest} is corrupt") == 4
    assert len(list(path.parent.glob(f"{manifest.name}.corrupt-*"))) >= 1
