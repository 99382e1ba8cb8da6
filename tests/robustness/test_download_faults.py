"""Download faults against a real local HTTP server: 5xx, 429, truncated bodies, refused connections.

The prompt files go through ``inspect_cite.downloads.http_client.download`` (Inspect's download policy
under the project's redirect policy) and the ALCE data tarball through
``huggingface_hub.hf_hub_download``; both are pointed at a server on 127.0.0.1 that answers
from a script, so the real HTTP clients, their retry policies and our error handling run.
Whatever happens, the cache holds either a verified file or nothing.
"""

import hashlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import tenacity.nap

from inspect_cite.alce import prompts as alce_prompts
from inspect_cite.alce.data import AlceDataError, alce_data_path, data_cache_dir
from inspect_cite.alce.prompts import (
    ALCE_PROMPT_COMMIT,
    PROMPT_SHA256,
    PromptFileError,
    official_prompt_path,
)
from inspect_cite.downloads import http_client
from tests.helpers.http_servers import TricklingServer, within

NAME = "asqa_default"


class ScriptedServer:
    """Answers each GET/HEAD with the next scripted reply; the last one repeats."""

    def __init__(self, replies: list[tuple[int, bytes, int | None]]) -> None:
        self.replies = replies
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, body_wanted: bool) -> None:
                server.requests.append(f"{self.command} {self.path}")
                index = min(len(server.requests) - 1, len(server.replies) - 1)
                status, body, length = server.replies[index]
                self.send_response(status)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                if body_wanted:
                    self.wfile.write(body)
                    self.wfile.flush()
                # A Content-Length longer than the body, then a closed socket: a cut download.
                self.close_connection = True

            def do_GET(self) -> None:
                self._reply(True)

            def do_HEAD(self) -> None:
                self._reply(False)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """Record the backoff waits of tenacity (used by http_client.download) without waiting."""
    waited: list[float] = []

    class Clock:
        @staticmethod
        def sleep(seconds: float) -> None:
            waited.append(seconds)

    monkeypatch.setattr(tenacity.nap, "time", Clock)
    return waited


@pytest.fixture
def prompt_bytes(alce_prompt_dir, monkeypatch) -> bytes:
    """The file the scripted server serves: the project's own, pinned as if it were ALCE's.

    What is under test is the download path (retries, checksum, atomic caching), which treats
    any pinned file alike; the pinned official hashes are checked in test_prompts.py.
    """
    data = (alce_prompt_dir / f"{NAME}.json").read_bytes()
    monkeypatch.setitem(PROMPT_SHA256, NAME, hashlib.sha256(data).hexdigest())
    return data


def serve_prompts(monkeypatch, server: ScriptedServer | TricklingServer) -> None:
    monkeypatch.setattr(
        alce_prompts, "ALCE_PROMPT_URL", server.url + "/{repo}/{commit}/prompts/{name}.json"
    )


def prompt_cache_files(cache_root: Path) -> list[Path]:
    root = cache_root / "alce" / "prompts" / ALCE_PROMPT_COMMIT[:12]
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_errors_are_retried_then_the_file_is_cached(
    cache_root, monkeypatch, sleeps, prompt_bytes, status
):
    with ScriptedServer(
        [(status, b"busy", None), (status, b"busy", None), (200, prompt_bytes, None)]
    ) as s:
        serve_prompts(monkeypatch, s)
        path = official_prompt_path(NAME)
    assert len(s.requests) == 3
    assert len(sleeps) == 2  # backed off before each retry
    assert path.read_bytes() == prompt_bytes
    assert prompt_cache_files(cache_root) == [path]


def test_persistent_5xx_gives_a_clear_error_and_caches_nothing(
    cache_root, monkeypatch, sleeps, prompt_bytes
):
    with ScriptedServer([(503, b"down", None)]) as s:
        serve_prompts(monkeypatch, s)
        with pytest.raises(PromptFileError) as e:
            official_prompt_path(NAME)
    assert len(s.requests) == 5  # inspect's download policy: five attempts
    message = str(e.value)
    assert f"{NAME}.json" in message and s.url in message
    assert "5 attempts failed, the last with HTTPStatusError" in message
    assert "503 Service Unavailable" in message
    assert "-T prompt_file=" in message
    assert prompt_cache_files(cache_root) == []


def test_non_transient_4xx_is_not_retried(cache_root, monkeypatch, sleeps):
    with ScriptedServer([(404, b"no such file", None)]) as s:
        serve_prompts(monkeypatch, s)
        with pytest.raises(PromptFileError, match="404"):
            official_prompt_path(NAME)
    assert len(s.requests) == 1 and sleeps == []
    assert prompt_cache_files(cache_root) == []


