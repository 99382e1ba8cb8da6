import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample

from inspect_cite.evidence.documents import DocumentError
from solvers.prompted import FULLCITE_PROMPT, format_documents, prompted_citations
from tests.helpers.scripted_models import scripted_model

DOCS = [
    {"id": "32148495", "title": "AXL in cancer", "text": "AXL is a receptor {tyrosine} kinase."},
    {"id": "doc-2", "title": "", "text": "Second document text."},
]


def test_prompt_lists_numbered_documents_ids_titles_and_question(tmp_path):
    model, script = scripted_model(["An answer {doc_id: doc-2, snippet: Second document}"])
    sample = Sample(input="ignored input", metadata={"question": "What does AXL do?", "docs": DOCS})
    [log] = eval(
        Task(dataset=MemoryDataset([sample]), solver=prompted_citations(system_message="Sys.")),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    messages = log.samples[0].messages
    assert [m.role for m in messages] == ["system", "user", "assistant"]
    prompt = messages[1].text
    assert "Document 1 (doc_id: 32148495): AXL in cancer\nAXL is a receptor {tyrosine} kinase." in (
        prompt
    )
    assert "Document 2 (doc_id: doc-2): (untitled)\nSecond document text." in prompt
    assert "{doc_id: <id>, snippet: <verbatim text>}" in prompt
    assert prompt.rstrip().endswith("Question: What does AXL do?\nAnswer:")
    assert "ignored input" not in prompt
    assert script.inputs[0][1].text == prompt
    assert log.samples[0].output.completion.startswith("An answer")


def test_question_falls_back_to_input(tmp_path):
    model, script = scripted_model(["x"])
    [log] = eval(
        Task(
            dataset=MemoryDataset([Sample(input="Input question?", metadata={"docs": DOCS})]),
            solver=prompted_citations(),
        ),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert "Question: Input question?" in log.samples[0].messages[0].text


def test_missing_docs_is_a_clear_error(tmp_path):
    model, _ = scripted_model(["x"])
    [log] = eval(
        Task(dataset=MemoryDataset([Sample(input="Q")]), solver=prompted_citations()),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "error" and 'metadata has no "docs"' in log.error.message
    with pytest.raises(DocumentError):
        from inspect_cite.evidence.documents import get_docs

        get_docs({"docs": [{"id": 1, "title": "", "text": ""}]})


def test_templates_are_checked():
    with pytest.raises(ValueError, match="question"):
        prompted_citations(template="Docs: {documents}")
    with pytest.raises(ValueError):
        prompted_citations(template="{documents} {question} {other}")
    with pytest.raises(ValueError):
        prompted_citations(document_template="{nope}")
    assert "{documents}" in FULLCITE_PROMPT and "{question}" in FULLCITE_PROMPT
    assert format_documents(DOCS, "[{number}] {id}").splitlines() == [
        "[1] 32148495",
        "",
        "[2] doc-2",
    ]


def test_one_system_message_rule_for_every_solver():
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from inspect_cite.generation.messages import add_system_message, system_messages

    own = [ChatMessageUser(content="q"), ChatMessageSystem(content="Own.")]
    assert [m.text for m in system_messages(own, "Default.")] == ["Own."]
    assert [m.text for m in system_messages(own[:1], "Default.")] == ["Default."]
    assert system_messages(own[:1], None) == []
    messages = own[:1]
    add_system_message(messages, "Default.")
    assert [(m.role, m.text) for m in messages] == [("system", "Default."), ("user", "q")]
    add_system_message(own, "Default.")  # a sample's own system message stays where it is
    assert [m.text for m in own] == ["q", "Own."]
