import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from inspect_cite.alce import data as alce_data
from inspect_cite.alce.data import (
    ALCE_DATA_URL,
    EVAL_FILES,
    AlceDataError,
    alce_data_path,
    eval_file_name,
    load_items,
)
from inspect_cite.downloads.download import UnsafeArchiveError, extract_members
from tests.conftest import FIXTURES


def make_tar(path: Path, members: dict[str, bytes], symlink: str | None = None) -> Path:
    with tarfile.open(path, "w") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        if symlink:
            info = tarfile.TarInfo(symlink)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)
    return path


def fake_alce_members(counts: dict[str, int] | None = None) -> dict[str, bytes]:
    asqa = json.loads((FIXTURES / "alce_asqa.json").read_text())
    members = {}
    for name, count in EVAL_FILES.items():
        n = (counts or {}).get(name, count or 2)
        members[f"ALCE-data/{name}"] = json.dumps([asqa[0]] * n).encode()
    return members


def install_fake_hub(monkeypatch, tar_bytes: bytes, blob_name: str | None = None):
    """Stand in for huggingface_hub.hf_hub_download: a hub-cache layout with a sha256-named blob."""
    calls = []

    def fake_download(repo_id, filename, repo_type, revision, cache_dir):
        calls.append((repo_id, filename, repo_type, revision))
        blobs = Path(cache_dir, "blobs")
        blobs.mkdir(parents=True, exist_ok=True)
        blob = blobs / (blob_name or hashlib.sha256(tar_bytes).hexdigest())
        blob.write_bytes(tar_bytes)
        snap = Path(cache_dir, "snapshots", revision)
        snap.mkdir(parents=True, exist_ok=True)
        (snap / filename).symlink_to(blob)
        return str(snap / filename)

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    monkeypatch.delenv(alce_data.ALCE_DATA_DIR_ENV, raising=False)
    return calls


def tar_bytes(tmp_path, members) -> bytes:
    return make_tar(tmp_path / "src.tar", members).read_bytes()


def test_eval_file_names():
    assert eval_file_name("asqa", "gtr", False) == "asqa_eval_gtr_top100.json"
    assert eval_file_name("qampari", "dpr", False) == "qampari_eval_dpr_top100.json"
    assert eval_file_name("eli5", "bm25", True) == "eli5_eval_bm25_top100_reranked_oracle.json"
    with pytest.raises(
        AlceDataError, match="-T retriever=gtr: eli5 has retrieval results from bm25 only"
    ):
        eval_file_name("eli5", "gtr", False)
    with pytest.raises(AlceDataError, match="oracle file .* exists only for -T retriever=gtr"):
        eval_file_name("asqa", "dpr", True)


def test_extract_refuses_path_traversal(tmp_path):
    archive = make_tar(tmp_path / "evil.tar", {"../evil.json": b"x", "ok/a.json": b"a"})
    with pytest.raises(UnsafeArchiveError, match="unsafe path"):
        extract_members(archive, ["../evil.json"], tmp_path / "out")
    assert not (tmp_path / "evil.json").exists()
    archive = make_tar(tmp_path / "abs.tar", {"/tmp/abs.json": b"x"})
    with pytest.raises(UnsafeArchiveError):
        extract_members(archive, ["/tmp/abs.json"], tmp_path / "out")


def test_extract_refuses_links_and_reports_missing(tmp_path):
    archive = make_tar(tmp_path / "link.tar", {"a.json": b"a"}, symlink="ALCE-data/link.json")
    with pytest.raises(UnsafeArchiveError, match="non-regular"):
        extract_members(archive, ["ALCE-data/link.json"], tmp_path / "out")
    with pytest.raises(KeyError, match="members not found"):
        extract_members(archive, ["nope.json"], tmp_path / "out")
    out = extract_members(archive, ["a.json"], tmp_path / "out")
    assert out["a.json"].read_bytes() == b"a"


def test_download_verifies_extracts_and_reuses_cache(tmp_path, cache_root, monkeypatch):
    members = fake_alce_members({"asqa_eval_gtr_top100.json": 948})
    calls = install_fake_hub(monkeypatch, tar_bytes(tmp_path, members))
    path = alce_data_path("asqa_eval_gtr_top100.json")
    assert path.is_relative_to(cache_root)
    assert len(json.loads(path.read_text())) == 948
    assert calls == [
        ("princeton-nlp/ALCE-data", "ALCE-data.tar", "dataset", alce_data.ALCE_DATA_REVISION)
    ]
    # Only the eval files were extracted, the tarball was not kept.
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([*EVAL_FILES, "manifest.json"])
    # Second call: served from the verified cache, no download.
    assert alce_data_path("eli5_eval_bm25_top100.json").exists()
    assert len(calls) == 1
    # A cached file that was altered is detected and fetched again.
    path.write_text("[]")
    alce_data_path("asqa_eval_gtr_top100.json")
    assert len(calls) == 2
    assert len(json.loads(path.read_text())) == 948


