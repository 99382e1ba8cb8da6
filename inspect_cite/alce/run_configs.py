"""ALCE's run configurations: the paper's 78 ``configs/*.yaml``, pinned, verified and read.

Each file sets some of run.py's options (``prompt_file``, ``eval_file``, ``shot``, ``ndoc``,
``model``, ``use_shorter``, ``interactive``...). run.py reads a file with
``parser.set_defaults(**yaml.safe_load(f))``: the file's values replace the option defaults, a
command-line flag replaces a file value, and an option the file does not set keeps run.py's
default. :func:`load_alce_config` reads a file the same way and checks each value against
run.py's option (name and type), so a misspelt key or a wrong type is refused with one line
instead of being ignored, as run.py would ignore it; :func:`config_settings` turns the options
into the ALCE tasks' parameters:

An ALCE run configuration as task parameters: what ``-T config=<name>`` sets.

run.py's options map onto the task's parameters one by one (``docs/alce.md`` has the table):
``prompt_file`` chooses the prompt variant (or a local file), ``eval_file`` the pinned data
file (retriever, oracle) or a local one, ``interactive``/``interactive_query`` the strategy
(``interact`` for ``doc_id``, ``inlinesearch`` for ``search``), ``use_shorter`` SUMM or
SNIPPET outside the interactive modes, ``openai_api`` the chat framing (the open models ran
on raw prompts: ``chat=false``), ``retriever`` the dense retrieval model, and ``temperature``,
``top_p``, ``max_new_tokens`` the generate config. An option the file does not set takes
run.py's default, which can differ from the task's (run.py's INLINESEARCH neither searches all
documents nor forces citations unless told to). A value the task cannot run as run.py would is
refused with one line naming the option, never dropped.

The files are fetched from princeton-nlp/ALCE at the commit the prompt files are pinned to
and checked against SHA-256 sums, never copied into this project; ``INSPECT_CITE_ALCE_CONFIG_DIR``
names a folder of ``<name>.yaml`` files to read instead (the log then records each file's path
and hash instead of ALCE's commit).
"""

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import yaml

from inspect_cite.alce.data import EVAL_FILES
from inspect_cite.alce.prompts import (
    ALCE_PROMPT_COMMIT,
    AlceDatasetName,
    PinnedAlceFiles,
    PromptVariant,
)
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.hub_files import file_provenance

ALCE_CONFIG_URL = "https://raw.githubusercontent.com/{repo}/{commit}/configs/{name}.yaml"
CONFIG_DIR_ENV = "INSPECT_CITE_ALCE_CONFIG_DIR"

RUN_PY_OPTIONS: dict[str, tuple[type, Any]] = {
    "prompt_file": (str, None),
    "eval_file": (str, None),
    "quick_test": (int, None),
    "ndoc": (int, None),
    "shot": (int, None),
    "seed": (int, 42),
    "no_doc_in_demo": (bool, False),
    "fewer_doc_in_demo": (bool, False),
    "ndoc_in_demo": (int, None),
    "dataset_name": (str, None),
    "tag": (str, None),
    "model": (str, None),
    "openai_api": (bool, False),
    "azure": (bool, False),
    "temperature": (float, 0.5),
    "top_p": (float, 1.0),
    "max_new_tokens": (int, 300),
    "max_length": (int, 2048),
    "num_samples": (int, 1),
    "use_shorter": (str, None),
    "interactive": (bool, False),
    "interactive_query": (str, None),
    "retriever": (str, None),
    "retriever_device": (str, "cuda"),
    "retrieve_in_all_docs": (bool, False),
    "max_turn": (int, 10),
    "max_doc_show": (int, 3),
    "force_cite_show": (bool, False),
}
"""run.py's options (its ``argparse`` arguments but ``--config``): type and default."""

