"""callstream's pytest plugin: fixtures for provider streams, the mock provider, its
transport and its loopback server.

Registered by the ``pytest11`` entry point of ``callstream[testing]``: installed, pytest
loads it in every run, so loading it only defines fixtures, a marker and a hook (no
hypothesis, LangChain or httpx import; those load when a fixture that needs them runs).

Fixtures:

- ``stream_case``: a :class:`~callstream.testing.Case` (format, quirks, split). A test
  asking for it runs once per case: every format x applicable quirk x split, or those of
  ``@pytest.mark.callstream_cases(...)`` (the arguments of
  :func:`~callstream.testing.combinations`).
- ``provider_stream``: :func:`~callstream.testing.stream_of` as a factory,
  ``provider_stream(calls, **options)``; in a test with ``stream_case`` the case's format,
  quirks and split are the defaults.
- ``provider_mock``: a factory of :class:`~callstream.testing.MockProvider`
  (``provider_mock(*turns, format=..., pace=...)``).
- ``provider_transport``: ``provider_transport(mock, module="httpx")`` gives
  ``httpx.MockTransport(mock)`` (``module="httpx2"`` for httpx2), for sync and async
  clients.
- ``provider_server``: ``provider_server(mock)`` serves the mock on 127.0.0.1 until the
  test ends and gives its base URL (:func:`~callstream.testing.serve`).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from callstream._errors import OptionValueError

__all__ = (
    "provider_mock",
    "provider_server",
    "provider_stream",
    "provider_transport",
    "pytest_configure",
    "pytest_generate_tests",
    "stream_case",
)

_MARKER = "callstream_cases"


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ``callstream_cases`` marker."""
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(formats=None, quirks=None, splits=None, *, plain=True, "
        "keeping_calls=False): the cases the stream_case fixture runs the test with "
        "(callstream.testing.combinations' arguments)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Runs a test that asks for ``stream_case`` once per case of its marker (default:
    every format x applicable quirk x split). Cost: nothing for other tests."""
    if "stream_case" not in metafunc.fixturenames:
        return
    from callstream.testing._cases import combinations

    marker = metafunc.definition.get_closest_marker(_MARKER)
    args, kwargs = (marker.args, marker.kwargs) if marker is not None else ((), {})
    found = combinations(*args, **kwargs)
    metafunc.parametrize("stream_case", found, ids=[case.id for case in found], indirect=True)


@pytest.fixture
def stream_case(request: pytest.FixtureRequest) -> Any:
    """The :class:`~callstream.testing.Case` this run of the test is for."""
    case = getattr(request, "param", None)
    if case is None:  # pragma: no cover - pytest_generate_tests always parametrizes it
        raise pytest.UsageError("stream_case is parametrized by callstream's plugin only")
    return case


@pytest.fixture
def provider_stream(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``provider_stream(calls, **options)``: :func:`~callstream.testing.stream_of`, its
    ``format``, ``quirks`` and ``split`` taken from ``stream_case`` when the test asks for
    it (``options`` override them)."""
    from callstream.testing._stream import stream_of

    defaults: dict[str, Any] = {}
    if "stream_case" in request.fixturenames:
        case = request.getfixturevalue("stream_case")
        defaults = {"format": case.format, "quirks": case.quirks, "split": case.split}

    def make(calls: Sequence[Mapping[str, Any]], **options: Any) -> Any:
        return stream_of(calls, **{**defaults, **options})

    return make


# --- the mock provider, its transport and its server ------------------------------------------
# MockProvider and serve live in callstream.testing (the transport and server modules);
# they are imported when a fixture below runs, never when the plugin loads.


@pytest.fixture
def provider_mock() -> Callable[..., Any]:
    """``provider_mock(*turns, format=None, pace=None)``: a new
    :class:`~callstream.testing.MockProvider` scripted with ``turns``."""
    from callstream.testing import MockProvider  # type: ignore[attr-defined,unused-ignore]

    def make(*turns: Any, **options: Any) -> Any:
        return MockProvider(*turns, **options)

    return make


@pytest.fixture
def provider_transport() -> Callable[..., Any]:
    """``provider_transport(mock, module="httpx")``: ``MockTransport(mock)`` of ``httpx`` or
    ``httpx2``, for a client's ``http_client`` (sync or async)."""

    def make(mock: Any, module: str = "httpx") -> Any:
        if module not in ("httpx", "httpx2"):
            raise OptionValueError(f"module must be 'httpx' or 'httpx2', not {module!r}")
        return importlib.import_module(module).MockTransport(mock)

    return make


@pytest.fixture
def provider_server() -> Iterator[Callable[[Any], str]]:
    """``provider_server(mock)``: serves ``mock`` on 127.0.0.1 until the test ends and
    gives the base URL (``http://127.0.0.1:<port>``)."""
    from callstream.testing import serve  # type: ignore[attr-defined,unused-ignore]

    with contextlib.ExitStack() as stack:

        def start(mock: Any) -> str:
            url: str = stack.enter_context(serve(mock))
            return url

        yield start
