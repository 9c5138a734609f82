"""The publish-only MQTT codec (arena/sinks/mqtt_packets.py), byte by byte against the
OASIS layouts of MQTT 3.1.1 (§3) and MQTT 5.0 (§3)."""

from __future__ import annotations

import pytest

from arena.sinks.mqtt_packets import (
    CONNACK,
    DISCONNECT,
    PINGREQ,
    PINGRESP,
    PUBACK,
    REASONS,
    Connack,
    MalformedPacket,
    connack,
    connect,
    disconnect,
    puback,
    publish,
    read_packets,
)


def field(data: bytes) -> bytes:
    """A length-prefixed string, as the standards lay it out (two bytes, big-endian)."""
    return len(data).to_bytes(2, "big") + data


def props(*entries: bytes) -> bytes:
    """MQTT 5 properties: their length (one byte here: all are short), then them."""
    body = b"".join(entries)
    assert len(body) < 0x80
    return bytes((len(body),)) + body


# CONNECT


def test_a_311_connect_with_will_and_credentials_has_the_oasis_layout() -> None:
    packet = connect(
        client_id="arena-1",
        version=4,
        keepalive_s=60,
        will=("ddz-arena/status", b"offline"),
        username="studio",
        password="pa55",
    )
    body = (
        b"\x00\x04MQTT"  # protocol name
        + b"\x04"  # protocol level 4: MQTT 3.1.1
        + bytes((0b1110_1110,))  # user, password, will retain, will QoS 1, will, clean
        + b"\x00\x3c"  # keepalive 60 s
        + field(b"arena-1")
        + field(b"ddz-arena/status")
        + field(b"offline")
        + field(b"studio")
        + field(b"pa55")
    )
    assert packet == b"\x10" + bytes((len(body),)) + body


def test_a_5_connect_has_empty_connect_and_will_properties() -> None:
    packet = connect(
        client_id="arena-1",
        version=5,
        keepalive_s=30,
        will=("ddz-arena/status", b"offline"),
        username="studio",
        password="pa55",
    )
    body = (
        b"\x00\x04MQTT"
        + b"\x05"  # protocol level 5
        + bytes((0b1110_1110,))
        + b"\x00\x1e"  # keepalive 30 s
        + b"\x00"  # property length 0: no CONNECT properties
        + field(b"arena-1")
        + b"\x00"  # will property length 0
        + field(b"ddz-arena/status")
        + field(b"offline")
        + field(b"studio")
        + field(b"pa55")
    )
    assert packet == b"\x10" + bytes((len(body),)) + body


@pytest.mark.parametrize(
    ("will", "username", "password", "flags"),
    [
        (None, None, None, 0x02),
        (("w", b"x"), None, None, 0x02 | 0x04 | 0x08 | 0x20),
        (None, "u", None, 0x02 | 0x80),
        (None, "u", "p", 0x02 | 0x80 | 0x40),
        (None, None, "p", 0x02 | 0x40),
        (("w", b"x"), "u", "p", 0xEE),
    ],
)
@pytest.mark.parametrize("version", [4, 5])
def test_the_connect_flags_say_which_fields_follow(
    version: int,
    will: tuple[str, bytes] | None,
    username: str | None,
    password: str | None,
    flags: int,
) -> None:
    packet = connect(
        client_id="c",
        version=version,
        keepalive_s=5,
        will=will,
        username=username,
        password=password,
    )
    # fixed header (2), protocol name (6), level (1): the flags byte is the tenth
    assert packet[8] == version
    assert packet[9] == flags
    assert packet[10:12] == b"\x00\x05"
    start = 13 if version == 5 else 12
    payload = field(b"c")
    if will is not None:
        payload += (b"\x00" if version == 5 else b"") + field(b"w") + field(b"x")
    if username is not None:
        payload += field(b"u")
    if password is not None:
        payload += field(b"p")
    assert packet[start:] == payload
    assert packet[1] == len(packet) - 2


def test_a_long_keepalive_is_two_bytes_big_endian() -> None:
    packet = connect(client_id="c", version=4, keepalive_s=0x1234)
    assert packet[10:12] == b"\x12\x34"