# SHA-256 of configs/<name>.yaml at ALCE_PROMPT_COMMIT.
CONFIG_SHA256: dict[str, str] = {
    "asqa_alpaca-7b_shot1_ndoc3_gtr_default": (
        "89e5f7073c93a40b7cb249894f5d1dd8d60cd87f59ed95d8cb036817ab8b30cb"
    ),
    "asqa_alpaca-7b_shot2_ndoc3_gtr_light_inst": (
        "58b05a5e6df37b4f4a92b61803d8947ff1726cd333cfa4f9bd56474d629a9d3b"
    ),
    "asqa_gpt4_shot2_ndoc10_gtr_default": (
        "5313e86fe9d8329a50a651da8c31c4251a058f8b805e7cde1851ef541f6de641"
    ),
    "asqa_gpt4_shot2_ndoc20_gtr_default": (
        "0d2a0ed450bb096e06f0b7395b891cd12345a89e43cf5d0352ecaa3f556e95ae"
    ),
    "asqa_gpt4_shot2_ndoc5_gtr_default": (
        "c4f8b17cbbae305ef19aaac9b2603fb698e48ae2cee21efbab3f00239e478ea2"
    ),
    "asqa_llama-13b_shot2_ndoc10_gtr_extraction": (
        "43769c7e57b08ab8e46abe4a59b3db05fbda7ca85b044c103dc906a94de96577"
    ),
    "asqa_llama-13b_shot2_ndoc10_gtr_summary": (
        "c7218dea994e666fedc8c50bb50ab146a3e0930092d55da3ef17803047ac3a97"
    ),
    "asqa_llama-13b_shot2_ndoc3_gtr_light_inst": (
        "3da2fcaaf2502f4ea429fb6faa3d53f67d2d12003704819035e1d8a5b2d4d8b8"
    ),
    "asqa_llama-13b_shot2_ndoc3_gtr_oracle_light_inst": (
        "83f278527c1c82ca9d9ee022a0274dc428744bb41992682232932a5476548989"
    ),
    "asqa_llama-30b_shot2_ndoc3_gtr_light_inst": (
        "71645ecbdefdb5e79fed79afaacbd9a29f249d8974e60893d323c329826361e2"
    ),
    "asqa_llama-7b_shot1_ndoc3_gtr_default": (
        "4e311663db1a46f6469bb8cdb5d6f075f83e48b5f3270e2c376d3e0a191296e7"
    ),
    "asqa_llama-7b_shot2_ndoc3_gtr_light_inst": (
        "2a77f03e5ba10f7e3021920b7396f938484b98fe0982eb4c384aacd21fca0fad"
    ),
    "asqa_llama2_shot2_ndoc5_gtr_default": (
        "b623f89edce4eee1fb7169298a27b165290c2f1587f2f86d8f30ba66a41263f5"
    ),
    "asqa_opt-6.7b_shot1_ndoc3_gtr_default": (
        "f48796026efd601a43cda277ac6e163de6734adac2a9b6c5167f210d41ed16f3"
    ),
    "asqa_turbo_shot2_closedbook": (
        "f7efb15f94258ecd25b755e1b04cbdaf7087f9277624546e52ffed8a2ee2172c"
    ),
    "asqa_turbo_shot2_ndoc0_gtr_interact_search_ret_all_forcecite": (
        "781309c4fd195ef074b66f4f0e0e7f9e0a879eeb27cf241c9368cf6969e2a28d"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_default": (
        "225cbc929b36c75aa4b35624f52c783b7372141bb0f1cbf8955f667f090ee664"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_extraction": (
        "0044b03d92c7c04cce23bb768ec59ca323db850ac3882773c1d32007817fb328"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_interact_doc_id_extraction": (
        "cce3c2b526e5e0b545d468f5bb354fcec7dd88f146be4b88f28ebb64a1b673aa"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_interact_doc_id_summary": (
        "e4293de965c031bbb3aca763db3ebcc19b7f016d7b94d6a3f5f304265d2094d9"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_interact_search_summary": (
        "9586675b053e8ccee478ffdd4013d389023ee4c455aa9c0e93e7794db620d823"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_interact_search_summary_ret_all": (
        "ac7cb1c86ca8846de9f7bfd945a64117c45c5410a38477150d0e72a21623c361"
    ),
    "asqa_turbo_shot2_ndoc10_gtr_summary": (
        "5e9777fed0f755514cc174df5f279e4579a6d3765ff53a6eb1f9d8f513413275"
    ),
    "asqa_turbo_shot2_ndoc3_gtr_default": (
        "99bed7583dd3ea81f0f0cdaa7cc2d063a50b0983d2e8bec1942a5546bea19e69"
    ),
    "asqa_turbo_shot2_ndoc5_dpr_default": (
        "177a35c1fe933b3d7772e7a2104b2f6b2dc2a01c5e8a69fae23750076b9be574"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_default": (
        "82a875f09f4421cd856505ffc6bb1e0266caf55412dda8d02503f437bcc37dcb"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_extraction": (
        "03021e8fee5f06a9e6d3844d795ac118c09715da6b8da4e86caf148280be08b0"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_interact_doc_id_extraction": (
        "f84e3fec5511405b1656b7045dde9a80af8d2c2fa8ac16a34a787f81f9708519"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_interact_doc_id_summary": (
        "ac9eff22be6e9e56a4fb7de2131b1fcd8b49530b66da2d76f4a351af13e13153"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_interact_search_extraction": (
        "c91176c8eb8e433141b1239dd48a00af5db55045d52a602fbc57df87fc999f5a"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_interact_search_summary": (
        "65ced10653fe365f549532aa36fea07c13ef60776ac79d30e7f1f15ee1fd9cc8"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_light_inst": (
        "362f71bdf399ddf6862b9795798120bbfb26da9745cb3690b30efd9573b2f116"
    ),
    "asqa_turbo_shot2_ndoc5_gtr_summary": (
        "0490bc48b6f6dae62abf509473249b333f80780793bfca477ab929f7c24bbf77"
    ),
    "asqa_turbo_shot2_ndoc5_oracle_default": (
        "9127c75b14f13c189859670183d996f4182b9e7a4f6c33bbba981db6409b361f"
    ),
    "eli5_gpt4_shot2_ndoc10_bm25_default": (
        "0b94e0c1eb7d4489f71bf51cc2d6eed37bba1f2ae601b4c1370159f0c2b21d6e"
    ),
    "eli5_gpt4_shot2_ndoc20_bm25_default": (
        "915994363e0a27c79d4f135acd390e4d20b6bad2f182600d9359bc4d10bb80fb"
    ),
    "eli5_gpt4_shot2_ndoc5_bm25_default": (
        "541308daf3752c5bc28e2d5b22f39367f2b5e4d4a779eb3caeb47c73cb2149f3"
    ),
    "eli5_llama-13b_shot2_ndoc10_bm25_extraction": (
        "df1634f6cc3b2955a36500f7df66addf99cf901f1dc0a0cb1cd236e941b996ac"
    ),
    "eli5_llama-13b_shot2_ndoc10_bm25_summary": (
        "b73313de8a37edfaf4108b5d312c3d88dd476a0bcd41e52ccf14c4a4359e3ef4"
    ),
    "eli5_llama-13b_shot2_ndoc3_bm25_light_inst": (
        "9a4a104af6fff065196f1bd9ba59b08ca4e076cd4a0eb315b6332fd8dd3721cb"
    ),
    "eli5_llama-13b_shot2_ndoc3_bm25_oracle_light_inst": (
        "cb5c0e0d8e1239ce83bd549c8b74be8725b19ac64466b0688c4137b9e986ac37"
    ),
    "eli5_llama2_shot2_ndoc5_bm25_default": (
        "7313d34e00b04d45207c86224ea0833f144ddf76ed6ef2e4c48db36138cc57c0"
    ),
    "eli5_turbo_shot2_closedbook": (
        "0cf7edee778517030966b589a8036e4a20188759246c3cc2d73c48533ed6424f"
    ),
    "eli5_turbo_shot2_ndoc0_bm25_interact_search_ret_all_forcecite": (
        "5f26eedb02fc4c6d135bbb1e1d21ddc32eda3f4df3c00ed9bda3905dc386db28"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_default": (
        "1da0ef8027a7d13c0e5a683a617e979828fcd21f79d8299e63398c369c34445e"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_extraction": (
        "3dbd3d22be87f539992fc57467d8b2900ab7fb496552094fccd586af3483c63e"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_interact_doc_id_extraction": (
        "506323721e1509bd60175ead15e53af7fdcbb06651bea280d876fbea4675cbf3"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_interact_doc_id_summary": (
        "23df91905fa02213867eb081b3d4eebf5fd68a7315af4bf8d92542d8fbda8feb"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_interact_search_extraction": (
        "0b880f4f4115dc4ae5a21b70c31d454f3a8c3605cd994791f621711af6b2b239"
    ),
    "eli5_turbo_shot2_ndoc10_bm25_summary": (
        "8a5a9c3321f3477efb59c28c42d56d826761ad220c137eb51a9e2f2547e0eff8"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_default": (
        "3f8fc7c7fa42c572cbe34f87fccd4c14ae3c0e0d120d5f428e801b80e8dc6aa4"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_extraction": (
        "789480117e80b8b7e6bd6e7d74e45bc7ddaa228ca1ff6546972d5682e0694df5"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_interact_doc_id_extraction": (
        "57dcd829f80b087649ce314dbd9a3673c0bb9bbc053e71ba470fbe26dc82b50e"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_interact_doc_id_summary": (
        "638cf4565b8dbef94e8b48039a849ea24c7cfc9e464383edb14b8368e12513d5"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_interact_search_extraction": (
        "b4aa621293fd9989497728ce064f55222f1c1e2cd102d60341aa548c21c88278"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_interact_search_summary": (
        "968a4f3a77926b2f5d792e84a90ea4ba8f4372bb2fea76cd4f807750c6213894"
    ),
    "eli5_turbo_shot2_ndoc5_bm25_summary": (
        "e8fd23294507961bef9ee0aa615f249c5dfe17dc1a7fd5cd3ca4e9ef9f57178d"
    ),
    "eli5_turbo_shot2_ndoc5_oracle_default": (
        "c3ca1a118a769c0ef200c46dffdd10bd88607904b1a663ed1fe663021b1db930"
    ),
    "qampari_gpt4_shot2_ndoc10_gtr_default": (
        "e5ea88d2434485c42877bb3e9f4f9dd98e2881dbdacbf8c1ee78390fa363a4f0"
    ),
    "qampari_gpt4_shot2_ndoc20_gtr_default": (
        "55dfa38ded339eaf46025e749afc658ab6c5be6b375b7753951c0dba5a47a5dd"
    ),
    "qampari_gpt4_shot2_ndoc5_gtr_default": (
        "7001ff8bc85f42dc62ed4c5993afcc1515b2273040bcc24391f9d95b71e6a812"
    ),
    "qampari_llama-13b_shot2_ndoc10_gtr_extraction": (
        "e3ed460ded1a7290b95b81057dbbc810f36ed175c758e5e77bc844cabd48b1b3"
    ),
    "qampari_llama-13b_shot2_ndoc10_gtr_summary": (
        "502f4011ab752450d6c2cb6c40c8bbf56f9d9bed683a08c775eff41e6e5af6f7"
    ),
    "qampari_llama-13b_shot2_ndoc3_gtr_light_inst": (
        "dfc8cf0fbcef0c52dd21d1a495e334eb6eead81b85c0178efaf9ceaf778a17ef"
    ),
    "qampari_llama-13b_shot2_ndoc3_gtr_oracle_light_inst": (
        "63f430413a1e0d72087f8690efdd4b0663be803cd55d0467b15215c85abd9bdb"
    ),
    "qampari_llama2_shot2_ndoc5_gtr_default": (
        "38acd2114497e9bcab997a61ceb374768dcd57eb99a47faeac28e3fd36f7ca9f"
    ),
    "qampari_turbo_shot2_closedbook": (
        "f0890e678ba683c95ee211e9d75acebe979b68464e59f0fe2562716df97fbfa5"
    ),
    "qampari_turbo_shot2_ndoc0_gtr_interact_search_ret_all_forcecite": (
        "91cc63498f60e66aaaf1d54730ad7e44155b8e4efa64575367fe5f697a788d0b"
    ),
    "qampari_turbo_shot2_ndoc10_gtr_extraction": (
        "100ad1b7cf658e92bbc8c2960e7dd97ec37e22cd93d482eae20323bd88ebd8f8"
    ),
    "qampari_turbo_shot2_ndoc10_gtr_interact_doc_id_extraction": (
        "581f08a1a3227e723111a153643ec99c483595892f1f174555cde1f838748160"
    ),
    "qampari_turbo_shot2_ndoc10_gtr_interact_doc_id_summary": (
        "6ce671f588be043dae05837b10e94b75399b77c7774d45d4ba6e7ee74d16fd68"
    ),
    "qampari_turbo_shot2_ndoc10_gtr_summary": (
        "4dc8bb9f267e34bccec2065c82c0734c1737033f57b12212bf5c5a420ef2aa04"
    ),
    "qampari_turbo_shot2_ndoc5_gtr_default": (
        "681a3a3d20a2051228d939b24f3ec7289d0f8cef69771493eab0f5de59893c36"
    ),
    "qampari_turbo_shot2_ndoc5_gtr_extraction": (
        "d1c661c6fc2507e92f12a77525a697fea58f2a85116f07e8f7329bc6ad328222"
    ),
    "qampari_turbo_shot2_ndoc5_gtr_interact_doc_id_extraction": (
        "a72e0da3197b84bb05c6d5e4d46cdfc6ed81622b2154d03d7c9b7f2ebe8e79bd"
    ),
    "qampari_turbo_shot2_ndoc5_gtr_interact_doc_id_summary": (
        "d5c7c2e24bd703554d6223d6afdaa58998efe8ad78e2c94915289312193a34fa"
    ),
    "qampari_turbo_shot2_ndoc5_gtr_summary": (
        "02170c1953460de4d4c10d8a2a53f8184ff641395aa27b3a4b57939b6c2d1dc4"
    ),
    "qampari_turbo_shot2_ndoc5_oracle_default": (
        "73b839a65fe452a4ffaba470d7d86ef055decda7162257e499ff166278a2d331"
    ),
}


