"""A sink that fails is counted and logged, never dropped; one that keeps failing says so.

Specification: issue 25, "One failed emit silences a sink for the rest of the match" (a
sink should survive a bad event: count it, log it, go on; a sink that keeps failing must
say so where viewers' tools look: the retained status, the overlay's state). The policy
is arena/sinks/health.py's, the same for a sink a table awaits itself and one behind a
queue. Real tables play real scripted matches; the sinks that fail are small fakes. The
retained status over a real Mosquitto is tested in test_mqtt.py, the overlay's pages in
test_server.py and test_overlay_browser.py.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from arena.events import Event
from arena.games.ddz.agents.scripted import RandomAgent
from arena.logs import EVENT_ATTRIBUTE
from arena.sinks.base import CollectingSink
from arena.sinks.health import (
    DEGRADED_AFTER,
    DELIVERY_GRACE_S,
    LOG_EVERY_S,
    RECOVER_AFTER,
    WINDOW_FAILURES,
    WINDOW_S,
    Degraded,
    DeliveryWatch,
    GuardedSink,
    SinkHealth,
    SinkHealthBoard,
    health_of,
)
from arena.sinks.queued import QueuedSink, queued_sinks
from arena.table import Table, TableSettings, play_match


class FlakySink(CollectingSink):
    """Raises at the calls ``fail_at`` names (1 is the first event it is handed), and at
    every call while :attr:`broken`; keeps the events it takes."""

    def __init__(self, *fail_at: int, broken: bool = False) -> None:
        super().__init__()
        self.fail_at = set(fail_at)
        self.broken = broken
        self.calls = 0
        self.refused: list[Event] = []

    async def emit(self, event: Event) -> None:
        self.calls += 1
        if self.broken or self.calls in self.fail_at:
            self.refused.append(event)
            raise RuntimeError(f"the display choked on event {event.seq}")
        self.events.append(event)


class Told:
    """Reports health (as the MQTT sink and the overlay hub do): keeps what it is told."""

    def __init__(self) -> None:
        self.told: list[Degraded] = []

    def health_changed(self, degraded: Degraded) -> None:
        self.told.append(degraded)

    async def emit(self, event: Event) -> None:
        """A sink too, that never fails."""

    async def close(self) -> None:
        """Nothing to release."""


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def logged(caplog: pytest.LogCaptureFixture, *names: str) -> list[dict[str, Any]]:
    return [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if getattr(r, EVENT_ATTRIBUTE, {}).get("event") in names
    ]


def table_with(*sinks: Any) -> Table:
    agents = [RandomAgent(f"R{i}", seed=i) for i in range(3)]
    return Table(agents, sinks=list(sinks), settings=TableSettings(pace_s=0.0))


async def play_through(path: str, *sinks: Any, rounds: int = 2) -> list[Event]:
    """A match with the sinks awaited by the table itself (``direct``) or each behind a
    queue (``queued``, as ``arena play`` has them); every event the table emitted."""
    everything = CollectingSink()
    if path == "direct":
        await play_match(table_with(everything, *sinks), rounds=rounds, seed=3)
    else:
        async with queued_sinks(sinks) as queued:
            await play_match(table_with(everything, *queued), rounds=rounds, seed=3)
    return everything.events


PATHS = pytest.mark.parametrize("path", ["direct", "queued"])


# --- one bad event ---------------------------------------------------------------------


@PATHS
async def test_a_sink_that_raises_on_one_event_gets_every_other_event_and_the_results(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    flaky = FlakySink(5)
    emitted = await play_through(path, flaky)
    assert len(emitted) > 100
    assert flaky.refused == [emitted[4]]
    assert flaky.events == emitted[:4] + emitted[5:]  # every other event, in order
    assert [e.type for e in flaky.events].count("round_result") == 2
    assert flaky.events[-1].type == "match_ended"
    [line] = logged(caplog, "sink_failed", "sink_degraded")  # said once, with its cause
    assert line["event"] == "sink_failed"
    assert line["sink"] == "FlakySink"
    assert "the display choked on event 5" in line["error"]
    health = health_of(flaky)
    assert (health.failures, health.last_error, health.degraded) == (1, "RuntimeError", False)
    assert not health.unwell  # its successes since cleared it


@PATHS
async def test_a_sink_failing_on_every_event_keeps_getting_them_and_is_degraded(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Both paths count the same: every event a failure, the sink degraded after three,
    and two log lines for the whole match (the first failure, the degradation)."""
    caplog.set_level(logging.WARNING)
    broken = FlakySink(broken=True)
    good = CollectingSink()
    emitted = await play_through(path, broken, good)
    assert good.events == emitted
    assert broken.refused == emitted  # it was handed every one
    health = health_of(broken)
    assert health.failures == len(emitted)
    assert health.degraded
    lines = logged(caplog, "sink_failed", "sink_degraded")
    assert [line["event"] for line in lines] == ["sink_failed", "sink_degraded"]
    assert lines[1]["failures"] == DEGRADED_AFTER


