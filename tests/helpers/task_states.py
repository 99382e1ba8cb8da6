"""A TaskState as a scorer sees it after one generation, for calling scorers directly."""

from typing import Any

from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput
from inspect_ai.solver import TaskState


def state(completion: str, metadata: dict[str, Any]) -> TaskState:
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="q",
        messages=[ChatMessageUser(content="q")],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
        metadata=metadata,
    )


# Two FullCite context documents: "a" is about Eccleston, "b" about Tennant.
FULLCITE_DOCS = [
    {"id": "a", "title": "Doctor Who", "text": "Christopher Eccleston played the Ninth Doctor."},
    {"id": "b", "title": "Tennant", "text": "David Tennant played the Tenth Doctor."},
]


def fullcite_metadata() -> dict[str, Any]:
    """A BioASQ factoid sample's metadata over :data:`FULLCITE_DOCS` (gold: doc "a")."""
    return {
        "docs": [dict(d) for d in FULLCITE_DOCS],
        "gold_spans": [{"doc_id": "a", "span": "Christopher Eccleston"}],
        "question": "Who played the Ninth Doctor?",
        "question_type": "factoid",
        "exact_answer": [["Christopher Eccleston"]],
        "reference_answers": ["Christopher Eccleston."],
        "source": "bioasq",
    }
