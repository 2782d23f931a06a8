"""What is never written down from a request or a response: credentials.

The one rule for :class:`~callstream.testing.MockProvider`'s recorded requests and
:class:`~callstream.testing.RecordingTransport`'s files: headers that carry credentials
(API keys, bearer tokens, AWS signatures, cookies) and query parameters that do (Gemini's
``?key=``, signed URLs).
"""

from __future__ import annotations

from typing import Final

__all__ = ("is_secret_header", "is_secret_parameter")

_SECRET_HEADERS: Final = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "cookie2",
        "set-cookie",
        "set-cookie2",
        "x-amz-security-token",
        "x-amz-credential",
        "x-amz-signature",
    }
)
_SECRET_PARAMETERS: Final = frozenset(
    {
        "key",
        "api_key",
        "api-key",
        "apikey",
        "access_token",
        "token",
        "client_secret",
        "sig",
        "signature",
        "x-amz-security-token",
        "x-amz-signature",
        "x-amz-credential",
    }
)


def is_secret_header(name: str) -> bool:
    """Whether a header named ``name`` (any case) may carry a credential: the known names,
    any ``*-api-key`` or ``*-token``, anything naming a secret, a cookie or authorization."""
    name = name.lower()
    return (
        name in _SECRET_HEADERS
        or name.endswith(("-api-key", "-token"))
        or any(word in name for word in ("secret", "cookie", "authorization"))
    )


def is_secret_parameter(name: str) -> bool:
    """Whether a query parameter named ``name`` (any case, already unquoted) may carry a
    credential."""
    return name.lower() in _SECRET_PARAMETERS