async def test_a_queued_sink_and_the_table_share_one_record_per_sink() -> None:
    """However a sink is reached, its failures add up in one record (the status names
    the sink once)."""
    flaky = FlakySink(2, 4)
    queued = QueuedSink(flaky)
    assert queued.health is health_of(flaky) is GuardedSink(flaky).health
    await play_match(table_with(queued, flaky), rounds=1, seed=1)  # the same sink twice
    await queued.close()
    assert health_of(flaky).failures == 2


async def test_a_table_hands_a_sink_that_failed_its_events_through_a_guard() -> None:
    flaky = FlakySink(1)
    table = table_with(flaky)
    await play_match(table, rounds=1, seed=1)
    [guard] = table.sinks
    assert isinstance(guard, GuardedSink)
    assert guard.sink is flaky


async def test_a_sink_that_failed_at_one_table_recovers_through_the_next() -> None:
    """A table hands a sink that failed elsewhere (another table, a match before) its
    events through a guard from its next round on: its successes there count."""
    clock = Clock()
    flaky = FlakySink(broken=True)
    with SinkHealthBoard({"console": flaky}, clock=clock):
        await play_match(table_with(flaky), rounds=1, seed=1)
        assert health_of(flaky).degraded
        flaky.broken = False
        clock.now += WINDOW_S + 1
        fresh = table_with(flaky)
        assert fresh.sinks == [flaky]
        await play_match(fresh, rounds=1, seed=2)
    assert not health_of(flaky).degraded
    [guard] = fresh.sinks
    assert isinstance(guard, GuardedSink)
    assert guard.sink is flaky


async def test_a_close_that_fails_is_counted_not_raised() -> None:
    class BadClose(CollectingSink):
        async def close(self) -> None:
            raise OSError("stdout is gone")

    sink = BadClose()
    async with queued_sinks([sink]) as queued:
        await play_match(table_with(*queued), rounds=1, seed=1)
    health = health_of(sink)
    assert (health.failures, health.during, health.last_error) == (1, "close", "OSError")


# --- the policy ------------------------------------------------------------------------


def test_three_failures_in_a_row_degrade_and_twenty_successes_recover() -> None:
    clock = Clock()
    health = SinkHealth("s", clock=clock)
    for _ in range(DEGRADED_AFTER - 1):
        health.failed(RuntimeError())
    assert not health.degraded
    health.succeeded()  # a success between: the row starts again
    for _ in range(DEGRADED_AFTER - 1):
        health.failed(RuntimeError())
    assert not health.degraded
    health.failed(KeyError("x"))
    assert health.degraded
    assert health.report() == {
        "sink": "s",
        "failures": 2 * DEGRADED_AFTER - 1,
        "last_error": "KeyError",
        "during": "emit",
    }
    for _ in range(RECOVER_AFTER - 1):
        health.succeeded()
    assert health.degraded
    health.succeeded()
    assert not health.degraded
    assert not health.unwell