def test_a_client_id_longer_than_an_mqtt_string_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 65535 bytes"):
        connect(client_id="x" * 65_536, version=4, keepalive_s=60)


# PUBLISH, PINGREQ, DISCONNECT


@pytest.mark.parametrize(
    ("packet_id", "retain", "version", "expected"),
    [
        (1, False, 4, b"\x32\x09\x00\x03a/b\x00\x01hi"),
        (1, True, 4, b"\x33\x09\x00\x03a/b\x00\x01hi"),
        (0x1234, False, 4, b"\x32\x09\x00\x03a/b\x12\x34hi"),
        (0, False, 4, b"\x30\x07\x00\x03a/bhi"),
        (0, True, 4, b"\x31\x07\x00\x03a/bhi"),
        (7, False, 5, b"\x32\x0a\x00\x03a/b\x00\x07\x00hi"),
        (7, True, 5, b"\x33\x0a\x00\x03a/b\x00\x07\x00hi"),
        (0, True, 5, b"\x31\x08\x00\x03a/b\x00hi"),
    ],
    ids=["qos1", "qos1-retain", "id-0x1234", "qos0", "qos0-retain", "v5", "v5-retain", "v5-qos0"],
)
def test_publish_sets_qos_and_retain_bits_the_packet_id_and_v5_properties(
    packet_id: int, retain: bool, version: int, expected: bytes
) -> None:
    assert publish(b"a/b", b"hi", packet_id=packet_id, version=version, retain=retain) == expected


def test_publish_does_not_retain_unless_asked() -> None:
    assert publish(b"t", b"", packet_id=1, version=4)[0] == 0x32


def test_pingreq_and_disconnect_are_two_bytes() -> None:
    assert PINGREQ == b"\xc0\x00"
    assert disconnect() == b"\xe0\x00"


@pytest.mark.parametrize(
    ("remaining", "encoded"),
    [
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (16_383, b"\xff\x7f"),
        (16_384, b"\x80\x80\x01"),
        (2_097_151, b"\xff\xff\x7f"),
        (2_097_152, b"\x80\x80\x80\x01"),
    ],
)
def test_the_remaining_length_is_a_variable_byte_integer_at_its_boundaries(
    remaining: int, encoded: bytes
) -> None:
    # QoS 0, MQTT 3.1.1, topic "t": the remaining length is 3 + the payload's
    payload = bytes(range(256)) * (remaining // 256 + 1)
    payload = payload[: remaining - 3]
    packet = publish(b"t", payload, packet_id=0, version=4)
    assert packet[1 : 1 + len(encoded)] == encoded
    assert len(packet) == 1 + len(encoded) + remaining
    buffer = bytearray(packet)
    assert read_packets(buffer) == [(0x30, b"\x00\x01t" + payload)]
    assert buffer == bytearray()


# read_packets


STREAM_PACKETS: list[tuple[int, bytes]] = [
    (CONNACK, b"\x00\x00"),
    (PUBACK, b"\x00\x01"),
    (PUBACK, b"\x00\x02\x87"),
    (PINGRESP, b""),
    (0x30, b"\x00\x01t" + bytes(range(200))),  # two length bytes
    (DISCONNECT, b"\x8e"),
]


def encode(first: int, body: bytes) -> bytes:
    size = len(body)
    length = bytearray()
    while True:
        digit, size = size & 0x7F, size >> 7
        length.append(digit | (0x80 if size else 0))
        if not size:
            break
    return bytes((first,)) + bytes(length) + body


STREAM = b"".join(encode(first, body) for first, body in STREAM_PACKETS)


@pytest.mark.parametrize("split", range(len(STREAM) + 1))
def test_read_packets_returns_each_whole_packet_once_wherever_the_stream_is_cut(
    split: int,
) -> None:
    buffer = bytearray(STREAM[:split])
    first = read_packets(buffer)
    whole = sum(len(encode(*packet)) for packet in first)
    assert first == STREAM_PACKETS[: len(first)]
    assert buffer == bytearray(STREAM[whole:split])  # the partial packet stays
    buffer += STREAM[split:]
    second = read_packets(buffer)
    assert first + second == STREAM_PACKETS
    assert buffer == bytearray()


def test_read_packets_fed_one_byte_at_a_time_gives_every_packet_in_order() -> None:
    buffer = bytearray()
    received: list[tuple[int, bytes]] = []
    for byte in STREAM:
        buffer.append(byte)
        received += read_packets(buffer)
    assert received == STREAM_PACKETS
    assert buffer == bytearray()


def test_read_packets_keeps_a_header_whose_length_is_not_complete() -> None:
    buffer = bytearray(b"\x30\xff\xff\xff")
    assert read_packets(buffer) == []
    assert buffer == bytearray(b"\x30\xff\xff\xff")


def test_a_remaining_length_of_five_bytes_is_malformed() -> None:
    with pytest.raises(MalformedPacket, match="longer than four bytes"):
        read_packets(bytearray(b"\x30\xff\xff\xff\xff\x01"))


def test_the_largest_remaining_length_is_read_as_a_partial_packet() -> None:
    buffer = bytearray(b"\x30\xff\xff\xff\x7f\x00")
    assert read_packets(buffer) == []
    assert len(buffer) == 6


# CONNACK, MQTT 3.1.1


def test_a_311_connack_accepting_has_no_refusal() -> None:
    assert connack(b"\x00\x00", 4) == Connack(None)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (1, "the broker refused the protocol version"),
        (2, "the broker refused the client id"),
        (3, "the broker is unavailable"),
        (4, "bad user name or password"),
        (5, "not authorized"),
        (9, "refused (code 9)"),
    ],
)
def test_a_311_connack_refusal_is_said_in_words(code: int, words: str) -> None:
    refused = connack(bytes((0, code)), 4).refused
    assert refused is not None
    assert refused.startswith(words)


