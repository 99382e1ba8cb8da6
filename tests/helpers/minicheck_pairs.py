"""The (document, claim) pairs ``minicheck:`` is compared with MiniCheck's own code on.

Plain data, importable without the project (the script that ran MiniCheck's code on them read this
file). Chosen to reach each step of MiniCheck's document handling: one-chunk and many-chunk
documents, lines and blank lines (the per-line split and the ``" \\n "`` repair), spaces around
newlines, a sentence longer than a chunk (the empty first chunk), a document with ``[CLAIM]`` in it
(the 7B prompt's sequential replacement), inputs longer than a classifier's 512 tokens (truncation
from the end, which cuts the claim), characters outside the test tokenizers (unknown pieces) and
claims of several sentences (the 7B family's min over sentences).
"""

_RIVER = (
    "The river flooded the valley in the spring of that year. Farmers moved their cattle to the "
    "hills. The new bridge was opened by the mayor in June, and the old ferry stopped running."
)
_COMPANY = (
    "The company was founded in 1998 and makes parts for bicycles. Its first factory was built "
    "near the station. Sales grew every year until the market changed."
)
_STUDY = (
    "The study found that patients who slept more had lower blood pressure. It was published "
    "in a medical journal and cited by other groups."
)
_AUTHOR = (
    "The author wrote three novels about the sea and one book of poems. She was born in a "
    "fishing village and taught music for twenty years."
)


def _long_document(n: int) -> str:
    """``n`` paragraphs of the four texts in turn, one paragraph a line, a blank line between."""
    texts = [_RIVER, _COMPANY, _STUDY, _AUTHOR]
    return "\n\n".join(f"Part {i + 1}. {texts[i % 4]}" for i in range(n))


LONG_SENTENCE = (
    " ".join(
        ["The museum holds the records of the flood"] + ["and the photographs of the school"] * 80
    )
    + "."
)

PAIRS: list[tuple[str, str]] = [
    (_RIVER, "The bridge was opened in June."),
    (_RIVER, "The ferry still runs every day."),
    (_COMPANY, "The company makes parts for bicycles."),
    (_STUDY + "\n" + _AUTHOR, "She taught music for twenty years."),
    ("Title: Flood\n\n  " + _RIVER + "  \n \n" + _STUDY + " \n", "The valley flooded in spring."),
    (_long_document(12), "Sales grew every year."),
    (_long_document(30), "The author was born in a fishing village."),
    (_long_document(30), "The mayor closed the museum."),
    (LONG_SENTENCE + " " + _COMPANY, "The museum holds photographs."),
    (_COMPANY + "\n" + LONG_SENTENCE, "The factory was built near the station."),
    (_AUTHOR + " See [CLAIM] below.", "She wrote three novels."),
    ("Café Zürich — naïve “quotes” 中文. " + _STUDY, "The study was published."),
    (_RIVER, "The river flooded the valley. The mayor opened the bridge. Sales grew."),
    (_long_document(8), "The company was founded in 1998. It makes cars."),
    ("a", "b"),
]
"""Every family is compared on these (the classifier and Flan-T5 families fail on an empty
document in MiniCheck's code, so none is here; ``EMPTY_PAIRS`` holds those)."""

EMPTY_PAIRS: list[tuple[str, str]] = [
    ("", "The bridge was opened in June."),
    ("  \n ", "Sales grew."),
]
"""Documents without text: the 7B family's code judges them as one empty chunk."""
