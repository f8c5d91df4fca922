"""The stdio transport's bytes: whole lines looked at without being kept, and a pipe wire that
offers what arrives while its reader waits."""

from __future__ import annotations

import os

import anyio
import pytest

from gabs.transports.stdio_framing import FramingError, StdioFrameDecoder
from gabs.transports.stdio_wire import open_wire


def _lines_decoder() -> StdioFrameDecoder:
    decoder = StdioFrameDecoder()
    decoder.feed(b'{"first": 1}\n')
    assert decoder.mode == "lines" and decoder.messages() == [b'{"first": 1}']
    return decoder


def test_whole_lines_are_what_feeding_them_would_decode() -> None:
    data = b'{"a": 1}\r\n\n  {"b": 2}  \n{"c": 3}\n'
    decoder = _lines_decoder()
    assert decoder.whole_lines(data) == [b'{"a": 1}', b'{"b": 2}', b'{"c": 3}']
    decoder.feed(data)  # nothing was kept: the same bytes still decode the same
    assert decoder.messages() == [b'{"a": 1}', b'{"b": 2}', b'{"c": 3}']


@pytest.mark.parametrize(
    "data", [b'{"a": 1}', b'{"a": 1}\n{"b"', b""], ids=["no newline", "cut line", "nothing"]
)
def test_a_cut_line_is_not_whole_and_leaves_the_decoder_as_it_was(data: bytes) -> None:
    decoder = _lines_decoder()
    assert decoder.whole_lines(data) is None
    decoder.feed(data + b"}\n" if data else b"{}\n")
    assert len(decoder.messages()) == (2 if b"\n" in data else 1)


def test_nothing_is_whole_before_the_framing_is_known_or_with_headers_or_held_bytes() -> None:
    assert StdioFrameDecoder().whole_lines(b"{}\n") is None  # the mode is not known yet
    headers = StdioFrameDecoder()
    headers.feed(b"Content-Length: 2\r\n\r\n{}")
    assert headers.mode == "headers" and headers.whole_lines(b"{}\n") is None
    holding = _lines_decoder()
    holding.feed(b'{"half"')
    assert holding.whole_lines(b": 1}\n") is None
    holding.feed(b": 1}\n")
    assert holding.messages() == [b'{"half": 1}']


def test_an_over_long_line_being_skipped_is_not_whole() -> None:
    decoder = StdioFrameDecoder(max_message_bytes=8)
    decoder.feed(b"{}\n")
    decoder.messages()
    decoder.feed(b"x" * 20)
    assert isinstance(decoder.messages()[0], FramingError)
    assert decoder.whole_lines(b"rest of it\n") is None


@pytest.mark.parametrize("taken", [True, False])
async def test_a_pipe_wire_offers_what_arrives_while_its_reader_waits(taken: bool) -> None:
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    offered: list[bytes] = []

    def take(data: bytes) -> bool:
        offered.append(data)
        return taken

    try:
        wire = await open_wire(in_read, out_write)
        wire.take_while_waiting(take)
        assert wire.flowing
        with anyio.fail_after(5):
            os.write(in_write, b"early\n")  # nobody waits yet: kept for the reader
            await anyio.sleep(0.05)
            assert await wire.read() == b"early\n"
            received: list[bytes] = []
            async with anyio.create_task_group() as tg:

                async def read() -> None:
                    with anyio.move_on_after(0.3):
                        received.append(await wire.read())

                tg.start_soon(read)
                await anyio.sleep(0.05)
                os.write(in_write, b"later\n")
            assert offered == [b"later\n"]
            assert received == ([] if taken else [b"later\n"])
            wire.take_while_waiting(None)
            os.close(in_write)
            in_write = -1
            assert await wire.read() == b""  # the end of input
        await wire.aclose()
    finally:
        for fd in (in_read, in_write, out_read, out_write):
            if fd >= 0:
                os.close(fd)


def _frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


@pytest.mark.parametrize(
    "bad",
    [
        _frame(b'{"id":1}', length=11),  # too long: eats the start of the next header
        _frame(b'{"id":1}', length=3),  # too short: the rest of the body reads as a header
        b"Content-Length: x\r\n\r\n" + b'{"id":1}',
        b"X-Other: 1\r\n\r\n" + b'{"id":1}',
    ],
    ids=["too long", "too short", "not a number", "no length"],
)
def test_after_a_frame_with_a_wrong_length_the_stream_is_read_again(bad: bytes) -> None:
    # the body after a bad header and the next header were read as one header block, which
    # had no valid length either: every frame after the bad one was lost
    decoder = StdioFrameDecoder()
    frames = [_frame(b'{"id":%d}' % n) for n in range(2, 6)]
    decoder.feed(b"".join([_frame(b'{"id":0}'), bad, *frames]))
    out = decoder.messages()
    bodies = [item for item in out if isinstance(item, bytes)]
    assert bodies[0] == b'{"id":0}' and any(isinstance(item, FramingError) for item in out)
    assert bodies[-3:] == [b'{"id":3}', b'{"id":4}', b'{"id":5}']  # at most one frame lost