def test_a_311_connack_ignores_bytes_that_look_like_v5_properties() -> None:
    assert connack(b"\x00\x00\x03\x21\x00\x05", 4) == Connack(None)


@pytest.mark.parametrize("version", [4, 5])
@pytest.mark.parametrize("body", [b"", b"\x00"])
def test_a_connack_shorter_than_two_bytes_is_malformed(body: bytes, version: int) -> None:
    with pytest.raises(MalformedPacket, match="CONNACK shorter than 2 bytes"):
        connack(body, version)


# CONNACK, MQTT 5


@pytest.mark.parametrize("code", sorted(REASONS))
def test_a_v5_connack_reason_code_from_0x80_is_a_refusal_in_words(code: int) -> None:
    assert connack(bytes((0, code, 0)), 5).refused == REASONS[code]


def test_the_v5_words_for_credentials_and_authorization() -> None:
    assert connack(b"\x00\x86\x00", 5).refused == "bad user name or password"
    assert connack(b"\x00\x87\x00", 5).refused == "not authorized"


def test_a_v5_refusal_adds_the_brokers_reason_string() -> None:
    body = b"\x00\x87" + props(b"\x1f" + field(b"topic acl says no"))
    assert connack(body, 5).refused == "not authorized: topic acl says no"


def test_a_v5_refusal_with_an_empty_reason_string_says_only_the_code() -> None:
    assert connack(b"\x00\x88" + props(b"\x1f" + field(b"")), 5).refused == "server unavailable"


def test_an_unknown_v5_reason_code_is_named_in_hex() -> None:
    assert connack(b"\x00\xa0\x00", 5).refused == "refused (reason code 0xA0)"


def test_a_v5_connack_below_0x80_accepts() -> None:
    assert connack(b"\x01\x00\x00", 5).refused is None


def test_a_v5_connack_without_properties_keeps_the_defaults() -> None:
    accepted = connack(b"\x00\x00", 5)
    assert accepted == Connack(None)
    assert accepted.receive_maximum == 65_535
    assert accepted.maximum_packet_size == 268_435_460
    assert accepted.retain_available
    assert accepted.maximum_qos == 2


