"""Structured output over a provider stream, async (anyio: asyncio and trio):
:func:`astructured`, :func:`acollect_structured`, :class:`AsyncStructuredStream`.

The same steps as the sync driver (:class:`~callstream.structured_output._sync.StructuredRun`),
over :func:`callstream.astream`; they differ only by ``async`` / ``await``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

from callstream._async import AsyncToolCallStream
from callstream._errors import StructuredOutputError
from callstream.partial import Extract
from callstream.providers import Translator
from callstream.structured_output._sync import (
    StructuredResult,
    StructuredRun,
    StructuredUpdate,
    StructuredView,
)

__all__ = ("AsyncStructuredStream", "acollect_structured", "astructured")


class AsyncStructuredStream(StructuredView, AsyncIterator[StructuredUpdate]):
    """An async iterator of :class:`StructuredUpdate` s; see :func:`astructured`."""

    __slots__ = ("_run", "_stream")

    def __init__(
        self,
        source: Any,
        schema: Any,
        provider: str | Translator,
        extract: Extract,
        options: dict[str, Any],
        *,
        previews: bool = True,
    ) -> None:
        self._run = StructuredRun(schema, extract, options, previews)
        self._stream = AsyncToolCallStream(source, provider, options)

    async def __anext__(self) -> StructuredUpdate:
        run = self._run
        if run.finished:
            raise StopAsyncIteration
        try:
            update = await anext(self._stream)
        except StopAsyncIteration:
            return run.finish(self._stream.result)
        except Exception:
            run.interrupted(self._stream.result)
            raise
        try:
            return run.step(update)
        except StructuredOutputError:
            await self._stream.aclose()
            raise

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent, shielded from cancellation)."""
        self._run.finished = True
        await self._stream.aclose()

    async def __aenter__(self) -> AsyncStructuredStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def astructured(
    source: AsyncIterable[Any] | Iterable[Any],
    schema: Any = None,
    *,
    provider: str | Translator = "auto",
    extract: Extract = "json",
    **options: Any,
) -> AsyncStructuredStream:
    """Async :func:`~callstream.structured`: ``source`` may be an async or a sync iterable.

    Closing and source errors as in :func:`~callstream.astream`; updates, the final value
    and errors as in :func:`~callstream.structured`. Cost: the same.
    """
    return AsyncStructuredStream(source, schema, provider, extract, options)


async def acollect_structured(
    source: AsyncIterable[Any] | Iterable[Any],
    schema: Any = None,
    *,
    provider: str | Translator = "auto",
    extract: Extract = "json",
    **options: Any,
) -> StructuredResult:
    """Async :func:`~callstream.collect_structured`. Cost: the same."""
    async with AsyncStructuredStream(
        source, schema, provider, extract, options, previews=False
    ) as drained:
        async for _ in drained:
            pass
        result = drained.result
        assert result is not None  # the loop ended without an error
        return result
