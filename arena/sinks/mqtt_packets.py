"""The few MQTT packets a publish-only client needs, as bytes: pure, no I/O.

MQTT 3.1.1 (protocol level 4) and MQTT 5 (level 5): CONNECT with a last will and
credentials, PUBLISH at QoS 0 or 1, PINGREQ, DISCONNECT; and the broker's CONNACK,
PUBACK, PINGRESP and (MQTT 5) DISCONNECT read back. Why not a library's client: aiomqtt
on paho costs about 60 µs of CPU per message, paho alone about 34, and a scripted table
makes an event every 27 µs; encoding a PUBLISH here costs under 1 µs
(benchmarks/README.md, the live feed). Subscribers (tests, gifts) use aiomqtt.

The layouts are the OASIS standards' (MQTT 3.1.1 §3, MQTT 5.0 §3): a fixed header
byte, the remaining length as a variable byte integer, then the packet's own fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.errors import ArenaError

__all__ = [
    "CONNACK",
    "DISCONNECT",
    "PINGREQ",
    "PINGRESP",
    "PUBACK",
    "REASONS",
    "Connack",
    "MalformedPacket",
    "PacketError",
    "connack",
    "connect",
    "disconnect",
    "puback",
    "publish",
    "read_packets",
]

CONNACK: Final = 0x20
PUBACK: Final = 0x40
PINGRESP: Final = 0xD0
DISCONNECT: Final = 0xE0

PINGREQ: Final = b"\xc0\x00"

_MAX_REMAINING: Final = 268_435_455
"""The largest remaining length MQTT can express (four length bytes)."""

_CONNACK_311: Final = {
    1: 'the broker refused the protocol version (try [mqtt] protocol = "3.1.1" or "5")',
    2: "the broker refused the client id ([mqtt] client_id)",
    3: "the broker is unavailable",
    4: "bad user name or password",
    5: "not authorized",
}
REASONS: Final = {
    0x80: "unspecified error",
    0x81: "malformed packet",
    0x82: "protocol error",
    0x83: "implementation specific error",
    0x84: 'unsupported protocol version (try [mqtt] protocol = "3.1.1")',
    0x85: "client identifier not valid ([mqtt] client_id)",
    0x86: "bad user name or password",
    0x87: "not authorized",
    0x88: "server unavailable",
    0x89: "server busy",
    0x8A: "banned",
    0x8B: "server shutting down",
    0x8C: "bad authentication method",
    0x8D: "keep alive timeout",
    0x8E: "session taken over (another client connected with the same client id)",
    0x90: "topic name invalid",
    0x93: "receive maximum exceeded",
    0x95: "packet too large",
    0x97: "quota exceeded",
    0x98: "administrative action",
    0x99: "payload format invalid",
    0x9A: "retain not supported",
    0x9B: "QoS not supported",
    0x9C: "use another server",
    0x9D: "server moved",
    0x9F: "connection rate exceeded",
}
"""MQTT 5 reason codes a broker may answer with (CONNACK, PUBACK, DISCONNECT)."""

# MQTT 5 properties, by identifier: how to skip each one's value
_BYTE_PROPS: Final = frozenset({0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A})
_TWO_BYTE_PROPS: Final = frozenset({0x13, 0x21, 0x22, 0x23})
_FOUR_BYTE_PROPS: Final = frozenset({0x02, 0x11, 0x18, 0x27})
_FIXED_SIZES: Final = {
    **dict.fromkeys(_BYTE_PROPS, 1),
    **dict.fromkeys(_TWO_BYTE_PROPS, 2),
    **dict.fromkeys(_FOUR_BYTE_PROPS, 4),
}
_VARINT_PROPS: Final = frozenset({0x0B})
_LENGTH_PROPS: Final = frozenset({0x03, 0x08, 0x09, 0x12, 0x15, 0x16, 0x1A, 0x1C, 0x1F})
_PAIR_PROPS: Final = frozenset({0x26})
_RECEIVE_MAXIMUM: Final = 0x21
_SERVER_KEEP_ALIVE: Final = 0x13
_MAXIMUM_PACKET_SIZE: Final = 0x27
_MAXIMUM_QOS: Final = 0x24
_RETAIN_AVAILABLE: Final = 0x25
_REASON_STRING: Final = 0x1F


class PacketError(ArenaError, ValueError):
    """A value MQTT cannot carry (a string over 65535 bytes, a packet over 256 MB)."""


class MalformedPacket(PacketError):
    """The broker sent bytes that are no MQTT packet we can read."""


def _length(n: int) -> bytes:
    """A variable byte integer (the remaining length, property lengths)."""
    if n < 0x80:
        return bytes((n,))
    if n > _MAX_REMAINING:
        raise PacketError(f"an MQTT packet holds at most {_MAX_REMAINING} bytes, not {n}")
    out = bytearray()
    while True:
        digit, n = n & 0x7F, n >> 7
        if n:
            out.append(digit | 0x80)
        else:
            out.append(digit)
            return bytes(out)


def _field(data: bytes) -> bytes:
    """A length-prefixed string or binary field."""
    if len(data) > 0xFFFF:
        raise PacketError(f"an MQTT string holds at most 65535 bytes, not {len(data)}")
    return len(data).to_bytes(2, "big") + data


def connect(
    *,
    client_id: str,
    version: int,
    keepalive_s: int,
    will: tuple[str, bytes] | None = None,
    username: str | None = None,
    password: str | None = None,
) -> bytes:
    """CONNECT with a clean session; the will (topic, payload) at QoS 1, retained."""
    flags = 0x02  # clean session / clean start
    payload = [_field(client_id.encode())]
    if will is not None:
        flags |= 0x04 | 0x08 | 0x20  # will, will QoS 1, will retain
        topic, message = will
        if version == 5:
            payload.append(b"\x00")  # no will properties
        payload += [_field(topic.encode()), _field(message)]
    if username is not None:
        flags |= 0x80
        payload.append(_field(username.encode()))
    if password is not None:
        flags |= 0x40
        payload.append(_field(password.encode()))
    header = _field(b"MQTT") + bytes((version, flags)) + keepalive_s.to_bytes(2, "big")
    if version == 5:
        header += b"\x00"  # no properties: the session ends with the connection
    body = header + b"".join(payload)
    return b"\x10" + _length(len(body)) + body


def publish(
    topic: bytes, payload: bytes, *, packet_id: int, version: int, retain: bool = False
) -> bytes:
    """PUBLISH at QoS 1 (``packet_id`` > 0) or QoS 0 (``packet_id`` 0)."""
    first = 0x30 | (0x02 if packet_id else 0) | (0x01 if retain else 0)
    head = len(topic).to_bytes(2, "big") + topic
    if packet_id:
        head += packet_id.to_bytes(2, "big")
    if version == 5:
        head += b"\x00"  # no properties
    size = len(head) + len(payload)
    return bytes((first,)) + _length(size) + head + payload


def disconnect() -> bytes:
    """DISCONNECT, normal: the broker drops the will."""
    return b"\xe0\x00"


@dataclass(frozen=True)
class Connack:
    """What the broker answered to CONNECT."""

    refused: str | None
    """None when accepted, else why, in words."""
    receive_maximum: int = 65_535
    """QoS 1 messages the broker takes unacknowledged at once (MQTT 5)."""
    maximum_packet_size: int = _MAX_REMAINING + 5
    """The largest packet the broker takes (MQTT 5)."""
    retain_available: bool = True
    maximum_qos: int = 2
    server_keep_alive: int | None = None
    """The keepalive the broker wants instead of ours (MQTT 5), in seconds."""


def connack(body: bytes, version: int) -> Connack:
    """Read a CONNACK's variable header (and MQTT 5 properties)."""
    if len(body) < 2:
        raise MalformedPacket("a CONNACK shorter than 2 bytes")
    code = body[1]
    if version != 5:
        refused = None if code == 0 else _CONNACK_311.get(code, f"refused (code {code})")
        return Connack(refused)
    if code in _CONNACK_311 and len(body) == 2:  # a 3.1.1 broker answering MQTT 5
        return Connack(_CONNACK_311[code])
    props = _properties(body, 2)
    reason = props.get(_REASON_STRING)
    if code != 0:
        words = REASONS.get(code, f"refused (reason code 0x{code:02X})")
        if isinstance(reason, bytes) and reason:
            words += f": {reason.decode(errors='replace')}"
        return Connack(words)
    return Connack(
        None,
        receive_maximum=_int(props, _RECEIVE_MAXIMUM, 65_535),
        maximum_packet_size=_int(props, _MAXIMUM_PACKET_SIZE, _MAX_REMAINING + 5),
        retain_available=bool(_int(props, _RETAIN_AVAILABLE, 1)),
        maximum_qos=_int(props, _MAXIMUM_QOS, 2),
        server_keep_alive=_int(props, _SERVER_KEEP_ALIVE, -1)
        if _SERVER_KEEP_ALIVE in props
        else None,
    )