def test_truncated_body_leaves_no_partial_file(cache_root, monkeypatch, sleeps, prompt_bytes):
    cut = prompt_bytes[: len(prompt_bytes) // 2]
    with ScriptedServer([(200, cut, len(prompt_bytes))]) as s:
        serve_prompts(monkeypatch, s)
        with pytest.raises(PromptFileError, match=f"{NAME}.json"):
            official_prompt_path(NAME)
    assert prompt_cache_files(cache_root) == []


def test_wrong_content_fails_the_checksum_and_caches_nothing(cache_root, monkeypatch, sleeps):
    with ScriptedServer([(200, b'{"instruction": "tampered"}', None)]) as s:
        serve_prompts(monkeypatch, s)
        with pytest.raises(PromptFileError, match="Checksum mismatch"):
            official_prompt_path(NAME)
    assert prompt_cache_files(cache_root) == []


def test_refused_connection_names_the_url_and_the_override(cache_root, monkeypatch, sleeps):
    with ScriptedServer([(200, b"", None)]) as s:
        url = s.url
    # The server is gone: nothing listens on that port any more.
    monkeypatch.setattr(alce_prompts, "ALCE_PROMPT_URL", url + "/{repo}/{commit}/{name}.json")
    with pytest.raises(PromptFileError) as e:
        official_prompt_path(NAME)
    assert url in str(e.value) and "-T prompt_file=" in str(e.value)
    assert prompt_cache_files(cache_root) == []


def test_a_trickling_download_ends_at_its_deadline(cache_root, monkeypatch, sleeps):
    # Each byte comes within the per-read timeout: only the attempt's deadline ends it.
    monkeypatch.setattr(http_client, "DOWNLOAD_DEADLINE", 0.5)
    with TricklingServer("body") as slow:
        serve_prompts(monkeypatch, slow)
        with pytest.raises(PromptFileError) as e:
            within(120, official_prompt_path, NAME)
    assert slow.connections == 5  # a passed deadline is retried like a transport error
    assert "TimeoutError: no complete reply within 0.5 s" in str(e.value)
    assert prompt_cache_files(cache_root) == []


@pytest.fixture
def hub_sleeps(monkeypatch) -> Iterator[list[float]]:
    """Let huggingface_hub go online, and record its backoff waits without waiting.

    Its retry loop calls ``time.sleep`` directly; the scripted server never sleeps, so
    replacing it for the test's duration only skips the hub client's waits.
    """
    import time

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    waited: list[float] = []
    monkeypatch.setattr(time, "sleep", waited.append)
    yield waited


def data_cache_entries() -> list[Path]:
    directory = data_cache_dir()
    return sorted(directory.rglob("*")) if directory.exists() else []


@pytest.mark.parametrize("status", [503, 429])
def test_alce_data_hub_errors_give_a_clear_error_and_cache_nothing(
    cache_root, monkeypatch, hub_sleeps, status
):
    from huggingface_hub import constants

    with ScriptedServer([(status, b"unavailable", None)]) as s:
        monkeypatch.setattr(constants, "ENDPOINT", s.url)
        monkeypatch.setattr(
            constants,
            "HUGGINGFACE_CO_URL_TEMPLATE",
            s.url + "/{repo_id}/resolve/{revision}/{filename}",
        )
        with pytest.raises(AlceDataError) as e:
            alce_data_path("asqa_eval_gtr_top100.json")
    assert s.requests, "the hub client never reached the server"
    message = str(e.value)
    assert len(s.requests) > 1 and hub_sleeps, "the hub client did not retry"
    assert "asqa_eval_gtr_top100.json" in message
    assert f"HTTP Error {status}" in message or f"{status} " in message
    assert "-T dataset_path=" in message and "INSPECT_CITE_ALCE_DATA_DIR" in message
    assert data_cache_entries() == []


# --- cache integrity: a corrupt entry is reported, moved aside and fetched or rebuilt -------


def prompt_dest() -> Path:
    from inspect_cite.downloads.cache import cache_dir

    return cache_dir("alce", "prompts", ALCE_PROMPT_COMMIT[:12]) / f"{NAME}.json"


def test_corrupt_cached_prompt_is_reported_moved_aside_and_fetched_again(
    cache_root, monkeypatch, sleeps, prompt_bytes, caplog
):
    dest = prompt_dest()
    dest.write_bytes(prompt_bytes[:100])  # cut
    with ScriptedServer([(200, prompt_bytes, None)]) as s:
        serve_prompts(monkeypatch, s)
        assert official_prompt_path(NAME).read_bytes() == prompt_bytes
    assert f"cached file {dest} is corrupt (SHA-256" in caplog.text
    [aside] = dest.parent.glob(f"{NAME}.json.corrupt-*")
    assert aside.read_bytes() == prompt_bytes[:100]


def test_corrupt_cached_prompt_offline_is_called_corrupt_not_missing(
    cache_root, monkeypatch, sleeps
):
    dest = prompt_dest()
    dest.write_bytes(b"")  # emptied
    with ScriptedServer([(200, b"", None)]) as s:
        url = s.url
    monkeypatch.setattr(alce_prompts, "ALCE_PROMPT_URL", url + "/{repo}/{commit}/{name}.json")
    with pytest.raises(PromptFileError) as e:
        official_prompt_path(NAME)
    message = str(e.value)
    assert f"ALCE prompt file {NAME}.json was corrupt (SHA-256" in message
    assert f"moved aside to {NAME}.json.corrupt-" in message and "not cached" not in message


def test_corrupt_punkt_cache_is_reported_moved_aside_and_rebuilt(cache_root, monkeypatch, caplog):
    import nltk
    from nltk.tokenize import PunktTokenizer

    from inspect_cite.text import punkt

    monkeypatch.setattr(nltk.data, "path", [])  # only this test's cache holds punkt_tab
    monkeypatch.setattr(punkt, "_ready", False)
    punkt.ensure_punkt()
    english = cache_root / "nltk_data" / "tokenizers" / "punkt_tab" / "english"
    text = "Dr. Smith met Mr. Jones at the U.S. embassy on Jan. 5. They talked about France."
    expected = PunktTokenizer("english").tokenize(text)
    assert len(expected) == 2
    (english / "abbrev_types.txt").write_text("")  # emptied: "Dr." would end a sentence
    monkeypatch.setattr(punkt, "_ready", False)  # the next process
    punkt.ensure_punkt()
    assert PunktTokenizer("english").tokenize(text) == expected
    assert f"cached file {english / 'abbrev_types.txt'} is corrupt" in caplog.text
    assert list(english.glob("abbrev_types.txt.corrupt-*"))


@pytest.mark.parametrize(
    "manifest",
    [
        "",
        '{"files": ',
        "[]",
        "null",
        '{"files": []}',
        '{"files": {"asqa_eval_gtr_top100.json": 3}}',
    ],
)
def test_corrupt_alce_manifest_is_moved_aside_and_the_data_fetched_again(
    tmp_path, cache_root, monkeypatch, caplog, manifest
):
    from tests.alce.test_data import fake_alce_members, install_fake_hub, tar_bytes

    members = fake_alce_members({"asqa_eval_gtr_top100.json": 948})
    calls = install_fake_hub(monkeypatch, tar_bytes(tmp_path, members))
    path = alce_data_path("asqa_eval_gtr_top100.json")
    (path.parent / "manifest.json").write_text(manifest)
    assert alce_data_path("asqa_eval_gtr_top100.json") == path and len(calls) == 2
    assert f"cached file {path.parent / 'manifest.json'} is corrupt" in caplog.text
    assert list(path.parent.glob("manifest.json.corrupt-*"))
    assert alce_data_path("asqa_eval_gtr_top100.json") == path and len(calls) == 2  # repaired


def test_corrupt_alce_data_offline_is_called_corrupt_not_missing(tmp_path, cache_root, monkeypatch):
    import huggingface_hub

    from tests.alce.test_data import fake_alce_members, install_fake_hub, tar_bytes

    install_fake_hub(monkeypatch, tar_bytes(tmp_path, fake_alce_members()))
    path = alce_data_path("eli5_eval_bm25_top100.json")
    path.write_text("[]")

    def offline(**kwargs):
        raise huggingface_hub.errors.LocalEntryNotFoundError("offline mode is enabled")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", offline)
    with pytest.raises(AlceDataError) as e:
        alce_data_path("eli5_eval_bm25_top100.json")
    message = str(e.value)
    assert "ALCE data file eli5_eval_bm25_top100.json is corrupt in the cache" in message
    assert "moved aside to eli5_eval_bm25_top100.json.corrupt-" in message
    assert "not cached" not in message and "-T dataset_path=" in message


def test_a_killed_download_leaves_no_folder_behind(tmp_path, cache_root, monkeypatch):
    import os
    import subprocess
    import sys

    from tests.alce.test_data import fake_alce_members, install_fake_hub, tar_bytes
    from tests.conftest import ROOT

    killed = (
        "import os, signal, huggingface_hub\n"
        "from inspect_cite.alce.data import alce_data_path\n"
        "huggingface_hub.hf_hub_download = lambda **kw: os.kill(os.getpid(), signal.SIGKILL)\n"
        "alce_data_path('asqa_eval_gtr_top100.json')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_CITE_ALCE_DATA_DIR"}
    env.update(PYTHONPATH=str(ROOT), INSPECT_CITE_CACHE_DIR=str(cache_root))
    proc = subprocess.run([sys.executable, "-c", killed], env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == -9
    assert [p.name for p in data_cache_entries()][0].startswith(".download-")
    install_fake_hub(monkeypatch, tar_bytes(tmp_path, fake_alce_members()))
    alce_data_path("asqa_eval_gtr_top100.json")
    assert not [p for p in data_cache_entries() if p.name.startswith(".download-")]


def test_an_interrupted_cache_write_leaves_the_old_file_and_no_temporary(tmp_path):
    from inspect_cite.downloads.files import atomic_writer

    path = tmp_path / "manifest.json"
    path.write_text('{"files": {}}')
    with pytest.raises(KeyboardInterrupt), atomic_writer(path) as f:
        f.write(b'{"files": {"a.json"')
        raise KeyboardInterrupt  # the run stops mid-write
    assert path.read_text() == '{"files": {}}'
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
