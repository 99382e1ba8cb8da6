"""ALCE-format prompt files written in this project's own words, for the tests.

ALCE's official prompt files are third-party text: the tasks download them (checked against
pinned hashes) and the tests that compare with them read them from ``reference_dir()``. Every
other test builds prompts from this set instead: the same fields and layout (``instruction``,
``demo_sep``, ``demo_prompt``, ``doc_prompt`` and four demonstrations of five documents each,
for every dataset and variant), with instructions of our own and demonstrations about an
invented island (ASQA, QAMPARI) or everyday science (ELI5). ``write_prompt_files`` writes them
as ``<dataset>_<variant>.json``, the names ``INSPECT_CITE_ALCE_PROMPT_DIR`` is read with.
"""

import json
from pathlib import Path
from typing import Any

DATASETS = ("asqa", "qampari", "eli5")
VARIANTS = (
    "default",
    "light_inst",
    "closedbook",
    "sum_or_ext",
    "interact_doc_id",
    "interact_search",
)
# The ALCE layout: placeholders the prompt builder fills in (not prose).
DEMO_SEP = "\n\n\n"
DEMO_PROMPT = "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}"
CLOSEDBOOK_DEMO_PROMPT = "{INST}\n\nQuestion: {Q}\n\nAnswer: {A}"
DOC_PROMPT = "Document [{ID}](Title: {T}): {P}\n"

_PROSE = (
    "Instruction: Answer the question in a few clear, neutral sentences, relying only on the "
    "documents below (not every document is useful). After each claim, put the numbers of the "
    "documents that support it in square brackets, such as [1] or [2][3]: at most three per "
    "sentence, and no more than the claim needs."
)
_LIST = (
    "Instruction: List the answers to the question, separated by commas, relying only on the "
    "documents below (not every document is useful). Cite exactly one document for each "
    "answer, such as Answer [2]. If there are more than five answers, give at least five."
)
_CHECK = (
    '\nYou see short summaries of the documents. Write "Check: Document [1][2]" to read up to '
    'three full documents, "Output:" followed by one sentence of the answer with its citations, '
    'and "End" when the answer is complete.'
)
_SEARCH = (
    '\nYou see short summaries of the documents. Write "Search: a few key words" to read the '
    'full text of the document that matches them best, "Output:" followed by one sentence of '
    'the answer with its citations, and "End" when the answer is complete.'
)
INSTRUCTIONS: dict[str, dict[str, str]] = {
    "prose": {
        "default": _PROSE,
        "sum_or_ext": _PROSE,
        "light_inst": "Instruction: Answer the question from the documents below and cite them "
        "with [1][2][3].",
        "closedbook": "Instruction: Answer the question in a few clear, neutral sentences.",
        "interact_doc_id": _PROSE + _CHECK,
        "interact_search": _PROSE + _SEARCH,
    },
    "list": {
        "default": _LIST,
        "sum_or_ext": _LIST,
        "light_inst": "Instruction: List the answers from the documents below, separated by "
        "commas, and cite one document for each answer with [1].",
        "closedbook": "Instruction: List the answers to the question, separated by commas. If "
        "there are more than five answers, give at least five.",
        "interact_doc_id": _LIST + _CHECK,
        "interact_search": _LIST + _SEARCH,
    },
}


def _doc(title: str, text: str, summary: str, extraction: str | None = None) -> dict[str, str]:
    return {
        "title": title,
        "text": text,
        "summary": summary,
        "extraction": summary if extraction is None else extraction,
    }


_IRRELEVANT = "Irrelevant"

