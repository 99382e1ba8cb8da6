"""Human-labelled data for ``inspect-cite calibrate``: each format, its errors, its pins."""

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from inspect_cite.app.human_labels import (
    ATTRIBUTIONBENCH_FILES,
    INCITE_FILES,
    NO_EVIDENCE,
    HumanDataError,
    load_human_data,
)
from inspect_cite.downloads import hub_files
from inspect_cite.downloads.download import git_blob_sha1
from tests.conftest import reference_dir
from tests.helpers.http_servers import RecordingServer, Reply
from tests.helpers.human_label_files import (
    ATTRIBUTIONBENCH_ROWS,
    attributionbench_row,
    write_alce_human,
    write_attributionbench,
    write_expertqa,
    write_fullcite_human,
    write_jsonl,
    write_user_jsonl,
)


def test_attributionbench_pairs_join_references_and_keep_the_source(tmp_path):
    path = write_attributionbench(tmp_path / "dev.jsonl")
    data = load_human_data("attributionbench", str(path))
    # The claim without references has nothing to be judged against: counted apart.
    assert len(data.pairs) == len(ATTRIBUTIONBENCH_ROWS) - 1
    assert data.skipped == {NO_EVIDENCE: 1}
    assert [p.index for p in data.pairs] == [0, 1, 2, 3, 4, 6]
    otters = data.pairs[2]
    assert otters.evidence == "Otters eat fish daily in rivers.\n\nOtters swim."
    assert (otters.claim, otters.label, otters.subset) == (
        "Otters eat fish daily.",
        True,
        "ExpertQA",
    )
    assert otters.where == f"{path}:3"
    assert data.sources == [
        {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    ]


def test_expertqa_labels_complete_missing_and_partial_apart(tmp_path):
    data = load_human_data("expertqa", str(write_expertqa(tmp_path / "eqa.jsonl")))
    shown = [(p.claim, p.label, p.subset, p.in_all) for p in data.pairs]
    assert shown == [
        ("Otters have dense fur.", True, "rr_gs_gpt4", True),
        ("Otters are fish.", False, "rr_gs_gpt4", True),
        ("Tea holds tannins and caffeine.", False, "partial", False),
    ]
    assert data.pairs[2].evidence == "Tea holds tannins.\n\nLeaves are green."
    assert data.skipped == {NO_EVIDENCE: 1, "no support label": 1}
    # Records are the file's lines; a line's pairs are numbered in it.
    assert [(p.index, p.pair) for p in data.pairs] == [(0, 0), (0, 1), (1, 0)]


def test_alce_human_recall_and_citation_pairs(tmp_path):
    data = load_human_data("alce-human", str(write_alce_human(tmp_path / "alce.json")))
    recall = [p for p in data.pairs if p.subset.endswith("/recall")]
    citation = [p for p in data.pairs if p.subset.endswith("/citation")]
    assert [(p.claim, p.label) for p in recall] == [
        ("The river floods in spring.", True),
        ("The lake is warm.", False),
        ("The lake is deep.", True),
    ]
    # eval.py's premise: each cited document as "Title: ...\n<text>", one a line.
    assert recall[0].evidence == (
        "Title: River\nThe river floods in spring.\nTitle: Town\nThe town has a bridge."
    )
    # ALCE's analysis counts a citation score of 1 or 2 as support.
    assert [p.label for p in citation] == [True, False, True, True]
    assert recall[0].subset == "asqa/asqa-system-a.json/recall"
    assert data.skipped == {"uncited sentence (no pair to judge)": 1}
    assert [s.auto_recall for s in data.alce_sentences] == [1, 0, 1, 0]


def test_fullcite_human_pairs_read_the_document_and_the_claim(tmp_path):
    folder = write_fullcite_human(tmp_path / "incite")
    data = load_human_data("fullcite-human", str(folder))
    assert [(p.evidence, p.claim, p.label, p.subset) for p in data.pairs] == [
        ("Otters eat fish.", "Otters eat fish", True, "bioasq"),
        ("Crabs live here.", "They also eat crabs", False, "bioasq"),
    ]
    # A citation whose document text is missing is left out: its snippet is the model's words.
    assert data.skipped == {NO_EVIDENCE: 1}
    # A pair is the citation (pair) of its record (index) in human_evaluation_data.json.
    assert [(p.index, p.pair) for p in data.pairs] == [(0, 0), (0, 1)]


def test_user_jsonl_pairs(tmp_path):
    data = load_human_data("jsonl", str(write_user_jsonl(tmp_path / "own.jsonl")))
    assert [(p.evidence, p.label, p.subset) for p in data.pairs] == [
        ("Cats purr.\n\nCats sleep.", True, "all"),
        ("Dogs bark.", False, "dogs"),
    ]
    with pytest.raises(HumanDataError, match="--data jsonl needs --data-path"):
        load_human_data("jsonl")


def test_a_byte_order_mark_opening_the_file_is_not_data(tmp_path):
    """Windows editors and spreadsheets save UTF-8 with a BOM; a BOM inside a line stays an error."""
    plain = write_user_jsonl(tmp_path / "own.jsonl")
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())

    def read(path: Path) -> list:
        return [
            (p.evidence, p.claim, p.label, p.subset)
            for p in load_human_data("jsonl", str(path)).pairs
        ]

    assert read(bom) == read(plain)
    lines = plain.read_bytes().splitlines(keepends=True)
    inner = tmp_path / "inner.jsonl"
    inner.write_bytes(lines[0] + b"\xef\xbb\xbf" + b"".join(lines[1:]))
    with pytest.raises(HumanDataError, match=f"{inner}:2"):
        load_human_data("jsonl", str(inner))