def puback(body: bytes) -> tuple[int, int]:
    """A PUBACK's (packet id, reason code); the code is 0 unless MQTT 5 says otherwise."""
    if len(body) < 2:
        raise MalformedPacket("a PUBACK shorter than 2 bytes")
    return (body[0] << 8) | body[1], body[2] if len(body) > 2 else 0


def _int(props: dict[int, int | bytes], key: int, default: int) -> int:
    value = props.get(key, default)
    return value if isinstance(value, int) else default


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """A variable byte integer at ``at``: (value, the index after it)."""
    value = shift = 0
    while True:
        if at >= len(data) or shift > 21:
            raise MalformedPacket("a variable byte integer runs past its packet")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _properties(data: bytes, at: int) -> dict[int, int | bytes]:
    """MQTT 5 properties from ``at`` (absent: none); user properties are skipped."""
    if at >= len(data):
        return {}
    length, at = _varint(data, at)
    end = at + length
    if end > len(data):
        raise MalformedPacket("properties run past their packet")
    props: dict[int, int | bytes] = {}
    while at < end:
        at = _property(data, at, props)
    if at != end:
        raise MalformedPacket("properties run past their stated length")
    return props


def _property(data: bytes, at: int, props: dict[int, int | bytes]) -> int:
    """Read one property at ``at`` into ``props``; the index after it."""
    key, at = _varint(data, at)
    size = _FIXED_SIZES.get(key)
    if size is not None:
        if at + size > len(data):
            raise MalformedPacket("a property runs past its packet")
        props[key] = data[at] if size == 1 else int.from_bytes(data[at : at + size], "big")
        return at + size
    if key in _VARINT_PROPS:
        props[key], at = _varint(data, at)
        return at
    if key in _LENGTH_PROPS:
        return _skip_field(data, at, into=(props, key))
    if key in _PAIR_PROPS:
        return _skip_field(data, _skip_field(data, at))
    raise MalformedPacket(f"unknown MQTT 5 property 0x{key:02X}")


def _skip_field(
    data: bytes, at: int, *, into: tuple[dict[int, int | bytes], int] | None = None
) -> int:
    """Past one length-prefixed field (kept in ``into`` if given)."""
    end = at + 2 + int.from_bytes(data[at : at + 2], "big")
    if at + 2 > len(data) or end > len(data):
        raise MalformedPacket("a property runs past its packet")
    if into is not None:
        props, key = into
        props[key] = data[at + 2 : end]
    return end


def read_packets(buffer: bytearray) -> list[tuple[int, bytes]]:
    """Take every whole packet off the front of ``buffer``: (first byte, body) each;
    a partial packet at the end stays for the next read."""
    packets: list[tuple[int, bytes]] = []
    at, size = 0, len(buffer)
    while at + 2 <= size:
        first = buffer[at]
        length = shift = 0
        cursor = at + 1
        while True:
            if cursor >= size:
                del buffer[:at]
                return packets
            byte = buffer[cursor]
            cursor += 1
            length |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift > 21:
                raise MalformedPacket("a remaining length longer than four bytes")
        end = cursor + length
        if end > size:
            break
        packets.append((first, bytes(buffer[cursor:end])))
        at = end
    del buffer[:at]
    return packets
