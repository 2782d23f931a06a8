"""The partial-JSON parser against third-party conformance data, read in place.

The data lives outside the project (``tests/support/corpus.py`` says where) and is never
copied in. Each suite's file states how to read its
expectations (``peer_semantics``) and lists every known, deliberate disagreement with
callstream (``expected_difference``, with the result callstream gives); any other
disagreement fails here.

- JSONTestSuite ``test_parsing``: every file's verdict equals ``json.loads`` (default,
  ``strict=False`` and ``allow_nan=True`` modes), whole, char by char and in random
  splits; the changes rebuild the value; every prefix of an accepted file gives an
  honest preview that extends the previous one, and ``parse_partial_json`` agrees.
- jiter's documents: every prefix gives a preview of the document's kind, consistent
  with the final value; the final value is ``json.loads``'s.
- ``vectors/*.json`` parse suites (Vercel fixJson, partial-json-parser Python and JS,
  LangChain, jiter partial mode, ijson).

- ``pjp_live``: a live differential against the installed partial-json-parser, every
  prefix of its consistency documents with all 512 ``Allow`` values and of every
  JSONTestSuite ``y_`` file with the suite's ``allows``.

Not run here: LangChain's JSON Patch diffs of the streams (``expect_diff``), the live jiter
differential (the ``live:`` entries of ``jiter_partial``), and the tool-call suites (``openai_streams``,
``langchain_tool_chunks``) and the assembler modes of JSONTestSuite, which belong to the
assembler's and the drivers' tests.
"""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import pytest

from callstream import (
    MISSING,
    IncompleteJSONError,
    MalformedJSONError,
    PartialJSONError,
    PartialJSONParser,
    ScalarSet,
    StringExtended,
    ValueStarted,
    parse_partial_json,
)
from callstream._json.parser import DEFAULT_ALLOW
from tests.support.corpus import PEERS

if not (PEERS / "README.md").is_file():
    pytest.skip(
        f"third-party conformance data not found at {PEERS} (see tests/support/corpus.py)",
        allow_module_level=True,
    )

SUITE = PEERS / "jsontestsuite" / "test_parsing"
VECTORS = PEERS / "vectors"