def test_a_v5_connack_reads_the_brokers_limits_and_skips_user_properties() -> None:
    body = b"\x00\x00" + props(
        b"\x26" + field(b"region") + field(b"eu"),  # user property: skipped
        b"\x21\x00\x05",  # receive maximum 5
        b"\x27\x00\x01\x00\x00",  # maximum packet size 65536
        b"\x25\x00",  # retain not available
        b"\x24\x01",  # maximum QoS 1
        b"\x12" + field(b"assigned-id"),  # a string property: skipped
        b"\x13\x00\x3c",  # server keep alive 60
        b"\x26" + field(b"k") + field(b"v"),
    )
    assert connack(body, 5) == Connack(
        None,
        receive_maximum=5,
        maximum_packet_size=65_536,
        retain_available=False,
        maximum_qos=1,
        server_keep_alive=60,
    )


def test_a_v5_connack_with_a_property_length_of_two_bytes_is_read() -> None:
    entries = b"\x26" + field(b"k" * 150) + field(b"v") + b"\x21\x00\x07"
    length = bytes((len(entries) & 0x7F | 0x80, len(entries) >> 7))
    assert connack(b"\x00\x00" + length + entries, 5).receive_maximum == 7


@pytest.mark.parametrize(
    "properties",
    [b"\x01\x25", b"\x01\x24", b"\x02\x13\x00", b"\x01\x12", b"\x03\x26\x00\x00"],
)
def test_a_property_cut_at_the_packets_end_is_malformed_not_a_crash(properties: bytes) -> None:
    with pytest.raises(MalformedPacket, match="runs past"):
        connack(b"\x00\x00" + properties, 5)


@pytest.mark.parametrize(
    ("properties", "why"),
    [
        (b"\x03\x7f\x00\x00", "unknown MQTT 5 property 0x7F"),
        (b"\x05\x21\x00\x05", "properties run past their packet"),
        (b"\x02\x21\x00", "a property runs past its packet"),  # a two-byte value cut short
        (b"\x03\x27\x00\x00", "a property runs past its packet"),  # a four-byte value cut short
        (b"\x03\x1f\x00\x05", "a property runs past its packet"),  # a string cut short
        (b"\x04\x26\x00\x01k", "a property runs past its packet"),  # a user property half there
        (b"\x02\x21\x00\x05", "past their stated length"),  # length says 2, value is 3
        (b"\x80", "variable byte integer runs past its packet"),
        (b"\xff\xff\xff\xff\x01", "variable byte integer runs past its packet"),
    ],
)
def test_malformed_v5_connack_properties_raise_malformed_packet(
    properties: bytes, why: str
) -> None:
    with pytest.raises(MalformedPacket, match=why):
        connack(b"\x00\x00" + properties, 5)


# PUBACK


def test_a_311_puback_is_the_packet_id_and_success() -> None:
    assert puback(b"\x12\x34") == (0x1234, 0)


@pytest.mark.parametrize("code", [0x00, 0x10, 0x87, 0x97])
def test_a_v5_puback_carries_its_reason_code(code: int) -> None:
    assert puback(bytes((0xFF, 0xFF, code))) == (65_535, code)


def test_a_v5_puback_with_properties_still_reads_the_reason_code() -> None:
    assert puback(b"\x00\x09\x87" + props(b"\x1f" + field(b"acl"))) == (9, 0x87)


@pytest.mark.parametrize("body", [b"", b"\x00"])
def test_a_puback_shorter_than_two_bytes_is_malformed(body: bytes) -> None:
    with pytest.raises(MalformedPacket, match="PUBACK shorter than 2 bytes"):
        puback(body)


def test_the_packet_types_are_the_oasis_first_bytes() -> None:
    assert (CONNACK, PUBACK, PINGRESP, DISCONNECT) == (0x20, 0x40, 0xD0, 0xE0)


def test_the_reason_words_cover_the_codes_a_broker_refuses_with() -> None:
    assert all(code >= 0x80 for code in REASONS)
    assert REASONS[0x8E].startswith("session taken over")
    assert REASONS[0x97] == "quota exceeded"
