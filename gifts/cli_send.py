"""``arena gift send EFFECT``: a streamer's test gift, to see an effect on a live match.

The command is added to ``arena``'s parser by :func:`add_gift_command` and run by
:func:`run_gift_command`, which says every outcome itself, in ``arena``'s manner: one
line on stdout for what was sent where (exit 0); one ``arena: error: ...`` line on
stderr (a JSON object with ``--log-format json``) for a mistake on the command line or
in the config file (exit 2), or for a broker that cannot be reached or no arena there
to take the gift (exit 1: the command was right, try again when the arena plays).

A streamer sending a test gift wants to see it on the match, so the command first reads
the arena's retained status on the broker and sends nothing when no arena is online
there (:func:`gifts.send.send_gift`'s ``require_arena``); ``--force`` sends unchecked.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Final

import structlog
from pydantic import ValidationError

from arena.config import MqttSettings, load_config
from arena.errors import ConfigError
from arena.logs import add_logging_flags
from gifts.events import GiftEffect, GiftEvent

__all__ = ["EFFECTS_TEXT", "add_gift_command", "run_gift_command"]

EFFECTS_TEXT: Final = ", ".join(effect.value for effect in GiftEffect)
_FLAGS: Final = {
    "target_seat": "--seat",
    "table": "--table",
    "event_id": "--event-id",
    "display_name": "--viewer",
    "message": "--message",
}
"""The gift's fields the flags set: a refused value names the flag."""
_SEND_EPILOG: Final = """\
examples:
  arena gift send cheer --viewer 小明 --message "加油 Alpha!"
  arena gift send SWAP --seat 1 --table t1
  arena gift send effect --mqtt mqtt://studio.local:1883

The gift goes to <prefix>/gifts/in ([mqtt] topic_prefix, ddz-arena by default) at QoS 1,
marked as a test (platform "test"); an arena playing with gifts on applies it at the
table's next safe point, under the usual cooldowns (docs/gifts.md). Nothing is sent
when no arena says it is online on the broker (<prefix>/status; exit 1): --force sends
all the same.
"""


def add_gift_command(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``gift`` (with its one action, ``send``) to ``arena``'s commands."""
    gift = subparsers.add_parser(
        "gift",
        help="send a test gift to a running arena: arena gift send EFFECT [options]",
        description="Commands for viewer gifts.",
    )
    actions = gift.add_subparsers(dest="gift_action", required=True, metavar="ACTION")
    send = actions.add_parser(
        "send",
        help="publish one test gift over MQTT, naming its effect",
        description="Publish one test gift naming its effect to the arena's MQTT broker, "
        "as a platform bridge would: to see an effect on a live match.",
        epilog=_SEND_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    send.add_argument("effect", metavar="EFFECT", help=f"one of {EFFECTS_TEXT} (any case)")
    send.add_argument("--viewer", metavar="NAME", help="the viewer's name (default: anonymous)")
    send.add_argument(
        "--table", metavar="T", help="the table it is for (default: the arena's default table)"
    )
    send.add_argument(
        "--event-id", metavar="ID", help="the delivery's id (default: test- and random hex)"
    )
    send.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="the seat it targets, from 0 (default: the player the message names, else drawn)",
    )
    send.add_argument("--message", metavar="TEXT", default="", help="what the viewer wrote")
    send.add_argument(
        "--mqtt",
        metavar="URL",
        help="the broker, mqtt://host:port (mqtts:// for TLS); default: the --config "
        "file's [mqtt] broker, else 127.0.0.1:1883",
    )
    send.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="TOML config file whose [mqtt] section says the broker, topic prefix and "
        "credentials' variables (default: the built-in settings)",
    )
    send.add_argument(
        "--force",
        action="store_true",
        help="send without checking that an arena is online on the broker to take it",
    )
    add_logging_flags(send)


def run_gift_command(args: argparse.Namespace) -> int:
    """Run ``arena gift send`` as parsed; the exit status (see the module)."""
    # imported here, not above: every `arena` command builds this one's parser
    from arena.sinks.mqtt_publisher import broker_url
    from gifts.send import GiftSendError, send_gift
    from gifts.sources.mqtt_in import gifts_topic

    log_format = str(getattr(args, "log_format", "console"))
    try:
        effect = _effect(args.effect)
        settings = _settings(args.config, args.mqtt)
        gift = _gift(effect, args)
    except ConfigError as exc:
        return _fail(log_format, str(exc), status=2)
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    try:
        asyncio.run(send_gift(settings, gift, require_arena=not args.force))
    except ConfigError as exc:  # a credential's variable unset
        return _fail(log_format, str(exc), status=2)
    except GiftSendError as exc:
        return _fail(log_format, str(exc), status=1)
    print(f"sent {_described(gift)} to {broker}, topic {gifts_topic(settings)}", flush=True)
    return 0


def _effect(text: str) -> GiftEffect:
    try:
        return GiftEffect(text.upper())
    except ValueError:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise ConfigError(f"EFFECT: {shown!r} is no effect: one of {EFFECTS_TEXT}") from None


def _settings(config: Path | None, url: str | None) -> MqttSettings:
    """The ``[mqtt]`` settings of the config file (or the defaults), with ``--mqtt``'s
    broker in place of the file's."""
    from arena.sinks.mqtt import broker_from_url

    mqtt = load_config(config).mqtt
    if url is None:
        return mqtt
    try:
        broker = broker_from_url(url)
    except ConfigError as exc:
        raise ConfigError(f"--mqtt: {exc}") from None
    return MqttSettings.model_validate({**mqtt.model_dump(), **broker})


def _gift(effect: GiftEffect, args: argparse.Namespace) -> GiftEvent:
    """The test gift the flags describe; a value it refuses is a ConfigError naming
    the flag."""
    from gifts.send import gift_for_test

    try:
        return gift_for_test(
            effect,
            viewer=args.viewer,
            table=args.table,
            event_id=args.event_id,
            target=args.seat,
            message=args.message,
        )
    except ValidationError as exc:
        problems = [
            f"{_FLAGS.get(str(error['loc'][0]), error['loc'][0])}: "
            f"{error['msg'].removeprefix('Value error, ')}"
            for error in exc.errors(include_url=False, include_input=False)
            if error["loc"]
        ]
        raise ConfigError("; ".join(problems) or "the gift is not valid") from None


def _described(gift: GiftEvent) -> str:
    """``SWAP (event test-…, table t1, seat 1, from 小明)``: what was sent, in words."""
    parts = [f"event {gift.event_id}"]
    if gift.table is not None:
        parts.append(f"table {gift.table}")
    if gift.target_seat is not None:
        parts.append(f"seat {gift.target_seat}")
    parts.append(f"from {gift.shown_name}")
    if gift.message:
        parts.append(f"message {gift.message!r}")
    return f"{gift.effect} ({', '.join(parts)})"


def _fail(log_format: str, text: str, *, status: int) -> int:
    """A line on stderr per problem, as ``arena`` says its own (a JSON object each in
    json format), and the exit status."""
    for problem in text.splitlines() or ["failed"]:
        if log_format == "json":
            record = {"event": "command_failed", "error": problem, "level": "error"}
            structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "", record)
            line = json.dumps(record, ensure_ascii=False, default=str)
        else:
            line = f"arena: error: {problem}"
        print(line, file=sys.stderr, flush=True)
    return status
