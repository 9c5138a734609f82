"""Structured logging through the standard ``logging`` module.

A library never writes to stdout, and the application decides where its logs go. So every
arena module logs with ``log = get_logger(__name__)``: a structlog bound logger over
``logging.getLogger(name)``, whatever structlog's global configuration is. Unconfigured
(arena used as a library), a warning reaches stderr through Python's last-resort handler
as ``event key=value ...``; an application's own logging configuration takes it from
there. The ``arena`` command calls :func:`configure_logging` once: one stderr handler that
renders console or JSON lines with structlog's ``ProcessorFormatter``.

Context bound with ``structlog.contextvars.bound_contextvars`` (table, round, seat,
agent) is merged into every line.

No line holds a secret the arena knows (:mod:`arena.masking`): the fields' strings are
masked before any handler sees them, and each rendered line (its traceback included) is
masked again as the last step, whatever its format.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, Final, Literal, Protocol, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from arena.errors import ConfigError
from arena.masking import mask, masked

__all__ = [
    "EVENT_ATTRIBUTE",
    "LEVELS",
    "LogFormat",
    "Say",
    "add_logging_flags",
    "configure_logging",
    "configured_logging",
    "get_logger",
    "level_number",
    "reset_logging",
    "say",
    "sayer",
]

LogFormat = Literal["console", "json"]

LEVELS: Final = ("debug", "info", "warning", "error", "critical")
"""The log levels ``configure_logging`` and ``--log-level`` accept."""


def add_logging_flags(parser: argparse.ArgumentParser, *, shown: bool = True) -> None:
    """``--log-format`` and ``--log-level``, the same on every ``arena`` command
    (``shown=False`` keeps them out of a short ``--help``)."""
    parser.add_argument(
        "--log-format",
        choices=("console", "json"),
        default="console",
        help="stderr lines for people (default) or JSON objects, one a line"
        if shown
        else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--log-level",
        type=str.lower,
        choices=LEVELS,
        default="warning",
        help="the least important log lines to show (default: warning)"
        if shown
        else argparse.SUPPRESS,
    )


EVENT_ATTRIBUTE: Final = "arena_event"
"""The ``LogRecord`` attribute holding a line's event dict (for handlers and tests)."""


def _to_stdlib(
    logger: WrappedLogger, method_name: str, event_dict: EventDict
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Last processor: a readable message for any handler, the event dict for ours."""
    exc_info = event_dict.pop("exc_info", None)
    fields = " ".join(f"{key}={value!r}" for key, value in event_dict.items() if key != "event")
    message = f"{event_dict.get('event')} {fields}".rstrip()
    return (message,), {"exc_info": exc_info, "extra": {EVENT_ATTRIBUTE: event_dict}}


def _mask_fields(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """The line's fields with every known secret masked, for any handler."""
    masked_fields: EventDict = masked(event_dict)
    return masked_fields


def _mask_line(logger: WrappedLogger, method_name: str, line: str) -> str:
    """After the renderer: the whole line masked, a traceback or a repr included."""
    return mask(line)


# filter_by_level first: a line below the logger's level costs one isEnabledFor call.
_PROCESSORS: Final[list[Processor]] = [
    structlog.stdlib.filter_by_level,
    structlog.contextvars.merge_contextvars,
    _mask_fields,
    _to_stdlib,
]


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structlog logger writing to ``logging.getLogger(name)``; use ``__name__``."""
    return structlog.stdlib.BoundLogger(logging.getLogger(name), _PROCESSORS, {})


def _restore_event(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """Give a record logged by :func:`get_logger` back its fields (others keep their text)."""
    record: logging.LogRecord = event_dict["_record"]
    event = getattr(record, EVENT_ATTRIBUTE, None)
    if event is None:
        return event_dict
    restored = {"event": None, **event, "_record": record, "_from_structlog": False}
    if "exc_info" in event_dict:
        restored["exc_info"] = event_dict["exc_info"]
    return restored


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is at the time (as the last-resort handler does),
    so a replaced stderr (a test's capture, a redirect) is followed."""

    def __init__(self, level: int = logging.NOTSET) -> None:
        logging.Handler.__init__(self, level)

    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        """The current ``sys.stderr``."""
        return sys.stderr


def _formatter(fmt: LogFormat) -> logging.Formatter:
    renderer: Processor
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer(ensure_ascii=False)
        last: list[Processor] = [structlog.processors.format_exc_info, renderer]
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=sys.stderr.isatty(), exception_formatter=structlog.dev.plain_traceback
        )
        last = [renderer]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            _restore_event,
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *last,
            _mask_line,  # type: ignore[list-item]
        ],
    )


