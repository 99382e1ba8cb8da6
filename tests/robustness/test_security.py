"""Security: ``python:`` NLI code runs only when asked for; API keys never reach logs or reports;
no HTTP client follows a redirect to another origin."""

import asyncio
import json
import sys
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa
from fullcite_tasks.data.pubmed import PubMedClient, PubMedError
from inspect_cite.alce.prompts import PromptFileError, official_prompt_path
from inspect_cite.app.cli import main
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.http_client import redact_text, redact_url
from inspect_cite.nli import NLIConfigError, NLIError, get_nli
from inspect_cite.nli.registry import parse_nli_spec
from tests.conftest import FIXTURES
from tests.helpers.http_servers import RecordingServer, Reply, Seen, redirect_to
from tests.helpers.scripted_models import scripted_model
from tests.nli.test_nli_remote import Classify, server  # noqa: F401 (fixture)
from tests.robustness.test_download_faults import (  # noqa: F401 (fixtures)
    NAME,
    prompt_bytes,
    prompt_cache_files,
    serve_prompts,
    sleeps,
)

SENTINEL = "tests.helpers.nli_sentinel"
OPENAI_KEY = "sk-openai-do-not-log-4242"
NLI_KEY = "secret-key"  # what the remote server fixture puts in INSPECT_CITE_NLI_API_KEY


@pytest.fixture(autouse=True)
def _fresh(fresh_nli):
    sys.modules.pop(SENTINEL, None)
    yield
    sys.modules.pop(SENTINEL, None)


@pytest.mark.parametrize(
    "spec",
    [
        f"seq2seq:{SENTINEL}:entail",
        f"classifier:{SENTINEL}",
        f"model:{SENTINEL}",
        f"remote:http://127.0.0.1:9#{SENTINEL}:entail",
    ],
)
def test_python_code_is_not_imported_for_other_specs(spec):
    get_nli(spec)
    parse_nli_spec(f"python:{SENTINEL}:entail")
    assert SENTINEL not in sys.modules


def test_python_code_is_imported_when_given_explicitly():
    get_nli(f"python:{SENTINEL}:entail")
    assert SENTINEL in sys.modules