def test_failures_now_and_then_degrade_within_the_window_and_hold_off_recovery() -> None:
    clock = Clock()
    health = SinkHealth("s", clock=clock)

    def fail_once_in(successes: int) -> None:
        for _ in range(successes):
            health.succeeded()
        health.failed(ValueError())
        clock.now += 1.0

    for _ in range(WINDOW_FAILURES - 1):
        fail_once_in(5)  # never two in a row
    assert not health.degraded
    fail_once_in(5)
    assert health.degraded  # ten within the window
    for _ in range(RECOVER_AFTER * 3):
        health.succeeded()
    assert health.degraded  # twenty in a row, but the window is still full
    clock.now += WINDOW_S
    health.succeeded()
    assert not health.degraded


def test_a_failure_spread_thinner_than_the_window_never_degrades() -> None:
    clock = Clock()
    health = SinkHealth("s", clock=clock)
    for _ in range(5 * WINDOW_FAILURES):
        health.failed(ValueError())
        health.succeeded()
        clock.now += WINDOW_S / (WINDOW_FAILURES - 2)  # ten span more than the window
    assert not health.degraded
    assert health.failures == 5 * WINDOW_FAILURES


def test_a_sink_that_keeps_failing_is_logged_at_most_once_every_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    clock = Clock()
    health = SinkHealth("s", clock=clock)
    for _ in range(500):
        health.failed(RuntimeError("again"))
        clock.now += LOG_EVERY_S / 100  # 500 failures over 5 intervals
    lines = logged(caplog, "sink_failed", "sink_degraded")
    expected = ["sink_failed", "sink_degraded", *["sink_failed"] * 4]  # at 0, 10, ... 40 s
    assert [line["event"] for line in lines] == expected
    assert sum(line["failures_since_last_line"] for line in lines) == lines[-1]["failures"]
    assert lines[0]["degraded"] is False
    assert all(line["degraded"] for line in lines[1:])
    # the traceback only with the first line of each kind of error
    assert [r.exc_info is not None for r in caplog.records] == [True] + [False] * 5


# --- the board -------------------------------------------------------------------------


def test_a_board_tells_its_watchers_when_a_sink_degrades_keeps_failing_and_recovers() -> None:
    clock = Clock()
    told = Told()
    broken = FlakySink()
    board = SinkHealthBoard({"overlay": told, "console": broken}, clock=clock)
    health = health_of(broken)
    assert health.name == "console"
    for _ in range(DEGRADED_AFTER):
        health.failed(BrokenPipeError())
    assert told.told == [
        [{"sink": "console", "failures": 3, "last_error": "BrokenPipeError", "during": "emit"}]
    ]
    for _ in range(100):  # its count is told as often as it is logged, not per failure
        health.failed(BrokenPipeError())
    assert len(told.told) == 1
    clock.now += LOG_EVERY_S
    health.failed(BrokenPipeError())
    assert told.told[-1][0]["failures"] == 3 + 101
    clock.now += WINDOW_S + 1
    for _ in range(RECOVER_AFTER):
        health.succeeded()
    assert told.told[-1] == []
    board.close()
    health.failed(OSError())
    health.failed(OSError())
    health.failed(OSError())  # degraded again, on no board now
    assert told.told[-1] == []


def test_a_watcher_that_joins_late_is_told_at_once_and_one_that_raises_is_only_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = FlakySink()
    with SinkHealthBoard({"console": broken}) as board:
        for _ in range(DEGRADED_AFTER):
            health_of(broken).failed(RuntimeError())

        class Raising(Told):
            def health_changed(self, degraded: Degraded) -> None:
                raise RuntimeError("watcher bug")

        board.track(Raising(), "mqtt")
        late = Told()
        board.track(late, "overlay")
        assert [entry["sink"] for entry in late.told[0]] == ["console"]
    assert logged(caplog, "sink_health_report_failed")


def test_a_sink_without_weak_references_gets_a_record_of_its_own() -> None:
    class Slotted:
        __slots__ = ()

    sink = Slotted()
    assert health_of(sink) is not health_of(sink)
    assert health_of(sink).name == "Slotted"


