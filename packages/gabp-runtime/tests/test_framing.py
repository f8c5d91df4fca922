"""gabp.framing: the sans-IO Content-Length codec."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gabp.framing import (
    BodyTooLargeError,
    DecoderClosedError,
    DuplicateContentLengthError,
    FrameDecoder,
    FramingError,
    HeaderTooLargeError,
    InvalidContentLengthError,
    MalformedHeaderError,
    MissingContentLengthError,
    TruncatedFrameError,
    encode_frame,
)


def feed_all(decoder: FrameDecoder, chunks: list[bytes]) -> list[bytes]:
    frames: list[bytes] = []
    for chunk in chunks:
        frames += decoder.feed(chunk)
    return frames


def one_byte_at_a_time(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


# --- encoding --------------------------------------------------------------------------------


def test_encode_frame_writes_the_exact_header_casing_and_byte_length() -> None:
    assert encode_frame(b'{"a":1}') == (
        b'Content-Length: 7\r\nContent-Type: application/json\r\n\r\n{"a":1}'
    )


def test_encode_frame_counts_bytes_not_characters() -> None:
    body = json.dumps({"text": "Ärger 🐛 日本"}, ensure_ascii=False).encode("utf-8")
    frame = encode_frame(body)
    assert frame.startswith(b"Content-Length: %d\r\n" % len(body))
    assert len(body) > len(body.decode("utf-8"))


def test_encode_frame_accepts_bytearray_and_memoryview() -> None:
    assert encode_frame(bytearray(b"{}")) == encode_frame(b"{}")
    assert encode_frame(memoryview(b"[1]")) == encode_frame(b"[1]")


def test_encode_frame_refuses_str() -> None:
    with pytest.raises(TypeError, match="not str"):
        encode_frame("{}")  # type: ignore[arg-type]


# --- decoding: what is accepted --------------------------------------------------------------


def test_a_frame_round_trips() -> None:
    assert FrameDecoder().feed(encode_frame(b'{"v":"gabp/1"}')) == [b'{"v":"gabp/1"}']


def test_non_ascii_bodies_are_delimited_by_bytes() -> None:
    bodies = [
        json.dumps({"text": "Ärger 🐛 日本"}, ensure_ascii=False).encode("utf-8"),
        "日本".encode(),
    ]
    stream = b"".join(encode_frame(body) for body in bodies)
    assert FrameDecoder().feed(stream) == bodies


@pytest.mark.parametrize("name", [b"content-length", b"CONTENT-LENGTH", b"Content-length"])
def test_header_names_are_case_insensitive(name: bytes) -> None:
    assert FrameDecoder().feed(name + b": 2\r\n\r\n{}") == [b"{}"]


@pytest.mark.parametrize(
    "headers",
    [
        b"Content-Length: 2\r\n",
        b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
        b"Content-Type: text/plain\r\nContent-Length: 2\r\n",
        b"X-Trace: abc\r\nContent-Length: 2\r\nX-Other:\r\n",
        b"Content-Length:2\r\n",
        b"Content-Length: \t2 \r\n",
        b"Content-Length: 002\r\n",
    ],
)
def test_content_type_is_optional_and_other_headers_are_ignored(headers: bytes) -> None:
    assert FrameDecoder().feed(headers + b"\r\n{}") == [b"{}"]


def test_feeding_one_byte_at_a_time_yields_every_frame() -> None:
    bodies = [b'{"a":1}', b"", "Ärger 🐛".encode(), b"[" * 300]
    stream = b"".join(encode_frame(body) for body in bodies)
    decoder = FrameDecoder()
    assert feed_all(decoder, one_byte_at_a_time(stream)) == bodies
    assert decoder.at_boundary
    assert decoder.buffered == 0


def test_two_frames_in_one_chunk_come_out_in_order() -> None:
    stream = encode_frame(b"[1]") + encode_frame(b"[2]")
    assert FrameDecoder().feed(stream) == [b"[1]", b"[2]"]


def test_a_zero_length_body_yields_an_empty_frame() -> None:
    assert FrameDecoder().feed(b"Content-Length: 0\r\n\r\n") == [b""]


def test_a_body_split_over_many_chunks_is_joined_once_complete() -> None:
    body = bytes(range(256)) * 1000
    stream = encode_frame(body) + encode_frame(b"{}")
    decoder = FrameDecoder()
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
    assert feed_all(decoder, chunks) == [body, b"{}"]


def test_buffered_and_at_boundary_describe_the_partial_frame() -> None:
    decoder = FrameDecoder()
    assert decoder.at_boundary
    assert decoder.feed(b"Content-Length: 5\r\n") == []
    assert (decoder.buffered, decoder.at_boundary) == (19, False)
    assert decoder.feed(b"\r\n{}") == []
    assert (decoder.buffered, decoder.at_boundary) == (2, False)
    assert decoder.feed(b"[]]") == [b"{}[]]"]
    assert (decoder.buffered, decoder.at_boundary) == (0, True)


def test_feed_accepts_bytearray_and_memoryview() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(bytearray(encode_frame(b"[1]"))) == [b"[1]"]
    assert decoder.feed(memoryview(encode_frame(b"[2]"))) == [b"[2]"]


def test_end_of_stream_at_a_boundary_closes_cleanly() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(encode_frame(b"{}")) == [b"{}"]
    assert decoder.feed(b"") == []
    assert decoder.closed


# --- decoding: what is refused ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [
        (
            b"Content-Type: application/json\r\n\r\n{}",
            MissingContentLengthError,
            "frame header has no Content-Length header",
        ),
        (
            b"\r\n\r\n",
            MissingContentLengthError,
            "frame header is empty; a Content-Length is required",
        ),
        (
            b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}",
            DuplicateContentLengthError,
            "frame header has more than one Content-Length; exactly one is required",
        ),
        (
            b"Content-Length: -2\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'-2' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: +2\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'+2' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: 1 2\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'1 2' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: 0x10\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'0x10' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: 1_0\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'1_0' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: \r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value b'' is not a non-negative decimal integer",
        ),
        (
            b"Content-Length: " + b"1" * 25 + b"\r\n\r\n",
            InvalidContentLengthError,
            "Content-Length value has 25 digits; at most 20 are allowed",
        ),
        (
            b"Content-Length 2\r\n\r\n",
            MalformedHeaderError,
            "frame header line b'Content-Length 2' has no colon",
        ),
        (
            b": 2\r\nContent-Length: 2\r\n\r\n",
            MalformedHeaderError,
            "frame header line b': 2' has an empty name",
        ),
        (
            b"Content-Length : 2\r\n\r\n",
            MalformedHeaderError,
            "frame header name b'Content-Length ' is not a valid token",
        ),
        (
            b"Content-Length: 2\r\nX-Name: \xc3\x84\r\n\r\n",
            MalformedHeaderError,
            "frame header has byte 0xc3 at offset 27; only printable ASCII and tab are allowed",
        ),
        (
            b"Content-Length: 2\r\nX: \x00\r\n\r\n",
            MalformedHeaderError,
            "frame header has byte 0x00 at offset 22",
        ),
        (
            b"Content-Length: 2\nX: y\r\n\r\n",
            MalformedHeaderError,
            "frame header has a bare LF at offset 17; header lines must end with CRLF",
        ),
        (
            b"Content-Length: 2\rX: y\r\n\r\n",
            MalformedHeaderError,
            "frame header has a bare CR at offset 17; header lines must end with CRLF",
        ),
    ],
)
def test_a_bad_header_raises_a_precise_error(
    data: bytes, error: type[FramingError], message: str
) -> None:
    with pytest.raises(error) as caught:
        FrameDecoder().feed(data)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, FramingError)
    assert isinstance(caught.value, ValueError)


def test_a_bare_lf_header_is_refused_as_soon_as_it_is_seen() -> None:
    decoder = FrameDecoder()
    with pytest.raises(MalformedHeaderError, match="bare LF at offset 17"):
        decoder.feed(b"Content-Length: 2\n\n{}")


def test_the_body_limit_is_enforced_before_the_body_is_buffered() -> None:
    decoder = FrameDecoder(max_body_bytes=1_048_576)
    with pytest.raises(BodyTooLargeError) as caught:
        decoder.feed(b"Content-Length: 2000000\r\n\r\n{")
    assert str(caught.value) == "Content-Length 2000000 exceeds the 1048576-byte body limit"
    assert decoder.buffered == 0
    assert decoder.closed


def test_a_body_exactly_at_the_limit_is_accepted() -> None:
    assert FrameDecoder(max_body_bytes=3).feed(encode_frame(b"abc")) == [b"abc"]


def test_the_header_limit_is_enforced_without_waiting_for_a_terminator() -> None:
    decoder = FrameDecoder(max_header_bytes=64)
    decoder.feed(b"Content-Length: 2\r\n")
    with pytest.raises(HeaderTooLargeError) as caught:
        decoder.feed(b"X-Padding: " + b"a" * 100)
    assert str(caught.value) == (
        "frame header exceeds the 64-byte header limit without a terminating CRLFCRLF "
        "(130 bytes received)"
    )


def test_a_header_block_exactly_at_the_limit_is_accepted() -> None:
    header = b"Content-Length: 2\r\n\r\n"
    assert FrameDecoder(max_header_bytes=len(header)).feed(header + b"{}") == [b"{}"]
    with pytest.raises(HeaderTooLargeError):
        FrameDecoder(max_header_bytes=len(header) - 1).feed(header + b"{}")


def test_a_known_header_still_respects_a_smaller_header_limit() -> None:
    decoder = FrameDecoder(max_header_bytes=30)
    with pytest.raises(HeaderTooLargeError):
        decoder.feed(encode_frame(b"{}"))


def test_end_of_stream_inside_a_header_is_truncation() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"Content-Len")
    with pytest.raises(TruncatedFrameError) as caught:
        decoder.feed(b"")
    assert str(caught.value) == "stream ended inside a frame header (11 bytes received)"


def test_end_of_stream_inside_a_body_is_truncation() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"Content-Length: 10\r\n\r\n{}")
    with pytest.raises(TruncatedFrameError) as caught:
        decoder.feed(b"")
    assert str(caught.value) == "stream ended inside a frame body (2 of 10 bytes received)"


def test_feeding_after_end_of_stream_is_refused() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"")
    with pytest.raises(DecoderClosedError, match="data fed after end of stream"):
        decoder.feed(encode_frame(b"{}"))


def test_the_decoder_is_poisoned_after_an_error() -> None:
    decoder = FrameDecoder()
    with pytest.raises(MissingContentLengthError):
        decoder.feed(b"X: 1\r\n\r\n")
    for data in (encode_frame(b"{}"), b""):
        with pytest.raises(DecoderClosedError) as caught:
            decoder.feed(data)
        assert str(caught.value) == (
            "frame decoder is closed after an earlier framing error: "
            "frame header has no Content-Length header"
        )
        assert isinstance(caught.value.__cause__, MissingContentLengthError)


def test_frames_completed_before_an_error_are_kept_on_the_error() -> None:
    decoder = FrameDecoder()
    with pytest.raises(InvalidContentLengthError) as caught:
        decoder.feed(encode_frame(b"[1]") + encode_frame(b"[2]") + b"Content-Length: x\r\n\r\n")
    assert caught.value.frames == [b"[1]", b"[2]"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_header_bytes": 0}, "max_header_bytes must be at least 1, got 0"),
        ({"max_body_bytes": -1}, "max_body_bytes must not be negative, got -1"),
    ],
)
def test_limits_must_be_sensible(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FrameDecoder(**kwargs)


# --- properties ------------------------------------------------------------------------------

bodies_strategy = st.lists(
    st.one_of(
        st.binary(max_size=300),
        st.text(max_size=100).map(lambda text: text.encode("utf-8")),
        st.just(b"Content-Length: 5\r\n\r\n"),
    ),
    max_size=12,
)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


@settings(max_examples=300, deadline=None)
@given(bodies=bodies_strategy, cuts=st.lists(st.integers(min_value=0), max_size=20))
def test_any_split_of_a_valid_stream_decodes_to_the_same_frames(
    bodies: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(encode_frame(body) for body in bodies)
    decoder = FrameDecoder()
    assert feed_all(decoder, split_at(stream, cuts)) == bodies
    assert decoder.feed(b"") == []


header_fragments = st.sampled_from(
    [
        b"Content-Length: ",
        b"content-length:",
        b"Content-Type: application/json",
        b"\r\n",
        b"\r\n\r\n",
        b"\n",
        b"\r",
        b":",
        b" ",
        b"0",
        b"7",
        b"99999999999",
        b"{}",
        b"\x00",
        b"\xff",
    ]
)
garbage_strategy = st.one_of(
    st.binary(max_size=400),
    st.lists(header_fragments, max_size=40).map(b"".join),
)


@settings(max_examples=400, deadline=None)
@given(
    data=garbage_strategy,
    cuts=st.lists(st.integers(min_value=0), max_size=20),
    max_header=st.integers(min_value=1, max_value=80),
    max_body=st.integers(min_value=0, max_value=64),
)
def test_arbitrary_bytes_only_ever_raise_framing_errors_and_stay_within_the_caps(
    data: bytes, cuts: list[int], max_header: int, max_body: int
) -> None:
    decoder = FrameDecoder(max_header_bytes=max_header, max_body_bytes=max_body)
    chunks = [*split_at(data, cuts), b""]
    for chunk in chunks:
        try:
            frames = decoder.feed(chunk)
        except FramingError:
            assert decoder.closed
            break
        assert all(len(frame) <= max_body for frame in frames)
        assert decoder.buffered <= max_header + max_body + len(chunk)
    assert decoder.closed


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: 2\r\nGarbage\r\n\r\n",
        b"Garbage\r\nContent-Length: 2\r\n\r\n",
        b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n",
        b"Content-Length: +2\r\n\r\n",
    ],
)
def test_lenient_headers_take_what_leaves_the_length_certain(header: bytes) -> None:
    with pytest.raises(FramingError):
        FrameDecoder().feed(header + b"{}")
    assert FrameDecoder(lenient_headers=True).feed(header + b"{}" + header + b"[]") == [
        b"{}",
        b"[]",
    ]
    data = header + b"{}"
    byte_by_byte = feed_all(
        FrameDecoder(lenient_headers=True), [data[i : i + 1] for i in range(len(data))]
    )
    assert byte_by_byte == [b"{}"]


@pytest.mark.parametrize(
    ("header", "error"),
    [
        (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n", DuplicateContentLengthError),
        (b"Content-Length: 2\n\n", MalformedHeaderError),
        (b"Content-Length: +-2\r\n\r\n", InvalidContentLengthError),
        (b"Garbage\r\n\r\n", MissingContentLengthError),
    ],
)
def test_lenient_headers_still_refuse_an_uncertain_length(
    header: bytes, error: type[FramingError]
) -> None:
    with pytest.raises(error):
        FrameDecoder(lenient_headers=True).feed(header + b"{}")