def broken_attributionbench(path: Path) -> Path:
    rows = [attributionbench_row(*r, i) for i, r in enumerate(ATTRIBUTIONBENCH_ROWS[:3])]
    rows[2]["attribution_label"] = "maybe"
    return write_jsonl(path, rows)


def broken_expertqa(path: Path) -> Path:
    write_expertqa(path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["answers"]["post_hoc_gs_gpt4"]["claims"][0]["claim_string"] = 7
    return write_jsonl(path, rows)


def broken_alce(path: Path) -> Path:
    write_alce_human(path)
    content = json.loads(path.read_text())
    content["asqa"]["asqa-system-a.json"]["q2"]["sentences"][0]["sentence_recall_score"] = 3
    path.write_text(json.dumps(content))
    return path


def broken_fullcite(path: Path) -> Path:
    write_fullcite_human(path)
    ratings = json.loads((path / "responses.json").read_text())
    ratings["responses"][1]["citationIndex"] = 9
    (path / "responses.json").write_text(json.dumps(ratings))
    return path


def broken_user(path: Path) -> Path:
    write_user_jsonl(path)
    return write_jsonl(path, [*map(json.loads, path.read_text().splitlines()), {"claim": "x"}])


@pytest.mark.parametrize(
    "name, write, where, field",
    [
        ("attributionbench", broken_attributionbench, "{path}:3", "attribution_label"),
        (
            "expertqa",
            broken_expertqa,
            '{path}:2: answers["post_hoc_gs_gpt4"]["claims"][0]',
            "claim_string",
        ),
        (
            "alce-human",
            broken_alce,
            "{path}: asqa/asqa-system-a.json/q2: sentences[0]",
            "sentence_recall_score",
        ),
        ("fullcite-human", broken_fullcite, "{path}/responses.json: responses[1]", "citationIndex"),
        ("jsonl", broken_user, "{path}:3", "evidence"),
    ],
)
def test_a_malformed_record_is_one_error_naming_file_place_and_field(
    tmp_path, name, write, where, field
):
    path = write(tmp_path / "f")
    with pytest.raises(HumanDataError) as e:
        load_human_data(name, str(path))
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(where.format(path=path)), message
    assert f'"{field}"' in message


def test_unknown_dataset_and_missing_path_are_refused(tmp_path):
    with pytest.raises(HumanDataError, match="unknown dataset"):
        load_human_data("nope")
    with pytest.raises(HumanDataError, match="does not exist"):
        load_human_data("attributionbench", str(tmp_path / "missing.jsonl"))


def serve_files(files: dict[str, bytes]) -> RecordingServer:
    return RecordingServer(
        lambda seen: Reply(200, files[seen.path]) if seen.path in files else Reply(404, b"no")
    )


def test_pinned_files_are_verified_by_git_blob_id_and_cached(cache_root, monkeypatch, tmp_path):
    good = write_attributionbench(tmp_path / "a.jsonl").read_bytes()
    pins = [
        hub_files.PinnedGitHubFile(p.repo, p.commit, p.path, git_blob_sha1(tmp_path / "a.jsonl"))
        for p in ATTRIBUTIONBENCH_FILES
    ]
    monkeypatch.setattr("inspect_cite.app.human_labels.ATTRIBUTIONBENCH_FILES", tuple(pins))
    served = {f"/{p.repo}/{p.commit}/{p.path}": good for p in pins}
    with serve_files(served) as server:
        monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", server.url + "/{repo}/{commit}/{path}")
        data = load_human_data("attributionbench")
        assert len(data.pairs) == 2 * (len(ATTRIBUTIONBENCH_ROWS) - 1)
        assert data.skipped == {NO_EVIDENCE: 2}
        assert data.sources[0]["commit"] == pins[0].commit
        assert data.sources[0]["git_blob"] == pins[0].git_blob
        assert len(server.requests) == 2
        load_human_data("attributionbench")  # cached: no request
        assert len(server.requests) == 2
    cached = list(cache_root.glob("calibration/*/*/*.jsonl"))
    assert len(cached) == 2

    # Content that is not the pinned blob is refused and nothing is cached.
    for path in cached:
        path.unlink()
    with serve_files({k: good + b"\n" for k in served}) as server:
        monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", server.url + "/{repo}/{commit}/{path}")
        with pytest.raises(HumanDataError, match="expected git blob"):
            load_human_data("attributionbench")
    assert not list(cache_root.glob("calibration/*/*/*.jsonl"))


def test_the_pinned_incite_blob_ids_are_those_of_the_reference_copies():
    folder = reference_dir() / "fullcite" / "incite"
    data, ratings = INCITE_FILES
    assert git_blob_sha1(folder / "human_evaluation_data.json") == data.git_blob
    assert git_blob_sha1(folder / "responses.json") == ratings.git_blob


def test_the_real_fullcite_ratings_load_from_the_reference_folder():
    data = load_human_data("fullcite-human", str(reference_dir() / "fullcite" / "incite"))
    # 14 ratings of 47 citations: every one has its document's text.
    assert len(data.pairs) == 14
    assert sum(p.label for p in data.pairs) == 9
    assert {p.subset for p in data.pairs} == {"bioasq"}


def test_git_blob_sha1_is_git_hash_object(tmp_path):
    path = write_user_jsonl(tmp_path / "x.jsonl")
    try:
        expected = subprocess.run(
            ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    assert git_blob_sha1(path) == expected


def test_alce_scores_written_as_floats_are_read_as_their_integers(tmp_path):
    path = write_alce_human(tmp_path / "alce.json")
    content = json.loads(path.read_text())
    item = content["asqa"]["asqa-system-a.json"]["q1"]
    item["automatic_recall_scores"] = [1.0, 0.0]
    item["sentences"][0]["citations"][0]["citation_precision_score"] = 2.0
    path.write_text(json.dumps(content))
    data = load_human_data("alce-human", str(path))
    assert data.alce_sentences[0].auto_recall == 1
    assert data.alce_sentences[0].human_citations == [2, 0]
    item["automatic_recall_scores"] = [0.5, 0.0]
    path.write_text(json.dumps(content))
    with pytest.raises(HumanDataError, match=r'"automatic_recall_scores\[0\]" must be one of 0, 1'):
        load_human_data("alce-human", str(path))


def test_two_pinned_files_of_one_commit_stay_cached_apart(cache_root, monkeypatch, tmp_path):
    """AttributionBench's two files share a cache folder; each keeps its own checksum.

    With one manifest per folder, the second download recorded only its own SHA-256, the first
    file then read as corrupt on every run and was fetched again (offline: refused).
    """
    first = write_attributionbench(tmp_path / "a.jsonl")
    second = tmp_path / "b.jsonl"
    second.write_text("".join(reversed(first.read_text().splitlines(keepends=True))))
    assert first.read_bytes() != second.read_bytes()
    files = (first, second)
    pins = [
        hub_files.PinnedGitHubFile(p.repo, p.commit, p.path, git_blob_sha1(f))
        for p, f in zip(ATTRIBUTIONBENCH_FILES, files, strict=True)
    ]
    monkeypatch.setattr("inspect_cite.app.human_labels.ATTRIBUTIONBENCH_FILES", tuple(pins))
    served = {
        f"/{p.repo}/{p.commit}/{p.path}": f.read_bytes() for p, f in zip(pins, files, strict=True)
    }
    with serve_files(served) as server:
        monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", server.url + "/{repo}/{commit}/{path}")
        load_human_data("attributionbench")
        assert len(server.requests) == 2
        again = load_human_data("attributionbench")  # both verified from the cache
        assert len(server.requests) == 2
    assert [s["git_blob"] for s in again.sources] == [p.git_blob for p in pins]
    assert not list(cache_root.glob("calibration/**/*.corrupt-*"))