# Each demo: a question, five documents and the answer as (part, cited documents, search words).
# A part is a sentence without its final period (ASQA, ELI5) or one list item (QAMPARI).
DEMOS: dict[str, list[dict[str, Any]]] = {
    "asqa": [
        {
            "question": "Who built the lighthouse at Cape Morrow?",
            "docs": [
                _doc(
                    "Cape Morrow Light",
                    "The Cape Morrow Light stands on the northern headland of Verrin Island. "
                    "The first tower on the site was built in 1821 by the engineer Ada Quill, "
                    "who cut its granite from the island's own quarries.",
                    "Ada Quill built the first tower at Cape Morrow in 1821.",
                ),
                _doc(
                    "Tomas Reyd",
                    "Tomas Reyd was a harbour architect from Port Salle. After a storm damaged "
                    "the old light at Cape Morrow in 1874, Reyd designed the taller iron tower "
                    "that stands there today.",
                    "Tomas Reyd designed the present iron tower after the storm of 1874.",
                ),
                _doc(
                    "Verrin Island",
                    "Verrin Island lies off the west coast and has about four thousand "
                    "inhabitants. Fishing and sheep farming are its main trades.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Lighthouses of the west coast",
                    "Several lights on the west coast were rebuilt in the 1870s. At Cape Morrow "
                    "the Harbour Board paid for the work, which was finished in 1877.",
                    "The rebuilt Cape Morrow light was paid for by the Harbour Board and "
                    "finished in 1877.",
                ),
                _doc(
                    "Ada Quill",
                    "Ada Quill was a civil engineer known for her bridges and sea walls. Her "
                    "lighthouse at Cape Morrow was the first stone tower on the island.",
                    "Ada Quill's Cape Morrow tower was the island's first stone lighthouse.",
                ),
            ],
            "answer": [
                (
                    "The first lighthouse at Cape Morrow was a stone tower built in 1821 by the "
                    "engineer Ada Quill",
                    [1, 5],
                    "Cape Morrow first tower 1821",
                ),
                (
                    "The iron tower standing today was designed by Tomas Reyd after a storm in "
                    "1874 and finished for the Harbour Board in 1877",
                    [2, 4],
                    "Cape Morrow iron tower Reyd",
                ),
            ],
        },
        {
            "question": "When did the bridge over the river Salle open?",
            "docs": [
                _doc(
                    "Old Salle crossing",
                    "A wooden bridge crossed the river Salle at Port Salle from 1790. It was "
                    "washed away twice and rebuilt each time on the same piers.",
                    "A wooden bridge crossed the Salle from 1790.",
                ),
                _doc(
                    "Salle Stone Bridge",
                    "The Salle Stone Bridge replaced the wooden crossing. Its five arches were "
                    "completed in 1901 and it opened to traffic in May 1902.",
                    "The stone bridge opened to traffic in May 1902.",
                ),
                _doc(
                    "Port Salle",
                    "Port Salle is the largest town on Verrin Island. Its market is held every "
                    "Saturday in the square by the harbour.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Salle Road Bridge",
                    "A concrete road bridge upstream of the town opened in 1958 to take lorries "
                    "off the narrow stone bridge, which is now for walkers only.",
                    "A concrete road bridge upstream opened in 1958.",
                ),
                _doc(
                    "Bridges of Verrin",
                    "The island has eleven bridges. The oldest still standing is the stone "
                    "bridge at Port Salle, opened in 1902.",
                    "The stone bridge at Port Salle, opened in 1902, is the oldest standing.",
                ),
            ],
            "answer": [
                (
                    "A wooden bridge first crossed the Salle at Port Salle in 1790",
                    [1],
                    "wooden bridge Salle 1790",
                ),
                (
                    "The stone bridge that replaced it opened to traffic in May 1902",
                    [2, 5],
                    "Salle stone bridge opened",
                ),
                (
                    "A concrete road bridge upstream followed in 1958",
                    [4],
                    "Salle road bridge 1958",
                ),
            ],
        },
        {
            "question": "Who won the Verrin regatta?",
            "docs": [
                _doc(
                    "Verrin regatta",
                    "The Verrin regatta is a rowing race around the island held each August. "
                    "The crew of the Gull won it in 1998 in record time.",
                    "The Gull won the regatta in 1998.",
                ),
                _doc(
                    "Marten (boat)",
                    "The Marten is a six-oared gig from the north shore. Its crew won the "
                    "regatta in 1999 and again in 2003.",
                    "The Marten won the regatta in 1999 and 2003.",
                ),
                _doc(
                    "Gig racing",
                    "Gigs are long, narrow rowing boats first used to carry pilots out to "
                    "ships. Most clubs race them in summer.",
                    _IRRELEVANT,
                ),
                _doc(
                    "North shore rowing club",
                    "The north shore club owns the Marten. Its two regatta wins came under the "
                    "coach Lena Dorr.",
                    "The north shore club's Marten won twice under coach Lena Dorr.",
                ),
                _doc(
                    "Island sports",
                    "Besides rowing, the island holds a fell race and a swim across the bay. "
                    "Both are open to visitors.",
                    _IRRELEVANT,
                ),
            ],
            "answer": [
                (
                    "The regatta has had several winners: the crew of the Gull won in 1998",
                    [1],
                    "regatta winner 1998",
                ),
                (
                    "The Marten, coached by Lena Dorr, won in 1999 and again in 2003",
                    [2, 4],
                    "Marten regatta wins",
                ),
            ],
        },
        {
            "question": "What is the capital of Orlan province?",
            "docs": [
                _doc(
                    "Orlan province",
                    "Orlan is the southern province of the mainland. Its government sat in the "
                    "old river town of Tessa until 1930.",
                    "Tessa was the capital of Orlan until 1930.",
                ),
                _doc(
                    "New Harrow",
                    "New Harrow was laid out in the 1920s as a planned town. In 1930 the "
                    "provincial government moved there from Tessa.",
                    "The provincial government moved to New Harrow in 1930.",
                ),
                _doc(
                    "Tessa",
                    "Tessa is known for its cathedral and its wool market. It remains the "
                    "largest city of Orlan.",
                    "Tessa is still the largest city of Orlan.",
                ),
                _doc(
                    "Orlan cuisine",
                    "Orlan is famous for smoked fish and barley bread, served at most inns "
                    "along the coast road.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Provincial capitals",
                    "Three provinces moved their capitals between the wars. Orlan's move to New "
                    "Harrow was the last of them.",
                    "Orlan moved its capital to New Harrow between the wars.",
                ),
            ],
            "answer": [
                (
                    "Since 1930 the capital of Orlan has been the planned town of New Harrow",
                    [2, 5],
                    "Orlan capital New Harrow",
                ),
                (
                    "Before that the government sat in Tessa, which is still the province's "
                    "largest city",
                    [1, 3],
                    "Tessa former capital",
                ),
            ],
        },
    ],
    "qampari": [
        {
            "question": "Which instruments play in a string quartet?",
            "docs": [
                _doc(
                    "String quartet",
                    "A string quartet has two violins, a first and a second, which share the "
                    "high parts.",
                    "A string quartet has a first and a second violin.",
                ),
                _doc(
                    "Viola",
                    "The viola is slightly larger than the violin and plays the middle voice "
                    "in a string quartet.",
                    "The viola plays the middle voice of a quartet.",
                ),
                _doc(
                    "Cello",
                    "The cello is held between the knees and gives the string quartet its bass "
                    "line.",
                    "The cello plays the quartet's bass line.",
                ),
                _doc(
                    "Piano trio",
                    "A piano trio joins a piano with a violin and a cello.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Chamber music",
                    "Chamber music is written for small groups, traditionally played in a room "
                    "rather than a hall.",
                    _IRRELEVANT,
                ),
            ],
            "answer": [
                ("First violin", [1], "string quartet violins"),
                ("second violin", [1], "string quartet violins"),
                ("viola", [2], "quartet middle voice"),
                ("cello", [3], "quartet bass line"),
            ],
        },
        {
            "question": "Which books did Orrin Vale write?",
            "docs": [
                _doc(
                    "Orrin Vale",
                    "Orrin Vale wrote two novels about the coast road, The Salt Road and "
                    "Winter at Harrow, before moving to Verrin Island.",
                    "Vale wrote The Salt Road and Winter at Harrow.",
                ),
                _doc(
                    "The Glass Orchard",
                    "The Glass Orchard is Orrin Vale's third novel, set among the island's "
                    "fruit growers.",
                    "The Glass Orchard is Vale's third novel.",
                ),
                _doc(
                    "Verrin Island literature",
                    "Writers who lived on the island include Orrin Vale, whose late books are "
                    "Small Hours and A Map of Rain.",
                    "Vale's late books are Small Hours and A Map of Rain.",
                ),
                _doc(
                    "Coast road",
                    "The coast road runs from Tessa to New Harrow and is popular with cyclists.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Harrow Prize",
                    "The Harrow Prize for fiction went to Winter at Harrow in its first year.",
                    "Winter at Harrow won the first Harrow Prize.",
                ),
            ],
            "answer": [
                ("The Salt Road", [1], "Orrin Vale novels"),
                ("Winter at Harrow", [1], "Orrin Vale novels"),
                ("The Glass Orchard", [2], "Vale third novel"),
                ("Small Hours", [3], "Vale late books"),
                ("A Map of Rain", [3], "Vale late books"),
            ],
        },
        {
            "question": "Which rivers flow into the Bay of Tessa?",
            "docs": [
                _doc(
                    "Bay of Tessa",
                    "The Bay of Tessa is fed mainly by the river Salle, which enters it below "
                    "the old town.",
                    "The Salle flows into the Bay of Tessa.",
                ),
                _doc(
                    "Orne (river)",
                    "The Orne and its tributary the Little Brack reach the Bay of Tessa through "
                    "a shared estuary.",
                    "The Orne and the Little Brack reach the bay.",
                ),
                _doc(
                    "Tessa harbour",
                    "Tessa harbour handles ferries and fishing boats. It was dredged in 1965.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Vey",
                    "The Vey is a short river that rises in the hills and falls into the Bay "
                    "of Tessa at Vey Mouth.",
                    "The Vey falls into the bay at Vey Mouth.",
                ),
                _doc(
                    "Rivers of Orlan",
                    "Most rivers of Orlan drain south to the open sea rather than to the bay.",
                    _IRRELEVANT,
                ),
            ],
            "answer": [
                ("Salle", [1], "river Salle bay"),
                ("Orne", [2], "Orne estuary"),
                ("Little Brack", [2], "Orne estuary"),
                ("Vey", [4], "Vey Mouth"),
            ],
        },
        {
            "question": "Which ships were built at the Port Salle yard?",
            "docs": [
                _doc(
                    "Port Salle yard",
                    "The yard at Port Salle built the rowing gigs Gull and Marten before it "
                    "turned to larger boats.",
                    "The yard built the gigs Gull and Marten.",
                ),
                _doc(
                    "Ferries of Verrin",
                    "The island ferry sails twice a day from Port Salle to the mainland.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Heron (ship)",
                    "The Heron, a wooden fishing boat, was launched at the Port Salle yard in "
                    "1911.",
                    "The Heron was launched at the yard in 1911.",
                ),
                _doc(
                    "Shipbuilding on Verrin",
                    "Shipbuilding on the island ended in the 1950s when the yard closed.",
                    "Island shipbuilding ended in the 1950s.",
                ),
                _doc(
                    "Northern Star",
                    "The Northern Star was the last and largest ship from the Port Salle yard.",
                    "The Northern Star was the yard's last ship.",
                ),
            ],
            "answer": [
                ("Gull", [1], "Port Salle yard gigs"),
                ("Marten", [1], "Port Salle yard gigs"),
                ("Heron", [3], "Heron launched 1911"),
                ("Northern Star", [5], "yard last ship"),
            ],
        },
    ],
    "eli5": [
        {
            "question": "Why does bread go stale?",
            "docs": [
                _doc(
                    "Staling of bread",
                    "As bread cools and sits, the starch that was softened in the oven slowly "
                    "forms crystals again, which makes the crumb firm and dry.",
                    "Starch recrystallises after baking, which firms the crumb.",
                ),
                _doc(
                    "Bread storage",
                    "Keeping bread in the fridge makes it go stale faster, because the starch "
                    "crystallises most quickly just above freezing.",
                    "Bread stales faster in the fridge.",
                ),
                _doc(
                    "Crust and crumb",
                    "Water also moves from the moist inside of a loaf to the crust, so the "
                    "crust turns leathery while the inside dries.",
                    "Water moves from the crumb to the crust.",
                ),
                _doc(
                    "History of bread",
                    "People have baked bread for thousands of years, first as flat loaves on "
                    "hot stones.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Toast",
                    "Warming stale bread melts the starch crystals for a while, which is why "
                    "toast from an old loaf can taste fresh.",
                    "Heating stale bread briefly undoes the staling.",
                ),
            ],
            "answer": [
                (
                    "Bread goes stale mostly because the starch softened by baking slowly "
                    "crystallises again, which makes the inside firm and dry",
                    [1],
                    "starch crystals stale bread",
                ),
                (
                    "Water also moves from the inside of the loaf to the crust",
                    [3],
                    "water crumb crust",
                ),
                (
                    "This happens fastest in the fridge, and warming the bread undoes it for a "
                    "while",
                    [2, 5],
                    "fridge stale bread toast",
                ),
            ],
        },
        {
            "question": "Why do onions make you cry?",
            "docs": [
                _doc(
                    "Onion",
                    "Cutting an onion breaks its cells, and enzymes inside them turn sulphur "
                    "compounds into an irritating gas.",
                    "Cut onion cells release an irritating sulphur gas.",
                ),
                _doc(
                    "Tears",
                    "When an irritant reaches the surface of the eye, nerves trigger the tear "
                    "glands to wash it away.",
                    "Irritants in the eye make the tear glands wash them away.",
                ),
                _doc(
                    "Kitchen tips",
                    "Chilling an onion before cutting it, or using a sharp knife, releases less "
                    "of the gas.",
                    "Cold onions and sharp knives release less gas.",
                ),
                _doc(
                    "Onion farming",
                    "Onions are grown from seed or small bulbs and harvested when their leaves "
                    "fall over.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Sulphur in food",
                    "Garlic, leeks and onions owe their sharp smell to sulphur compounds.",
                    _IRRELEVANT,
                ),
            ],
            "answer": [
                (
                    "Cutting an onion breaks its cells and lets enzymes turn sulphur compounds "
                    "into an irritating gas",
                    [1],
                    "onion cut gas",
                ),
                (
                    "When the gas reaches your eyes, your tear glands try to wash it away",
                    [2],
                    "tear glands irritant",
                ),
                (
                    "A cold onion and a sharp knife release less of it",
                    [3],
                    "chill onion sharp knife",
                ),
            ],
        },
        {
            "question": "How do noise-cancelling headphones work?",
            "docs": [
                _doc(
                    "Active noise control",
                    "Small microphones on the headphones pick up the sound around you, and a "
                    "chip produces the same wave turned upside down.",
                    "Microphones record outside sound and a chip inverts it.",
                ),
                _doc(
                    "Interference (waves)",
                    "When two waves meet with peaks against troughs, they cancel each other, "
                    "which is called destructive interference.",
                    "Opposite waves cancel each other out.",
                ),
                _doc(
                    "Headphone reviews",
                    "Noise cancelling works best on steady, low sounds such as engines, and "
                    "worst on sudden sounds such as voices.",
                    "It works best on steady low sounds like engines.",
                ),
                _doc(
                    "History of headphones",
                    "The first headphones were made for telephone operators more than a "
                    "century ago.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Batteries",
                    "Rechargeable batteries power most wireless headphones for a day or more.",
                    _IRRELEVANT,
                ),
            ],
            "answer": [
                (
                    "Microphones on the headphones listen to the sound around you, and a chip "
                    "plays back the same wave turned upside down",
                    [1],
                    "microphones inverted wave",
                ),
                (
                    "The two waves cancel each other out",
                    [2],
                    "destructive interference",
                ),
                (
                    "This works best for steady, low noise such as an engine hum",
                    [3],
                    "steady low sounds engines",
                ),
            ],
        },
        {
            "question": "Why is the sea salty?",
            "docs": [
                _doc(
                    "Weathering",
                    "Rain is slightly acidic and slowly dissolves minerals from rocks, which "
                    "rivers then carry to the sea.",
                    "Rivers carry minerals dissolved from rocks to the sea.",
                ),
                _doc(
                    "Water cycle",
                    "Water leaves the sea by evaporation, but the dissolved salts stay behind, "
                    "so over time they build up.",
                    "Evaporation leaves the salts behind in the sea.",
                ),
                _doc(
                    "Hydrothermal vents",
                    "Hot springs on the sea floor add minerals from inside the Earth's crust.",
                    "Vents on the sea floor add minerals.",
                ),
                _doc(
                    "Sea salt",
                    "Sea salt is made by letting seawater evaporate in shallow pools.",
                    _IRRELEVANT,
                ),
                _doc(
                    "Fresh water",
                    "Lakes with an outflowing river stay fresh because the water keeps moving on.",
                    "Lakes with an outflow stay fresh.",
                ),
            ],
            "answer": [
                (
                    "Rain slowly dissolves minerals from rocks, and rivers carry them to the sea",
                    [1],
                    "rivers minerals rocks",
                ),
                (
                    "Water leaves the sea by evaporation but the salts stay, so they build up "
                    "over time",
                    [2, 5],
                    "evaporation salts stay",
                ),
                (
                    "Hot springs on the sea floor add more minerals",
                    [3],
                    "hydrothermal vents minerals",
                ),
            ],
        },
    ],
}