def load_vectors(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def differences(suite: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in suite.get("expected_difference", [])}


# --- comparing values ---------------------------------------------------------------------


def same(a: Any, b: Any, *, loose: bool = False) -> bool:
    """Equal values, with NaN equal to NaN, ints and floats distinct unless ``loose``.

    Iterative: some suite files nest 500 deep.
    """
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is MISSING or y is MISSING:
            if x is not y:
                return False
        elif isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif not _same_scalar(x, y, loose):
            return False
    return True


def _same_scalar(a: Any, b: Any, loose: bool) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not loose and type(a) is not type(b):
            return False
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        return a == b
    return type(a) is type(b) and a == b


def consistent(preview: Any, final: Any) -> bool:
    """Whether ``preview`` could be an honest partial view of ``final``."""
    if preview is MISSING:
        return True
    if isinstance(final, str):
        return isinstance(preview, str) and final.startswith(preview)
    if isinstance(final, dict):
        return isinstance(preview, dict) and all(
            key in final and consistent(value, final[key]) for key, value in preview.items()
        )
    if isinstance(final, list):
        return (
            isinstance(preview, list)
            and len(preview) <= len(final)
            and all(consistent(p, f) for p, f in zip(preview, final))
        )
    return same(preview, final)


def lone_surrogates(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(lone_surrogates(k) or lone_surrogates(v) for k, v in value.items())
    if isinstance(value, list):
        return any(lone_surrogates(v) for v in value)
    return False


def rebuild(changes: list[Any]) -> Any:
    """Apply changes to an empty document (what a UI does), iteratively."""
    root: list[Any] = [MISSING]

    def put(path: tuple[str | int, ...], value: Any) -> None:
        container: Any = root
        key: str | int = 0
        for part in path:
            container = container[key]
            key = part
        if isinstance(container, list) and key == len(container):
            container.append(value)
        else:
            container[key] = value

    def get(path: tuple[str | int, ...]) -> Any:
        node: Any = root[0]
        for part in path:
            node = node[part]
        return node

    for change in changes:
        if isinstance(change, ValueStarted):
            put(change.path, {"object": {}, "array": [], "string": ""}[change.kind])
        elif isinstance(change, StringExtended):
            put(change.path, get(change.path) + change.text)
        elif isinstance(change, ScalarSet):
            put(change.path, change.value)
    return root[0]


def random_splits(text: str, seed: str, count: int = 3) -> list[list[str]]:
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        cuts = sorted(rng.randrange(len(text) + 1) for _ in range(min(len(text), 12)))
        bounds = [0, *cuts, len(text)]
        result.append([text[a:b] for a, b in zip(bounds, bounds[1:])])
    return result


REJECT = "reject"


def verdict(fragments: list[str], **options: Any) -> tuple[Any, list[Any]]:
    parser = PartialJSONParser(**options)
    changes: list[Any] = []
    try:
        for fragment in fragments:
            changes.extend(parser.feed(fragment))
        return parser.close(), changes
    except PartialJSONError:
        return REJECT, changes


# --- JSONTestSuite --------------------------------------------------------------------------

SUITE_FILES = sorted(p.name for p in SUITE.glob("*.json")) if SUITE.is_dir() else []
JTS = load_vectors("jsontestsuite") if (VECTORS / "jsontestsuite.json").is_file() else {}
JTS_DIFF = differences(JTS)

MODES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # mode -> (parser options, json.loads options)
    "python": ({}, {}),
    "python-lax": ({"strict": False}, {"strict": False}),
    "allow-nan": ({"allow_nan": True}, {}),
}


def reference(text: str, **options: Any) -> Any:
    try:
        return json.loads(text, **options)
    except (ValueError, RecursionError):
        return REJECT


@pytest.mark.parametrize("name", SUITE_FILES)
def test_jsontestsuite_verdicts(name: str) -> None:
    raw = (SUITE / name).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # robustness only: only our errors, whatever the split
        text = raw.decode("utf-8", errors="surrogateescape")
        for fragments in [[text], list(text)[:20_000], *random_splits(text, name)]:
            verdict(fragments, allow_nan=True)
        return
    for mode, (options, loads_options) in MODES.items():
        expected = reference(text, **loads_options)
        listed = JTS_DIFF.get(f"{name}#{mode}")
        if listed is not None:
            want = listed["callstream"]
            assert "error" in want, listed
            expected = REJECT
        if name.startswith("y_"):
            assert expected is not REJECT, (name, mode)
        ways = [[text], list(text) if len(text) <= 20_000 else [text], *random_splits(text, name)]
        for fragments in ways:
            got, changes = verdict(fragments, **options)
            if expected is REJECT or got is REJECT:
                assert got is expected, (name, mode, got, expected)
                continue
            assert same(got, expected), (name, mode, got, expected)
            rebuilt = rebuild(changes)
            if rebuilt is MISSING:  # a top-level number is confirmed by close() only
                assert isinstance(got, (int, float)) and not isinstance(got, bool)
            else:
                assert same(rebuilt, got), (name, mode, rebuilt, got)


ACCEPTED = [n for n in SUITE_FILES if n.startswith("y_")]


@pytest.mark.parametrize("name", ACCEPTED)
def test_jsontestsuite_previews_of_every_prefix(name: str) -> None:
    text = (SUITE / name).read_bytes().decode("utf-8")
    final = json.loads(text)
    monotone = f"{name}#prefix-previews" not in JTS_DIFF
    parser = PartialJSONParser()
    previous: Any = MISSING
    for end in range(1, len(text) + 1):
        parser.feed(text[end - 1])
        preview = copy.deepcopy(parser.value)
        assert consistent(preview, final) or not monotone, (name, end, preview)
        if not lone_surrogates(final):
            assert not lone_surrogates(preview), (name, end, preview)
        if monotone:
            assert consistent(previous, preview), (name, end, previous, preview)
        previous = preview
        one_shot = parse_partial_json(text[:end])
        if not same(one_shot, preview):
            # Documented: parse_partial_json takes a top-level number at the very end of
            # its text as complete; the streaming parser waits for what follows.
            assert preview is MISSING and same(one_shot, json.loads(text[:end])), (
                name,
                end,
                one_shot,
                preview,
            )
    assert same(parser.close(), final)


# --- jiter's documents: every prefix ---------------------------------------------------------

JITER = load_vectors("jiter_partial") if (VECTORS / "jiter_partial.json").is_file() else {}
KINDS = {"array": list, "object": dict}


@pytest.mark.parametrize("case", JITER.get("every_prefix", []), ids=lambda c: c["id"])
def test_jiter_every_prefix(case: dict[str, Any]) -> None:
    text = (PEERS / case["file"]).read_text(encoding="utf-8") if "file" in case else case["input"]
    try:
        final: Any = json.loads(text)
    except ValueError:
        final = None  # a prefix-only input
    kind = KINDS[case["kind"]]
    parser = PartialJSONParser(allow=case["allow"])
    previous: Any = MISSING
    for end in range(1, len(text) + 1):
        parser.feed(text[end - 1])
        if not text[:end].strip():
            continue
        preview = copy.deepcopy(parser.value)
        assert isinstance(preview, kind), (case["id"], end, preview)
        assert consistent(previous, preview), (case["id"], end)
        if final is not None:
            assert consistent(preview, final), (case["id"], end)
        assert same(parse_partial_json(text[:end], allow=case["allow"]), preview)
        previous = preview
    if final is not None:
        assert same(parser.close(), final)


@pytest.mark.parametrize(
    "name", [p.name for p in sorted((PEERS / "jiter").glob("*.json"))] or ["(none)"]
)
def test_jiter_documents_in_fragments(name: str) -> None:
    if name == "(none)":  # pragma: no cover
        pytest.skip("no jiter documents")
    text = (PEERS / "jiter" / name).read_text(encoding="utf-8")
    for fragments in [[text], list(text), *random_splits(text, name)]:
        got, changes = verdict(fragments)
        assert same(got, json.loads(text))
        assert same(rebuild(changes), got)


# --- vectors: one-shot parse suites ----------------------------------------------------------


def expected_of(expect: dict[str, Any]) -> Any:
    if expect.get("missing"):
        return MISSING
    if "error" in expect:
        return ("error", expect["error"])
    return json.loads(expect["json"])


def outcome(run: Any) -> Any:
    try:
        return run()
    except IncompleteJSONError:
        return ("error", "incomplete")
    except MalformedJSONError:
        return ("error", "malformed")


def check(got: Any, want: Any, *, loose: bool) -> bool:
    if isinstance(want, tuple) or isinstance(got, tuple):
        return got == want
    return same(got, want, loose=loose)


PARSE_SUITES = ["vercel_fix_json", "pjp_python", "pjp_js", "langchain_json", "jiter_partial"]


def parse_cases() -> list[Any]:
    params = []
    for suite_name in PARSE_SUITES:
        if not (VECTORS / f"{suite_name}.json").is_file():
            continue
        suite = load_vectors(suite_name)
        diff = differences(suite)
        loose = suite.get("numbers") == "loose"
        for case in suite["cases"]:
            params.append(pytest.param(case, diff, loose, id=f"{suite_name}:{case['id']}"))
    return params


def preview_of(text: str, allow: int, allow_nan: bool) -> Any:
    parser = PartialJSONParser(allow=allow, allow_nan=allow_nan)
    parser.feed(text)
    return parser.value


def feed_then_value(parser: PartialJSONParser, fragments: list[str]) -> Any:
    for fragment in fragments:
        parser.feed(fragment)
    return parser.value


@pytest.mark.parametrize(("case", "diff", "loose"), parse_cases())
def test_vector_parse_cases(case: dict[str, Any], diff: dict[str, Any], loose: bool) -> None:
    text = case["input"]
    allow = DEFAULT_ALLOW if case["allow"] is None else case["allow"]
    want = expected_of(case["expect"])
    if case.get("allow_nan"):
        # Run through PartialJSONParser(allow_nan=True) (the suites' semantics), and through
        # parse_partial_json both without allow_nan (the "-oneshot" ids) and with it.
        listed = diff.get(case["id"])
        got = outcome(lambda: preview_of(text, allow, True))
        expected = expected_of(listed["callstream"]) if listed else want
        assert check(got, expected, loose=loose), (case, got)
        oneshot = diff.get(f"{case['id']}-oneshot")
        got_oneshot = outcome(lambda: parse_partial_json(text, allow=allow))
        if oneshot is not None:
            assert check(got_oneshot, expected_of(oneshot["callstream"]), loose=loose)
        got_nan = outcome(lambda: parse_partial_json(text, allow=allow, allow_nan=True))
        assert check(got_nan, expected, loose=loose), (case, got_nan)
        return
    listed = diff.get(case["id"])
    expected = expected_of(listed["callstream"]) if listed else want
    got = outcome(lambda: parse_partial_json(text, allow=allow))
    assert check(got, expected, loose=loose), (case, got, expected)
    # Fed in pieces, the parser's preview agrees (a top-level number at the very end is
    # complete for parse_partial_json only: documented).
    for fragments in [list(text), *random_splits(text, case["id"])]:
        parser = PartialJSONParser(allow=allow)
        streamed = outcome(lambda p=parser, f=fragments: feed_then_value(p, f))
        if isinstance(got, tuple) or isinstance(streamed, tuple):
            assert streamed == got or got[0] == "error", (case, streamed, got)
        elif not same(streamed, got):
            assert streamed is MISSING and isinstance(got, (int, float)), (case, streamed)


# --- vectors: LangChain streams (one preview per change) --------------------------------------

LANGCHAIN = load_vectors("langchain_json") if (VECTORS / "langchain_json.json").is_file() else {}


@pytest.mark.parametrize("stream", LANGCHAIN.get("streams", []), ids=lambda s: s["id"])
def test_langchain_streams(stream: dict[str, Any]) -> None:
    listed = differences(LANGCHAIN).get(stream["id"])
    if listed is not None:
        want = json.loads(listed["callstream"]["json"])
    else:
        want = [json.loads(preview["json"]) for preview in stream["expect_previews"]]
    parser = PartialJSONParser()
    previews: list[Any] = []
    for token in stream["tokens"]:
        parser.feed(token)
        preview = copy.deepcopy(parser.value)
        if preview is not MISSING and (not previews or previews[-1] != preview):
            previews.append(preview)
    parser.close()
    final = copy.deepcopy(parser.value)
    if not previews or previews[-1] != final:
        previews.append(final)
    assert previews == want  # dict order aside (LangChain's later previews reorder keys)


# --- vectors: ijson documents (strict verdicts, events, partial arrays) -----------------------

IJSON = load_vectors("ijson") if (VECTORS / "ijson.json").is_file() else {}
IJSON_DIFF = differences(IJSON)


def strict_outcome(fragments: list[str]) -> Any:
    parser = PartialJSONParser()
    try:
        for fragment in fragments:
            parser.feed(fragment)
        return parser.close()
    except IncompleteJSONError:
        return ("error", "incomplete")
    except MalformedJSONError:
        return ("error", "malformed")


@pytest.mark.parametrize("doc", IJSON.get("documents", []), ids=lambda d: d["id"])
def test_ijson_documents(doc: dict[str, Any]) -> None:
    text = doc["input"]
    for way, fragments in [("whole", [text]), ("chars", list(text))]:
        listed = IJSON_DIFF.get(f"{doc['id']}#{way}")
        expect = listed["callstream"] if listed else doc["expect"]
        got = strict_outcome(fragments)
        if expect.get("error") == "reject":  # the peer refuses it; any of our errors will do
            assert isinstance(got, tuple), (doc["id"], got)
        else:
            assert check(got, expected_of(expect), loose=False), (doc["id"], way, got, expect)
    if "events" in doc:
        listed = IJSON_DIFF.get(f"{doc['id']}#events")
        parser = PartialJSONParser()
        changes = parser.feed(text)
        parser.close()
        if listed is not None:
            assert json.loads(listed["callstream"]["json"]) == [] and not changes
        else:
            assert same(rebuild(changes), json.loads(doc["expect"]["json"]))


@pytest.mark.parametrize("case", IJSON.get("partial_arrays", []), ids=lambda c: c["id"])
def test_ijson_partial_arrays(case: dict[str, Any]) -> None:
    want = json.loads(case["complete_items"]["json"])
    for fragments in [[case["input"]], list(case["input"])]:
        parser = PartialJSONParser()
        for fragment in fragments:
            parser.feed(fragment)
        preview = parser.value
        complete = preview if parser.complete else preview[: len(want)]
        assert same(complete, want), (case, preview)


# --- vectors: partial-json-parser live differential -------------------------------------------

PJP_LIVE = load_vectors("pjp_live") if (VECTORS / "pjp_live.json").is_file() else {}
PJP_PYTHON = load_vectors("pjp_python") if (VECTORS / "pjp_python.json").is_file() else {}


def live_documents() -> list[Any]:
    docs = [
        pytest.param(text, range(512), id=f"consistency-{i}")
        for i, text in enumerate(PJP_PYTHON.get("consistency_documents", []))
    ]
    if PJP_LIVE:
        docs += [pytest.param(name, PJP_LIVE["allows"], id=name) for name in ACCEPTED]
    return docs


@pytest.mark.parametrize(("document", "allows"), live_documents())
def test_pjp_live_every_prefix(document: str, allows: Any) -> None:
    """parse_partial_json(prefix, allow, allow_nan=True) vs partial_json_parser.loads."""
    partial_json_parser = pytest.importorskip("partial_json_parser")
    from partial_json_parser.core.exceptions import MalformedJSON, PartialJSON

    if document.endswith(".json"):
        name, text = document, (SUITE / document).read_bytes().decode("utf-8")
    else:
        name, text = None, document
    diff = differences(PJP_LIVE)

    def peer(prefix: str, allow: int) -> Any:
        try:
            return partial_json_parser.loads(prefix, allow)
        except PartialJSON:
            return MISSING
        except MalformedJSON:
            return ("error", "malformed")

    unlisted = []
    for end in range(1, len(text) + 1):
        prefix = text[:end]
        for allow in allows:
            ours = outcome(lambda p=prefix, a=allow: parse_partial_json(p, allow=a, allow_nan=True))
            theirs = peer(prefix, allow)
            if check(ours, theirs, loose=False):
                continue
            listed = diff.get(f"{name}@{end}@{allow}") if name else None
            if listed is None or not check(ours, expected_of(listed["callstream"]), loose=False):
                unlisted.append((end, allow, prefix[-20:], ours, theirs))
    assert not unlisted, unlisted[:10]
