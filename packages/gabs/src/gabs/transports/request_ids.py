"""Request ids the SDK cannot carry, answered with the id as the client wrote it.

JSON-RPC allows any number as an id. The SDK's request id is a string or an integer, so a
request whose id is a fraction or written with an exponent (``1.5``, ``1.0``, ``1e3``,
``1E400``) would be read as a notification and never answered, and ``-0`` would come back as
``0``. The Go bridge serves such a request and echoes its id token as it was sent.
:class:`IdAliases` does the same on both transports: the id is swapped for a string alias the
SDK carries (:meth:`IdAliases.alias`), and the answer gets the client's token back
(:meth:`IdAliases.restore`). A ``notifications/cancelled`` naming such an id names the alias.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from typing import Any, Final

__all__ = ["MAX_ALIASES", "IdAliases"]

_CANCELLED: Final = "notifications/cancelled"
#: Aliases kept at the most: a request cancelled by its client is never answered, so its alias
#: would stay; past this many the oldest is forgotten (its answer, if it ever comes, carries
#: the alias).
MAX_ALIASES: Final = 4096
#: A body that may hold such an id: ``"id"`` or ``"requestId"`` before a number with a
#: fraction or an exponent, or before ``-0``.
_SUSPECT: Final = re.compile(rb'"(?:id|requestId)"\s*:\s*(?:-?[0-9]+[.eE]|-0\s*[,}])')


class _Token:
    """A number as it was written in the request."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _int_or_token(text: str) -> int | _Token:
    return _Token(text) if text == "-0" else int(text)


def _read_tokens(body: bytes) -> Any:
    return json.loads(body, parse_float=_Token, parse_int=_int_or_token)


class IdAliases:
    """The aliases of the requests read and not yet answered."""

    def __init__(self) -> None:
        self._prefix = f"gabs-request-{secrets.token_hex(4)}-"
        self._counter = itertools.count(1)
        self._tokens: dict[str, str] = {}  # alias -> the id as the client wrote it
        self._aliases: dict[str, str] = {}  # the client's token -> alias (for cancels)

    def __len__(self) -> int:
        return len(self._tokens)

    def alias(self, body: bytes) -> bytes:
        """``body`` with a non-integer numeric id (or a cancel naming one) swapped for its
        alias; any other body unchanged."""
        if _SUSPECT.search(body) is None:
            return body
        try:
            message = _read_tokens(body)
        except (ValueError, RecursionError):
            return body
        if not isinstance(message, dict):
            return body
        token = message.get("id")
        params = message.get("params")
        if isinstance(token, _Token):
            alias = f"{self._prefix}{next(self._counter)}"
            if len(self._tokens) >= MAX_ALIASES:
                oldest = next(iter(self._tokens))
                forgotten = self._tokens.pop(oldest)
                if self._aliases.get(forgotten) == oldest:
                    del self._aliases[forgotten]
            self._tokens[alias] = token.text
            self._aliases[token.text] = alias
            return self._rewrite(body, lambda plain: plain.__setitem__("id", alias))
        if (
            message.get("method") == _CANCELLED
            and isinstance(params, dict)
            and isinstance(params.get("requestId"), _Token)
        ):
            known = self._aliases.get(params["requestId"].text)
            if known is not None:
                return self._rewrite(
                    body, lambda plain: plain["params"].__setitem__("requestId", known)
                )
        return body

    @staticmethod
    def _rewrite(body: bytes, change: Any) -> bytes:
        plain = json.loads(body)  # everything else as the SDK would read it
        change(plain)
        return json.dumps(plain, separators=(",", ":")).encode()

    def is_alias(self, request_id: object) -> bool:
        return isinstance(request_id, str) and request_id in self._tokens

    def restore(self, request_id: object, body: bytes) -> bytes:
        """The answer ``body`` to the request ``request_id`` with the client's own id back
        (the alias is forgotten); any other body unchanged."""
        if not isinstance(request_id, str):
            return body
        token = self._tokens.pop(request_id, None)
        if token is None:
            return body
        if self._aliases.get(token) == request_id:
            del self._aliases[token]
        return body.replace(json.dumps(request_id).encode(), token.encode(), 1)

    def restore_answer(self, body: bytes) -> bytes:
        """:meth:`restore` for an answer whose request id is read from ``body`` itself."""
        if not self._tokens:
            return body
        try:
            answer = json.loads(body)
        except ValueError:
            return body
        return self.restore(answer.get("id") if isinstance(answer, dict) else None, body)

    def restore_all(self, data: bytes) -> bytes:
        """``data`` (a JSON answer or a stream's events) with every alias replaced by the
        client's id; the aliases are kept (a response may come in several pieces)."""
        for alias, token in self._tokens.items():
            data = data.replace(json.dumps(alias).encode(), token.encode())
        return data