def test_checksum_mismatch_caches_nothing(tmp_path, cache_root, monkeypatch):
    members = fake_alce_members({"asqa_eval_gtr_top100.json": 948})
    install_fake_hub(monkeypatch, tar_bytes(tmp_path, members), blob_name="0" * 64)
    with pytest.raises(AlceDataError, match="checksum mismatch"):
        alce_data_path("asqa_eval_gtr_top100.json")
    assert not list(alce_data.data_cache_dir().glob("*.json"))


def test_wrong_item_count_caches_nothing(tmp_path, cache_root, monkeypatch):
    members = fake_alce_members({"asqa_eval_gtr_top100.json": 3})
    install_fake_hub(monkeypatch, tar_bytes(tmp_path, members))
    with pytest.raises(AlceDataError, match="has 3 items, expected 948"):
        alce_data_path("asqa_eval_gtr_top100.json")
    assert not list(alce_data.data_cache_dir().glob("*.json"))


def test_offline_without_cache_names_file_url_and_override(cache_root, monkeypatch):
    import huggingface_hub

    def offline(**kwargs):
        raise huggingface_hub.errors.LocalEntryNotFoundError("offline mode is enabled")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", offline)
    monkeypatch.delenv(alce_data.ALCE_DATA_DIR_ENV, raising=False)
    with pytest.raises(AlceDataError) as e:
        alce_data_path("qampari_eval_gtr_top100.json")
    msg = str(e.value)
    assert "qampari_eval_gtr_top100.json" in msg
    assert ALCE_DATA_URL in msg
    assert "-T dataset_path=" in msg
    assert alce_data.ALCE_DATA_DIR_ENV in msg


def test_local_data_dir_override(tmp_path, monkeypatch):
    (tmp_path / "eli5_eval_bm25_top100.json").write_text("[]")
    monkeypatch.setenv(alce_data.ALCE_DATA_DIR_ENV, str(tmp_path))
    assert alce_data_path("eli5_eval_bm25_top100.json") == tmp_path / "eli5_eval_bm25_top100.json"
    with pytest.raises(AlceDataError, match="does not exist"):
        alce_data_path("asqa_eval_gtr_top100.json")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda it: it.pop("qa_pairs"), r"bad.json:1:qa_pairs: missing$"),
        (
            lambda it: it.update(question=3),
            r"bad.json:1:question: must be a string, got a number$",
        ),
        (
            lambda it: it["docs"][2].pop("text"),
            r"bad.json:1:docs\[2\].text: must be a string \(it is missing\)$",
        ),
        (
            lambda it: it["qa_pairs"][0].pop("short_answers"),
            r'bad.json:1:qa_pairs\[0\]: needs a list "short_answers"$',
        ),
    ],
)
def test_malformed_items_name_file_item_and_field(tmp_path, mutate, message):
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())
    mutate(items[1])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(items))
    with pytest.raises(AlceDataError, match=message) as e:
        load_items(path, "asqa")
    assert "bad.json" in str(e.value)


def test_load_items_accepts_result_files_and_reports_bad_json(tmp_path):
    items = json.loads((FIXTURES / "alce_eli5.json").read_text())
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"args": {}, "data": items}))
    assert len(load_items(path, "eli5")) == 3
    path.write_text("[{")
    with pytest.raises(AlceDataError, match="not valid JSON"):
        load_items(path, "eli5")
    with pytest.raises(AlceDataError, match="does not exist"):
        load_items(tmp_path / "none.json", "eli5")
    # Inspect would refuse an empty dataset later, without naming the file or the flag.
    path.write_text("[]")
    with pytest.raises(AlceDataError, match=r"result.json: no items to run \(-T dataset_path\)"):
        load_items(path, "eli5")
    bad = json.loads((FIXTURES / "alce_qampari.json").read_text())
    bad[0]["answers"] = [["ok"], "not a list"]
    path.write_text(json.dumps(bad))
    with pytest.raises(
        AlceDataError, match=r"result.json:0:answers\[1\]: must be a list of strings"
    ):
        load_items(path, "qampari")