async def test_a_guarded_spectator_output_counts_its_failures_apart_from_events() -> None:
    seen: list[int] = []

    class Output:
        async def emit_spectator(self, item: dict[str, Any]) -> None:
            if item["seq"] == 2:
                raise KeyError("hands")
            seen.append(item["seq"])

    output = Output()
    guard = GuardedSink(output)
    for seq in range(1, 5):
        await guard.emit_spectator({"kind": "event", "table": "t1", "seq": seq})
    assert seen == [1, 3, 4]
    assert (guard.health.failures, guard.health.during) == (1, "emit_spectator")


# --- a feed that delivers nothing (the acceptance review of issue 25) ----------------------
# The MQTT sink takes every event and hands it to its worker: what keeps the feed from
# delivering (its worker gone, its broker away or refusing) is a condition it says itself.
# The whole path over a real broker and real HTTP is in test_feed_health.py.


def test_a_condition_degrades_a_sink_that_never_failed_until_it_is_cleared(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    told = Told()
    feed = FlakySink()
    with SinkHealthBoard({"overlay": told, "mqtt": feed}):
        health = health_of(feed)
        health.set_condition("MQTT worker exited (code -9)")
        health.set_condition("MQTT worker exited (code -9)")  # the same: nothing new
        assert health.shown_degraded
        assert not health.degraded  # its failures say nothing of it
        health.set_condition(None)
    assert told.told == [
        [
            {
                "sink": "mqtt",
                "failures": 0,
                "last_error": "MQTT worker exited (code -9)",
                "during": "deliver",
            }
        ],
        [],
    ]
    lines = logged(caplog, "sink_degraded", "sink_recovered")
    assert [(line["event"], line["during"]) for line in lines] == [
        ("sink_degraded", "deliver"),
        ("sink_recovered", "deliver"),
    ]
    assert lines[0]["error"] == lines[1]["was"] == "MQTT worker exited (code -9)"


def test_a_condition_is_said_before_the_failures_and_outlasts_their_recovery() -> None:
    told = Told()
    feed = FlakySink()
    with SinkHealthBoard({"overlay": told, "mqtt": feed}):
        health = health_of(feed)
        for _ in range(DEGRADED_AFTER):
            health.failed(BrokenPipeError())
        health.set_condition("broker unreachable for 6 s, 3 events buffered")
        assert told.told[-1][0]["last_error"] == "broker unreachable for 6 s, 3 events buffered"
        for _ in range(RECOVER_AFTER):
            health.succeeded()
        assert not health.degraded
        assert [entry["sink"] for entry in told.told[-1]] == ["mqtt"]  # still: the condition


def watch_at(clock: Clock) -> DeliveryWatch:
    return DeliveryWatch(grace_s=DELIVERY_GRACE_S, clock=clock)


def test_a_broker_away_for_less_than_the_grace_is_never_told() -> None:
    """A broker restarting in a second must not make a viewer's badge flicker."""
    clock = Clock()
    watch = watch_at(clock)
    clock.now += 0.1
    watch.connected(waiting=0, dropped=0)
    watch.counted(accepted=1, refused=0, refusal=None)
    assert watch.news(waiting=0, dropped=0) == (False, None)
    watch.away("the connection was lost", dropped=0)
    for _ in range(int(DELIVERY_GRACE_S * 10) - 1):
        clock.now += 0.1
        assert watch.news(waiting=5, dropped=0) == (False, None)
    watch.connected(waiting=5, dropped=0)
    clock.now += 60
    assert watch.news(waiting=0, dropped=0) == (False, None)
    assert watch.last_outage == {
        "error": "broker unreachable, 5 events buffered (the connection was lost)",
        "lasted_s": round(DELIVERY_GRACE_S - 0.1, 1),
    }


def test_a_broker_away_past_the_grace_is_told_counted_then_cleared_when_it_takes_again() -> None:
    clock = Clock()
    watch = watch_at(clock)
    watch.connected(waiting=0, dropped=0)
    watch.counted(accepted=1, refused=0, refusal=None)
    watch.away("cannot connect", dropped=2)
    clock.now += DELIVERY_GRACE_S
    assert watch.news(waiting=40, dropped=2) == (
        True,
        "broker unreachable for 5 s, 40 events buffered (cannot connect)",
    )
    clock.now += 1  # its counts are told at most every LOG_EVERY_S
    assert watch.news(waiting=90, dropped=12) == (
        False,
        "broker unreachable for 5 s, 40 events buffered (cannot connect)",
    )
    clock.now += LOG_EVERY_S
    assert watch.news(waiting=100, dropped=50) == (
        True,
        "broker unreachable for 16 s, 100 events buffered, 48 dropped (cannot connect)",
    )
    watch.connected(waiting=100, dropped=50)
    assert watch.news(waiting=100, dropped=50) == (True, None)  # at once, not in 10 s
    assert watch.last_outage == {
        "error": "broker unreachable, 100 events buffered, 48 dropped (cannot connect)",
        "lasted_s": 16.0,
    }


def test_a_connection_lost_before_it_takes_a_message_does_not_end_the_outage() -> None:
    """A broker that takes the connection, then drops it at once (a session taken over,
    say): the outage goes on from when it began, so that it is told all the same."""
    clock = Clock()
    watch = watch_at(clock)
    for _ in range(int(DELIVERY_GRACE_S)):
        clock.now += 1
        watch.connected(waiting=0, dropped=0)
        watch.counted(accepted=0, refused=0, refusal=None)
        watch.away("the broker closed the connection: session taken over", dropped=0)
    told, words = watch.news(waiting=0, dropped=0)
    assert told
    assert words is not None
    assert words.startswith("broker unreachable for 5 s")


def test_refusals_are_told_at_once_and_cleared_only_once_messages_are_taken_again() -> None:
    clock = Clock()
    watch = watch_at(clock)
    watch.connected(waiting=0, dropped=0)
    watch.counted(accepted=3, refused=2, refusal="not authorized")
    assert watch.news(waiting=0, dropped=0) == (
        True,
        "the broker refused 2 messages (not authorized)",
    )
    clock.now += DELIVERY_GRACE_S * 4  # nothing taken since: still refused
    watch.counted(accepted=3 + RECOVER_AFTER - 1, refused=2, refusal="not authorized")
    assert watch.kind() == "refused"
    watch.counted(accepted=3 + RECOVER_AFTER, refused=2, refusal="not authorized")
    assert watch.news(waiting=0, dropped=0) == (True, None)
    assert watch.last_outage == {
        "error": "the broker refused 2 messages (not authorized)",
        "lasted_s": DELIVERY_GRACE_S * 4,
    }
    # refused now and then (a snapshot topic the ACL forbids): never cleared
    watch.counted(accepted=1000, refused=3, refusal="not authorized")
    for step in range(10):
        clock.now += 1
        watch.counted(accepted=2000 + 100 * step, refused=4 + step // 4, refusal="quota")
    assert watch.condition(waiting=0, dropped=0) == "the broker refused 4 messages (quota)"


def test_a_feed_that_stopped_is_degraded_for_good() -> None:
    clock = Clock()
    watch = watch_at(clock)
    watch.connected(waiting=0, dropped=0)
    watch.counted(accepted=5, refused=0, refusal=None)
    watch.stopped("the MQTT feed stopped: KeyError (an arena bug)")
    assert watch.news(waiting=0, dropped=0) == (
        True,
        "the MQTT feed stopped: KeyError (an arena bug)",
    )
    watch.counted(accepted=500, refused=0, refusal=None)
    assert watch.kind() == "stopped"


def test_a_conditions_words_never_show_a_known_secret() -> None:
    """They go to /healthz, the pages and the status as they are."""
    from arena.secrets import register_secret

    register_secret("hunter2-broker-secret", "BROKER_SECRET")
    health = SinkHealth("mqtt")
    health.set_condition("cannot connect: the broker said hunter2-broker-secret")
    assert health.report()["last_error"] == "cannot connect: the broker said ***"