def level_number(level: str) -> int:
    """The ``logging`` number of a level name; ConfigError names the levels there are."""
    if level.lower() not in LEVELS:
        raise ConfigError(f"unknown log level {level!r}; choose one of {', '.join(LEVELS)}")
    return logging.getLevelNamesMapping()[level.upper()]


def say(log_format: str, event: str, text: str, *, level: str = "info", **fields: Any) -> None:
    """One line of a command's own on stderr: ``arena: text``, or with ``--log-format
    json`` a JSON object like every log line (event name, fields, level, timestamp), so
    a reader of JSON logs never meets a plain line."""
    if log_format == "json":
        record = {"event": event, **fields, "level": level}
        structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "", record)
        line = json.dumps(record, ensure_ascii=False, default=str)
    else:
        line = f"arena: {text}"
    sys.stderr.write(f"{mask(line)}\n")  # one write, not print's two: no other process's line
    sys.stderr.flush()  # (a tournament's workers share stderr) lands between them


class Say(Protocol):
    def __call__(self, event: str, text: str, /, *, level: str = "info", **fields: Any) -> None:
        """Print one line (and log it as ``event`` with ``fields``)."""
        ...


def sayer(log_format: str) -> Say:
    """:func:`say` for one log format, for code that says lines but need not know it."""

    def said(event: str, text: str, /, *, level: str = "info", **fields: Any) -> None:
        say(log_format, event, text, level=level, **fields)

    return said


def configure_logging(fmt: LogFormat = "console", level: str = "info") -> None:
    """Send every log line of the process to stderr, as console or JSON lines.

    For applications (the ``arena`` command): it sets the root logger's level and
    handler, replacing the handler an earlier call installed, and routes code that calls
    ``structlog.get_logger()`` directly through the same handler.
    """
    numeric = level_number(level)
    root = logging.getLogger()
    _remove_handlers(root)
    _level_before.setdefault("root", root.level)
    handler = _StderrHandler()
    handler.setFormatter(_formatter(fmt))
    root.addHandler(handler)
    root.setLevel(numeric)
    for name in QUIET_LIBRARIES:  # their DEBUG lines hold whole prompts: a seat's hand
        library = logging.getLogger(name)
        _level_before.setdefault(name, library.level)
        library.setLevel(max(numeric, logging.INFO))
    structlog.configure(
        processors=_PROCESSORS,
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    global _configured
    _configured = (fmt, level.lower())


def configured_logging() -> tuple[LogFormat, str] | None:
    """The format and level :func:`configure_logging` last set (None: not configured):
    what a child process needs to log as this one does, for it inherits no handler
    (tournament workers fork from a fork server started before the configuration)."""
    return _configured


_configured: tuple[LogFormat, str] | None = None


QUIET_LIBRARIES: Final = ("openai", "anthropic", "httpx", "httpcore")
"""Libraries whose DEBUG lines are not shown even at ``--log-level debug``: the model
SDKs log every request body, and a model seat's prompt holds that seat's cards."""

_level_before: dict[str, int] = {}
"""The root logger's (and the quieted libraries') level before the first
:func:`configure_logging`."""


def _remove_handlers(root: logging.Logger) -> None:
    for handler in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(handler)


def reset_logging() -> None:
    """Undo :func:`configure_logging` (for tests and programs that run ``main`` inside):
    its handler goes, the root level and structlog's configuration are as before."""
    global _configured
    _configured = None
    root = logging.getLogger()
    _remove_handlers(root)
    if "root" in _level_before:
        root.setLevel(_level_before.pop("root"))
    for name in QUIET_LIBRARIES:
        if name in _level_before:
            logging.getLogger(name).setLevel(_level_before.pop(name))
    structlog.reset_defaults()