def _cite(ids: list[int]) -> str:
    return "".join(f"[{i}]" for i in ids)


def _answer(dataset: str, parts: list[tuple[str, list[int], str]], variant: str) -> str | list:
    is_list = dataset == "qampari"
    if variant == "closedbook":
        if is_list:
            return ", ".join(p for p, _, _ in parts) + "."
        return " ".join(f"{p}." for p, _, _ in parts)
    if variant.startswith("interact"):
        turns = []
        for part, ids, words in parts:
            turns.append(
                f"Check: Document {_cite(ids)}"
                if variant == "interact_doc_id"
                else f"Search: {words}"
            )
            turns.append(f"Output: {part} {_cite(ids)}" + ("," if is_list else "."))
        return [*turns, "End"]
    if is_list:
        return ", ".join(f"{p} {_cite(ids)}" for p, ids, _ in parts) + "."
    return " ".join(f"{p} {_cite(ids)}." for p, ids, _ in parts)


def prompt_file(dataset: str, variant: str) -> dict[str, Any]:
    """One prompt file's contents, with the fields and layout of ALCE's ``<dataset>_<variant>``.

    As in ALCE, only the summary/extraction and interactive variants carry documents'
    ``summary`` and ``extraction``.
    """
    shorter = variant in ("sum_or_ext", "interact_doc_id", "interact_search")
    demos = []
    for demo in DEMOS[dataset]:
        docs = [d if shorter else {"title": d["title"], "text": d["text"]} for d in demo["docs"]]
        demos.append(
            {
                "question": demo["question"],
                "answer": _answer(dataset, demo["answer"], variant),
                "docs": [dict(d) for d in docs],
            }
        )
    style = "list" if dataset == "qampari" else "prose"
    return {
        "instruction": INSTRUCTIONS[style][variant],
        "demo_sep": DEMO_SEP,
        "demo_prompt": CLOSEDBOOK_DEMO_PROMPT if variant == "closedbook" else DEMO_PROMPT,
        "doc_prompt": DOC_PROMPT,
        "demos": demos,
    }


def write_prompt_files(dest: Path) -> Path:
    """Write every ``<dataset>_<variant>.json`` into ``dest``; return ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for dataset in DATASETS:
        for variant in VARIANTS:
            text = json.dumps(prompt_file(dataset, variant), indent=1, ensure_ascii=False)
            (dest / f"{dataset}_{variant}.json").write_text(text + "\n", encoding="utf-8")
    return dest


def prompt_texts() -> list[str]:
    """The words of every prompt file (a tokenizer corpus for the tiny test models)."""
    return [json.dumps(prompt_file(d, v), ensure_ascii=False) for d in DATASETS for v in VARIANTS]
