"""gabs.backoff: the waits between connection attempts (``--reconnectBackoff``)."""

from __future__ import annotations

from itertools import islice

import pytest

from gabs.backoff import DEFAULT_BACKOFF, backoff_delays
from gabs.cli_args import parse_backoff
from gabs.games import GameManager
from gabs.session import GameSession


def test_the_waits_double_from_the_minimum_up_to_the_maximum() -> None:
    assert list(islice(backoff_delays((0.1, 1.0)), 6)) == pytest.approx(
        [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    )
    assert list(islice(backoff_delays(parse_backoff("250ms..2s")), 5)) == pytest.approx(
        [0.25, 0.5, 1.0, 2.0, 2.0]
    )


def test_a_zero_window_retries_at_once_and_a_zero_minimum_still_grows() -> None:
    assert list(islice(backoff_delays((0.0, 0.0)), 3)) == [0.0, 0.0, 0.0]
    assert list(islice(backoff_delays((0.0, 0.04)), 5)) == pytest.approx(
        [0.0, 0.01, 0.02, 0.04, 0.04]
    )


def test_an_inverted_or_negative_window_is_refused() -> None:
    with pytest.raises(ValueError, match=r"invalid backoff window 2\.\.1"):
        next(backoff_delays((2.0, 1.0)))
    with pytest.raises(ValueError, match="invalid backoff window"):
        next(backoff_delays((-1.0, 1.0)))


def test_the_default_window_is_the_go_bridge_s() -> None:
    assert DEFAULT_BACKOFF == parse_backoff(None) == GameManager.default_backoff
    assert GameSession("g", port=1, token="t").reconnect_backoff == DEFAULT_BACKOFF