def all_text(directory: Path) -> str:
    """Every file under ``directory``, with .eval archives unpacked."""
    parts = []
    for path in directory.rglob("*"):
        if not path.is_file():
            continue
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as z:
                parts += [z.read(n).decode("utf-8", "replace") for n in z.namelist()]
        else:
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_api_keys_never_reach_logs_or_reports(server, own_prompts, tmp_path, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:2]
    outputs = [f"{item['docs'][0]['text'][:60]} [1]." for item in items]
    model, _ = scripted_model(outputs)
    log_dir = tmp_path / "logs"
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=f"remote:{server}#m")
    [log] = inspect_eval(
        task, model=model, display="none", log_dir=str(log_dir), limit=2, max_connections=1
    )
    assert log.status == "success", log.error
    assert Classify.requests and Classify.requests[0]["auth"] == f"Bearer {NLI_KEY}"
    assert main(["report", str(log_dir), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr()
    text = all_text(log_dir) + all_text(tmp_path / "report") + printed.out + printed.err
    assert "citation_rec" in text  # the scan did read the log and the report
    assert OPENAI_KEY not in text and NLI_KEY not in text


# --- one redirect policy for every HTTP client: same origin only ----------------------------

CLASSIFY_REPLY = json.dumps({"data": [{"index": 0, "label": "entailment", "probs": [1.0]}]})


@pytest.mark.parametrize("status", [301, 302, 303, 307])
def test_remote_nli_never_follows_a_redirect_to_another_origin(monkeypatch, status):
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", NLI_KEY)
    monkeypatch.setenv("INSPECT_CITE_NLI_BACKOFF", "0")
    other = RecordingServer(lambda seen: Reply(200, CLASSIFY_REPLY.encode()))
    with other, RecordingServer(redirect_to(other.url, status)) as first:
        with pytest.raises(NLIError) as e:
            asyncio.run(get_nli(f"remote:{first.url}#m").entail([("a b", "a")]))
    assert first.requests and first.requests[0].headers["Authorization"] == f"Bearer {NLI_KEY}"
    # The other host got neither the key nor a chance to answer.
    assert other.requests == []
    assert len(first.requests) == 1, "a refused redirect is not retried"
    message = str(e.value)
    assert f"refused a redirect from {first.url}/classify to {other.url}/classify" in message


def test_pubmed_never_follows_a_redirect_to_another_origin(tmp_path):
    other = RecordingServer(lambda seen: Reply(200, b"<PubmedArticleSet/>"))
    with other, RecordingServer(redirect_to(other.url)) as first:
        client = PubMedClient(
            base_url=first.url + "/eutils/", api_key="ncbi-secret", cache=tmp_path, backoff=0
        )
        with pytest.raises(PubMedError, match="refused a redirect from .* to "):
            client.fetch(["101"])
    assert b"ncbi-secret" in first.requests[0].body
    assert other.requests == [] and len(first.requests) == 1


def test_prompt_download_follows_redirects_within_its_origin_only(
    cache_root,
    monkeypatch,
    sleeps,  # noqa: F811 (fixture)
    prompt_bytes,  # noqa: F811 (fixture)
):
    def serve(seen: Seen) -> Reply:
        if seen.path.startswith("/moved/"):
            return Reply(200, prompt_bytes)
        return Reply(302, headers={"Location": "/moved" + seen.path})

    with RecordingServer(serve) as same:
        serve_prompts(monkeypatch, same)  # type: ignore[arg-type]
        assert official_prompt_path(NAME).read_bytes() == prompt_bytes
    assert [s.path.startswith("/moved/") for s in same.requests] == [False, True]

    for path in prompt_cache_files(cache_root):
        path.unlink()
    other = RecordingServer(lambda seen: Reply(200, prompt_bytes))
    with other, RecordingServer(redirect_to(other.url)) as first:
        serve_prompts(monkeypatch, first)  # type: ignore[arg-type]
        with pytest.raises(PromptFileError, match=f"refused a redirect from {first.url}/"):
            official_prompt_path(NAME)
    assert other.requests == [] and len(first.requests) == 1 and sleeps == []
    assert prompt_cache_files(cache_root) == []


# --- credentials never reach a log ----------------------------------------------------------

TOKEN = "tok3n-do-not-log-7777"


@pytest.mark.parametrize(
    "url",
    [
        f"http://user:{TOKEN}@127.0.0.1:9",
        f"http://{TOKEN}@127.0.0.1:9/v1",
        f"https://nli.example/v1?api_key={TOKEN}",
        f"https://nli.example/v1?x=1&access_token={TOKEN}",
    ],
)
def test_remote_url_with_credentials_is_refused_without_echoing_them(url):
    with pytest.raises(NLIConfigError) as e:
        get_nli(f"remote:{url}#m")
    message = str(e.value)
    assert TOKEN not in message
    assert "INSPECT_CITE_NLI_API_KEY" in message and "***" in message


def test_credentials_in_a_remote_url_never_reach_the_eval_log(server, own_prompts, tmp_path):  # noqa: F811
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:1]
    model, _ = scripted_model([f"{items[0]['docs'][0]['text'][:60]} [1]."])
    log_dir = tmp_path / "logs"
    with_credentials = server.replace("http://", f"http://user:{TOKEN}@")
    refused = ""
    try:
        task = asqa(
            dataset_path=str(FIXTURES / "alce_asqa.json"), nli=f"remote:{with_credentials}#m"
        )
        inspect_eval(task, model=model, display="none", log_dir=str(log_dir), limit=1)
    except PreflightError as e:
        refused = str(e)
    written = all_text(log_dir) if log_dir.exists() else ""
    assert TOKEN not in written and TOKEN not in refused
    assert "INSPECT_CITE_NLI_API_KEY" in refused
    assert Classify.requests == []


def test_report_redacts_credentials_recorded_by_older_versions(own_prompts, tmp_path, capsys):
    from inspect_ai.log import read_eval_log, write_eval_log

    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:1]
    log_dir = tmp_path / "logs"
    for nli in (
        "python:tests.helpers.nli_fns:word_entail",
        "python:tests.helpers.nli_fns:word_overlap",
    ):
        model, _ = scripted_model([f"{items[0]['docs'][0]['text'][:60]} [1]."])
        task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=nli)
        [log] = inspect_eval(task, model=model, display="none", log_dir=str(log_dir), limit=1)
        assert log.status == "success", log.error
    # A log from before URLs with credentials were refused, as it recorded the task argument.
    old = read_eval_log(log.location)
    old.eval.task_args["nli"] = f"remote:http://user:{TOKEN}@nli-host:8000#m"
    write_eval_log(old, log.location)
    assert TOKEN in all_text(log_dir)
    assert main(["report", str(log_dir), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr()
    report = all_text(tmp_path / "report") + printed.out + printed.err
    assert "nli=remote:http://***@nli-host:8000#m" in report
    assert TOKEN not in report


def test_redaction_of_urls_and_specs():
    assert redact_url(f"https://u:{TOKEN}@h:8/p?a=1&api_key={TOKEN}&sig={TOKEN}#m") == (
        "https://***@h:8/p?a=1&api_key=***&sig=***#m"
    )
    assert redact_url("http://h/p?q=plain") == "http://h/p?q=plain"
    text = f"remote:http://u:{TOKEN}@h#m and model:openai/gpt-4o"
    assert redact_text(text) == "remote:http://***@h#m and model:openai/gpt-4o"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (f"HTTP 401 (api_key={TOKEN})", "HTTP 401 (api_key=***)"),
        (
            f"{{'access_token': '{TOKEN}', 'max_tokens': 300}}",
            "{'access_token': '***', 'max_tokens': 300}",
        ),
        (f'{{"password": "{TOKEN}"}}', '{"password": "***"}'),
        (f"-M hf_token={TOKEN}, -M model_path=/m", "-M hf_token=***, -M model_path=/m"),
        (f"header Authorization: Bearer {TOKEN}", "header Authorization: Bearer ***"),
        (f"sent Bearer {TOKEN}.sig", "sent Bearer ***"),
        (f"key {OPENAI_KEY} and sk-ant-api03-{TOKEN}", "key *** and ***"),
        ("hf_abcdefghijklmnopqrstuvwxyz0123 AKIAABCDEFGHIJKLMNOP", "*** ***"),
        # Words and settings that only look like the above keep their text.
        ("a bearer header; Bearer authentication", "a bearer header; Bearer authentication"),
        (
            "max_tokens=300, missing key: docs, sort_order=asc",
            "max_tokens=300, missing key: docs, sort_order=asc",
        ),
        # A file path ending in a secret-looking name, and what an unset argument reads.
        (
            "-T config=../../../etc/passwd: ../../../etc/passwd does not exist",
            "-T config=../../../etc/passwd: ../../../etc/passwd does not exist",
        ),
        (
            "token=default, api_key=null, 'password': None, token=nullable",
            "token=default, api_key=null, 'password': None, token=***",
        ),
    ],
)
def test_redaction_of_secrets_outside_urls(text, redacted):
    assert redact_text(text) == redacted
