"""A ``remote:`` NLI key an HTTP header cannot carry never reaches a log (issue 52, item 5).

Python's HTTP library refuses such a header with an error quoting it, ``Bearer <key>``
included. The key is refused before the run, in one line that does not show it; an error
raised before a request is sent is not retried as a server fault; and every error text is
redacted of credentials in every form.
"""

import asyncio
import json

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.nli import NLIConfigError, NLIError, get_nli
from inspect_cite.nli import remote as remote_module
from tests.conftest import FIXTURES
from tests.helpers.scripted_models import scripted_model
from tests.nli.test_nli_remote import Classify, server  # noqa: F401 (fixture)
from tests.robustness.test_security import all_text

SECRET = "letterskeydonotlog"
"""The part of each key that must appear nowhere."""

BAD_KEYS = {
    "carriage return": f"{SECRET}\r",
    "typographic quotes": f"\u201c{SECRET}\u201d",
    "space inside": f"{SECRET} {SECRET}",
    "latin-1 letter": f"{SECRET}\u00e9",
}


@pytest.fixture(autouse=True)
def _fresh(fresh_nli, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_BACKOFF", "0")


@pytest.mark.parametrize("key", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_a_key_a_header_cannot_carry_is_refused_in_one_line_without_it(
    server,  # noqa: F811 (fixture)
    monkeypatch,
    key,
):
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", key)
    with pytest.raises(NLIConfigError) as e:
        get_nli(f"remote:{server}#m")
    message = str(e.value)
    assert "\n" not in message and SECRET not in message
    assert "INSPECT_CITE_NLI_API_KEY holds a character an HTTP header cannot carry" in message
    assert "the key is not shown" in message
    assert Classify.requests == []


def test_the_refusal_names_the_character_and_its_likely_cause(server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", BAD_KEYS["carriage return"])
    with pytest.raises(NLIConfigError, match=r"U\+000D .* at character 19 of 19; a Windows line"):
        get_nli(f"remote:{server}#m")
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", BAD_KEYS["typographic quotes"])
    with pytest.raises(NLIConfigError, match="U\\+201C LEFT DOUBLE QUOTATION MARK at character 1"):
        get_nli(f"remote:{server}#m")


def run_asqa(server: str, log_dir) -> tuple[str, object]:  # noqa: F811
    """Run ASQA on one sample with ``remote:`` NLI: (the refusal's text, the log or None)."""
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:1]
    model, _ = scripted_model([f"{items[0]['docs'][0]['text'][:60]} [1]."])
    try:
        task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=f"remote:{server}#m")
        [log] = inspect_eval(task, model=model, display="none", log_dir=str(log_dir), limit=1)
    except PreflightError as e:
        return str(e), None
    return "", log


@pytest.mark.parametrize("key", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_a_run_with_such_a_key_stops_before_it_starts_and_logs_no_key(
    server,  # noqa: F811 (fixture)
    own_prompts,
    tmp_path,
    monkeypatch,
    key,
):
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", key)
    refused, log = run_asqa(server, tmp_path / "logs")
    assert log is None and "INSPECT_CITE_NLI_API_KEY holds a character" in refused
    assert SECRET not in refused
    written = all_text(tmp_path / "logs") if (tmp_path / "logs").exists() else ""
    assert SECRET not in written
    assert Classify.requests == []


def test_a_header_error_past_the_check_is_not_retried_and_not_logged(
    server,  # noqa: F811 (fixture)
    own_prompts,
    tmp_path,
    monkeypatch,
):
    # As if the check missed a key http.client refuses: the error it raises quotes the header.
    monkeypatch.setattr(remote_module, "api_key_problem", lambda key: None)
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", BAD_KEYS["carriage return"])
    nli = get_nli(f"remote:{server}#m")
    with pytest.raises(NLIError) as e:
        asyncio.run(nli.entail([("a b", "a")]))
    message = str(e.value)
    assert "the request could not be sent (ValueError: Invalid header value" in message
    assert "not retried" in message and SECRET not in message
    assert getattr(e.value.__cause__, "retryable", None) is False
    assert Classify.requests == []

    refused, log = run_asqa(server, tmp_path / "logs")
    assert refused == "" and log is not None and log.status == "success", log
    text = all_text(tmp_path / "logs")
    assert "the request could not be sent" in text  # the reason reached the log, redacted
    assert SECRET not in text


def test_a_key_that_changes_after_the_check_is_refused_at_the_request(server, monkeypatch):  # noqa: F811
    nli = get_nli(f"remote:{server}#m")
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", BAD_KEYS["typographic quotes"])
    with pytest.raises(NLIConfigError) as e:
        asyncio.run(nli.entail([("a b", "a")]))
    assert SECRET not in str(e.value) and Classify.requests == []


KEY = "abcdefghijklmnop"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (f"sent Bearer {KEY}", "sent Bearer ***"),  # letters only
        (f"sent Bearer {KEY}!x$y", "sent Bearer ***"),
        (f"Invalid header value b'Bearer {KEY}\\r'", "Invalid header value b'Bearer ***'"),
        (f"('latin-1', 'Bearer \u201c{KEY}\u201d', 7, 8)", "('latin-1', 'Bearer ***', 7, 8)"),
        (f"Authorization: Basic {KEY}=", "Authorization: Basic ***"),
        (f"{{'Authorization': 'Bearer {KEY}'}}", "{'Authorization': 'Bearer ***'}"),
        (f"x-api-key: {KEY}", "x-api-key: ***"),
        (f"{{'X-Api-Key': '{KEY}'}}", "{'X-Api-Key': '***'}"),
        (f"api_key={KEY}!$, next", "api_key=***, next"),
        (f"key sk-proj-{KEY}", "key ***"),
        # What a message says about bearer tokens keeps its text.
        ("a bearer header; Bearer authentication", "a bearer header; Bearer authentication"),
        (
            "Bearer tokens are sent as the Bearer scheme",
            "Bearer tokens are sent as the Bearer scheme",
        ),
    ],
)
def test_every_credential_form_is_redacted(text, redacted):
    assert redact_text(text) == redacted


def test_nli_errors_are_redacted_wherever_they_are_made():
    assert str(NLIError(f"server said: Authorization: Bearer {KEY}")) == (
        "server said: Authorization: Bearer ***"
    )