class AlceConfigError(PreflightError, ValueError):
    """An ALCE config is unknown, unobtainable, or sets an option run.py does not have."""


CONFIG_FILES = PinnedAlceFiles("configs", ".yaml", "ALCE config", "-T config", AlceConfigError)


@dataclass(frozen=True)
class AlceRunConfig:
    """An ALCE run configuration as run.py reads it.

    Attributes:
        name: The config's name (the file name without ``.yaml``).
        options: Every run.py option: the file's value where it sets one, else run.py's default.
        given: The options the file sets.
        source: Where the file came from, for the log: ALCE's ``commit``, ``file`` and
            ``sha256``, or a local file's ``path`` and ``sha256``.

    """

    name: str
    options: dict[str, Any]
    given: frozenset[str]
    source: dict[str, Any]

    def where(self) -> str:
        """How the config is named in messages (``-T config=<name>``)."""
        return f"-T config={self.source.get('path', self.name)}"


def is_config_path(config: str) -> bool:
    """Whether ``-T config`` names a file rather than one of ALCE's configs."""
    return config.endswith((".yaml", ".yml")) or os.sep in config or "/" in config


def official_config_path(name: str) -> Path:
    """The cached ALCE config ``name``, downloaded and verified if needed.

    Raises:
        AlceConfigError: When ``name`` is not one of ALCE's configs, or the file is not
            cached and cannot be downloaded.

    """
    if name not in CONFIG_SHA256:
        close = difflib.get_close_matches(name, CONFIG_SHA256, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise AlceConfigError(
            f"-T config={name}: not one of ALCE's {len(CONFIG_SHA256)} configs (docs/alce.md "
            f"lists them) nor a .yaml file{hint}"
        )
    return CONFIG_FILES.fetch(ALCE_CONFIG_URL, name, CONFIG_SHA256[name])


def config_file(config: str) -> tuple[str, Path, dict[str, Any] | None]:
    """The file ``-T config`` names: its name, path, and ALCE's provenance when it is ALCE's.

    A path is taken as given; a name is read from ``INSPECT_CITE_ALCE_CONFIG_DIR`` when that
    is set, else from ALCE's pinned files (:func:`official_config_path`).
    """
    if is_config_path(config):
        return Path(config).stem, Path(config), None
    folder = os.environ.get(CONFIG_DIR_ENV, "")
    if folder:
        path = Path(folder, f"{config}.yaml")
        if not path.is_file():
            raise AlceConfigError(
                f"-T config={config}: {path} does not exist ({CONFIG_DIR_ENV}={folder}); add "
                f"it, or unset {CONFIG_DIR_ENV} to use ALCE's configs"
            )
        return config, path, None
    path = official_config_path(config)
    return config, path, {"commit": ALCE_PROMPT_COMMIT, "file": f"configs/{config}.yaml"}


def _type_problem(value: Any, kind: type, default: Any) -> str | None:
    if value is None:
        return None if default is None else "null"
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if ok:
        return None
    return f"{value!r}"


_KIND = {str: "text", int: "an integer", float: "a number", bool: "true or false"}


def load_alce_config(config: str) -> AlceRunConfig:
    """Read an ALCE config (a name or a path) as run.py reads it.

    Raises:
        AlceConfigError: Naming the file and the option, for a file that cannot be had or
            read, is not a YAML mapping, sets an option run.py does not have, or a value of
            the wrong type (a text ``"false"`` for a flag, which run.py would read as true).

    """
    name, path, official = config_file(config)
    where = f"-T config={config}"
    if not path.is_file():
        state = "does not exist" if not path.exists() else "is not a file"
        raise AlceConfigError(f"{where}: {path} {state}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        reason = str(e).replace("\n", " ")
        raise AlceConfigError(f"{where}: {path} cannot be read as YAML ({reason})") from e
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise AlceConfigError(f"{where}: {path} must hold a mapping of run.py options")
    options = {key: default for key, (_, default) in RUN_PY_OPTIONS.items()}
    for key, value in data.items():
        if key not in RUN_PY_OPTIONS:
            close = difflib.get_close_matches(str(key), RUN_PY_OPTIONS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise AlceConfigError(f"{where}: {path}: {key!r} is not a run.py option{hint}")
        kind, default = RUN_PY_OPTIONS[key]
        problem = _type_problem(value, kind, default)
        if problem is not None:
            raise AlceConfigError(f"{where}: {path}: {key} must be {_KIND[kind]}, got {problem}")
        options[key] = value
    if official is None:
        source = file_provenance(path)
    else:
        source = {**official, "sha256": CONFIG_SHA256[name]}
    return AlceRunConfig(name=name, options=options, given=frozenset(data), source=source)


# run.py loads `sentence-transformers/<retriever>` when "gtr" is in the name.
_DENSE_PREFIX = "sentence-transformers/"
_PROMPT = re.compile(r"^(?:\./)?prompts/(asqa|qampari|eli5)_([a-z_]+)\.json$")
_EVAL = re.compile(
    r"^(?:\./)?data/((asqa|qampari|eli5)_eval_(gtr|dpr|bm25)_top100(_reranked_oracle)?\.json)$"
)
# The prompt variant each run.py mode reads (None: the variant the file names).
_MODE_VARIANT: dict[str, PromptVariant] = {
    "interact": "interact_doc_id",
    "inlinesearch": "interact_search",
    "summ": "sum_or_ext",
    "snippet": "sum_or_ext",
}
_VANILLA_VARIANTS = ("default", "light_inst", "closedbook")

GENERATE_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "max_new_tokens": "max_tokens"}
"""run.py's decoding options and the GenerateConfig field each sets."""


@dataclass(frozen=True)
class ConfigSettings:
    """What an ALCE config sets, in the task's terms.

    Attributes:
        parameters: Task parameters and their values as run.py reads the config.
        generate: GenerateConfig fields (``temperature``, ``top_p``, ``max_tokens``).
        record: What the log records about the config: its name, where it came from, and
            the options that name the run (``model``, ``tag``, ``eval_file``,
            ``prompt_file``).

    """

    parameters: dict[str, Any]
    generate: dict[str, Any]
    record: dict[str, Any] = field(default_factory=dict)


def _fail(config: AlceRunConfig, message: str) -> AlceConfigError:
    return AlceConfigError(f"{config.where()}: {message}")


def _strategy(config: AlceRunConfig, variant: PromptVariant | None) -> str:
    """run.py's generation mode for a config, as a task strategy."""
    opts = config.options
    if opts["interactive"]:
        query = opts["interactive_query"]
        if query not in ("doc_id", "search"):
            raise _fail(config, f"interactive_query must be doc_id or search, got {query!r}")
        return "interact" if query == "doc_id" else "inlinesearch"
    if opts["interactive_query"] is not None:
        raise _fail(config, "interactive_query has no effect without interactive: true")
    if opts["use_shorter"] is not None:
        return "summ" if opts["use_shorter"] == "summary" else "snippet"
    if variant == "closedbook" and opts["ndoc"] == 0:
        return "closedbook"
    return "vanilla"


def _prompt(config: AlceRunConfig, dataset: AlceDatasetName) -> tuple[PromptVariant | None, str]:
    """The official prompt variant ``prompt_file`` names, or None and the local path."""
    value = config.options["prompt_file"]
    if value is None:
        raise _fail(config, "sets no prompt_file (run.py needs one)")
    match = _PROMPT.match(value)
    if match is None:
        return None, value
    if match.group(1) != dataset:
        raise _fail(config, f"prompt_file {value} is a {match.group(1)} prompt, not {dataset}'s")
    if match.group(2) not in get_args(PromptVariant):
        return None, value
    return match.group(2), value  # type: ignore[return-value]


def _data(config: AlceRunConfig, dataset: AlceDatasetName) -> dict[str, Any]:
    """The task's data parameters for ``eval_file``: a pinned file, or a local path."""
    value = config.options["eval_file"]
    if value is None:
        raise _fail(config, "sets no eval_file (run.py needs one)")
    match = _EVAL.match(value)
    if match is None or match.group(1) not in EVAL_FILES:
        return {"dataset_path": value}
    if match.group(2) != dataset:
        raise _fail(config, f"eval_file {value} holds {match.group(2)} items, not {dataset}'s")
    return {
        "dataset_path": None,
        "retriever": match.group(3),
        "oracle": match.group(4) is not None,
    }


def _demos(config: AlceRunConfig) -> dict[str, Any]:
    """``no_doc_in_demo`` and ``fewer_doc_in_demo``/``ndoc_in_demo`` as run.py combines them."""
    opts = config.options
    if opts["no_doc_in_demo"] and opts["fewer_doc_in_demo"]:
        raise _fail(config, "no_doc_in_demo and fewer_doc_in_demo: run.py uses only the first")
    if opts["fewer_doc_in_demo"] and opts["ndoc_in_demo"] is None:
        raise _fail(config, "fewer_doc_in_demo needs ndoc_in_demo (run.py asserts it)")
    if not opts["fewer_doc_in_demo"] and opts["ndoc_in_demo"] is not None:
        raise _fail(config, "ndoc_in_demo has no effect without fewer_doc_in_demo: true")
    return {"no_doc_in_demo": opts["no_doc_in_demo"], "ndoc_in_demo": opts["ndoc_in_demo"]}


def _unsupported(config: AlceRunConfig) -> None:
    """Refuse the run.py options the tasks have no way to honour."""
    opts = config.options
    if opts["azure"]:
        raise _fail(config, "azure selects run.py's Azure client: choose the model with --model")
    if opts["num_samples"] != 1:
        raise _fail(
            config,
            f"num_samples={opts['num_samples']}: run.py keeps several answers per question in "
            "one output; run Inspect's --epochs instead (each answer is scored)",
        )
    for key, solver in (("max_turn", "alce_interact"), ("max_doc_show", "alce_interact")):
        if opts[key] != RUN_PY_OPTIONS[key][1]:
            raise _fail(
                config,
                f"{key}={opts[key]} is not a task parameter: run the solver "
                f"(--solver solvers/{solver} -S {key}={opts[key]})",
            )
    if opts["retriever_device"] != RUN_PY_OPTIONS["retriever_device"][1]:
        raise _fail(config, "retriever_device: the retriever runs on CUDA when there is one")


def config_settings(config: AlceRunConfig, dataset: AlceDatasetName) -> ConfigSettings:
    """The task parameters and generate config an ALCE config sets for ``dataset``.

    Raises:
        AlceConfigError: Naming the config and the option, for a config of another dataset,
            a missing ``prompt_file``/``eval_file``/``shot``/``ndoc``, or a value the task
            cannot run as run.py would.

    """
    opts = config.options
    if opts["dataset_name"] not in (None, dataset):
        raise _fail(
            config,
            f"dataset_name={opts['dataset_name']}: run it with alce_tasks/{opts['dataset_name']}",
        )
    for key in ("shot", "ndoc"):
        if opts[key] is None:
            raise _fail(config, f"sets no {key} (run.py needs one)")
    _unsupported(config)
    if opts["use_shorter"] not in (None, "summary", "extraction"):
        raise _fail(
            config, f"use_shorter must be summary or extraction, got {opts['use_shorter']!r}"
        )
    variant, prompt_path = _prompt(config, dataset)
    strategy = _strategy(config, variant)
    if strategy == "interact" and opts["use_shorter"] is None:
        raise _fail(
            config,
            "interactive_query: doc_id without use_shorter shows full documents up front; the "
            "task's interact shows summaries or extractions (set use_shorter)",
        )
    parameters: dict[str, Any] = {
        **_data(config, dataset),
        "strategy": strategy,
        "ndoc": opts["ndoc"],
        "shot": opts["shot"],
        "seed": opts["seed"],
        "use_shorter": opts["use_shorter"],
        **_demos(config),
        "quick_test": opts["quick_test"],
        # The chat API got ALCE's system message; every other model got the raw prompt.
        "chat": opts["openai_api"],
        "prompt": "default",
        "prompt_file": None,
    }
    own = _MODE_VARIANT.get(strategy, "closedbook" if strategy == "closedbook" else None)
    if variant is None:
        parameters["prompt_file"] = prompt_path
    elif own is not None and variant != own:
        raise _fail(config, f"{strategy} reads the {own} prompt, not {prompt_path}")
    elif own is None:
        if variant not in _VANILLA_VARIANTS:
            raise _fail(config, f"{prompt_path} is the prompt of a mode this config does not set")
        parameters["prompt"] = variant
    if strategy in ("interact", "inlinesearch"):
        parameters["force_cite_show"] = opts["force_cite_show"]
        parameters["retrieve_in_all_docs"] = opts["retrieve_in_all_docs"]
    else:
        for key in ("force_cite_show", "retrieve_in_all_docs"):
            if opts[key]:
                raise _fail(config, f"{key} applies to the interactive modes only")
    retriever = opts["retriever"]
    if strategy == "inlinesearch":
        if retriever is None or "gtr" not in retriever:
            raise _fail(
                config,
                f"retriever={retriever}: interactive search here uses a dense retriever "
                "(run.py's gtr-t5-large); tfidf is not available",
            )
        parameters["retrieval_model"] = _DENSE_PREFIX + retriever
    elif retriever is not None:
        raise _fail(config, "retriever applies to interactive_query: search only")
    if "max_length" in config.given:
        if opts["openai_api"]:
            raise _fail(config, "max_length caps raw-prompt runs only (the open models')")
        parameters["max_length"] = opts["max_length"]
    generate = {field: opts[option] for option, field in GENERATE_OPTIONS.items()}
    record = {
        "name": config.name,
        **config.source,
        **{key: opts[key] for key in ("model", "tag", "eval_file", "prompt_file")},
    }
    return ConfigSettings(parameters=parameters, generate=generate, record=record)


CONFIG_PARAMETERS = (
    "retriever",
    "oracle",
    "dataset_path",
    "strategy",
    "ndoc",
    "shot",
    "seed",
    "prompt",
    "prompt_file",
    "use_shorter",
    "no_doc_in_demo",
    "ndoc_in_demo",
    "quick_test",
    "chat",
    "max_length",
    "retrieve_in_all_docs",
    "force_cite_show",
    "retrieval_model",
)
"""The task parameters a config can set (:func:`config_settings`), in the task's unpacking order."""

# The generate flags that override a config's decoding options, by GenerateConfig field.
_GENERATE_FLAGS = {"temperature": "--temperature", "top_p": "--top-p", "max_tokens": "--max-tokens"}


def apply_config(
    settings: ConfigSettings, given: dict[str, Any], explicit: set[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task's arguments with the config's values, and the explicit ones that override it.

    Args:
        settings: What the config sets.
        given: Every task argument (defaults included).
        explicit: The arguments the user gave; each overrides the config's value.

    Returns:
        The arguments to run with (``config`` becomes the config's name), and the overrides:
        ``{name: {"config": value, "given": value}}`` for each explicit argument that differs
        from the config's value.

    """
    values = {**given, "config": settings.record["name"]}
    overrides: dict[str, Any] = {}
    for name, value in settings.parameters.items():
        if name not in explicit:
            values[name] = value
        elif given[name] != value:
            overrides[name] = {"config": value, "given": given[name]}
    return values, overrides


def generate_overrides(settings: ConfigSettings, eval_config: Any) -> dict[str, Any]:
    """The generate flags (``--temperature``...) that override the config's decoding options.

    Args:
        settings: What the config sets.
        eval_config: The eval's generate config (``inspect_cite.checks.run.eval_generate_config``),
            or None when the task is built outside an eval (nothing can then be known).

    """
    if eval_config is None:
        return {}
    overrides = {}
    for field_name, value in settings.generate.items():
        flag_value = getattr(eval_config, field_name, None)
        if flag_value is not None and flag_value != value:
            overrides[field_name] = {
                "config": value,
                "given": flag_value,
                "flag": _GENERATE_FLAGS[field_name],
            }
    return overrides
