"""The table clock against a fake time source: every timing rule (C.TIME.1-3, M.END.2), pause and adjust,
refusals. The clock never reads the time itself; these tests move a fake one by hand."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import clock as ck
from engine.errors import IllegalCommand, InvalidCommand

PLAYERS = ("A", "B", "C", "D")


@dataclass
class FakeTime:
    """A hand-moved time source (seconds on an arbitrary scale, like time.monotonic)."""

    now: float = 1_000.0

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


class Table:
    """A clock plus a fake time: `t.do(ck.Paused)` records the event at the fake now."""

    def __init__(self, config: ck.ClockConfig) -> None:
        self.time = FakeTime()
        self.clock = ck.new_clock(config)

    def do(self, cls: type[ck.ClockEvent], **kw: object) -> ck.Clock:
        self.clock = ck.step(self.clock, cls(at=self.time.now, **kw))
        return self.clock

    def wait(self, seconds: float) -> ck.ClockView:
        self.time.advance(seconds)
        return self.view()

    def view(self) -> ck.ClockView:
        return ck.view(self.clock, self.time.now)


def catan(players: tuple[str, ...] = PLAYERS) -> Table:
    return Table(ck.catan_config(players))


def place_all(t: Table, each: float = 30) -> None:
    for _ in range(t.clock.config.settlements):
        t.wait(each)
        t.do(ck.PlacementDone)


# ---- C.TIME.1: placement ----


def test_catan_before_start_shows_the_full_68_minutes() -> None:
    v = catan().view()
    assert v.phase == "not_started"
    assert v.total_remaining == 68 * 60  # C.TIME.1: 8 + 60
    assert v.settlements == 8 and v.placement_turn == "A" and v.settlement == 1


def test_catan_placement_one_minute_per_settlement_in_snake_order() -> None:
    """C.TIME.1: eight settlements, one minute each; the fourth player places twice running."""
    t = catan()
    t.do(ck.Started)
    v = t.view()
    assert v.phase == "placement" and v.phase_remaining == 60 and v.placement_remaining == 8 * 60
    assert v.total_remaining == 68 * 60
    order = []
    for _ in range(8):
        order.append(t.view().placement_turn)
        t.wait(60)
        t.do(ck.PlacementDone)
    assert order == ["A", "B", "C", "D", "D", "C", "B", "A"]
    v = t.view()
    assert v.phase == "play" and v.phase_remaining == 60 * 60 and v.placement_turn is None


def test_catan_early_finish_hands_over_at_once_and_play_starts_when_all_placed() -> None:
    """C.TIME.1: the next player starts without waiting for the minute to end; unused seconds are not kept;
    play starts the moment the last settlement is down, for a full 60 minutes."""
    t = catan()
    t.do(ck.Started)
    t.wait(10)
    t.do(ck.PlacementDone, player="A")
    v = t.view()
    assert v.placement_turn == "B" and v.settlement == 2
    assert v.phase_remaining == 60  # B's own full minute starts now, not at 1:00
    assert v.placement_remaining == 7 * 60
    assert v.deadline == t.time.now + 60
    for _ in range(7):
        t.wait(5)
        t.do(ck.PlacementDone)
    v = t.view()
    assert v.phase == "play" and v.phase_remaining == 3600 and v.total_remaining == 3600
    assert v.game_seconds == 45
    assert t.wait(3599).phase == "play"
    assert t.wait(1).phase == "times_up"  # 45 s + 60 min: the game ran 60:45, not 68:00


def test_catan_placement_overrun_is_flagged_not_skipped() -> None:
    """C.TIME.1: a settlement late past its minute is the referee's matter (penalty); the clock flags it and
    keeps that player on turn until they place."""
    t = catan()
    t.do(ck.Started)
    v = t.wait(75)
    assert v.phase == "placement" and v.placement_turn == "A"
    assert v.phase_remaining == 0 and v.overtime == 15
    assert "placement_overdue" in v.alerts
    t.do(ck.PlacementDone)
    v = t.view()
    assert v.placement_turn == "B" and v.phase_remaining == 60 and v.alerts == ()


def test_catan_placement_checks_the_player_on_turn() -> None:
    t = catan()
    t.do(ck.Started)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.PlacementDone, player="B")
    assert err.value.rule == "C.TIME.1"


def test_catan_three_player_table_places_six_settlements() -> None:
    """C.TABLE.1 three-player table: two settlements each at a minute each (6 minutes)."""
    t = catan(("A", "B", "C"))
    t.do(ck.Started)
    v = t.view()
    assert v.settlements == 6 and v.total_remaining == 66 * 60
    place_all(t, 60)
    assert t.view().phase == "play"


def test_catan_no_placement_after_play_started() -> None:
    t = catan()
    t.do(ck.Started)
    place_all(t)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.PlacementDone)
    assert err.value.rule == "C.TIME.1"


# ---- C.TIME.1-2: 60 minutes of play, immediate end ----


def test_catan_play_60_minutes_then_times_up_with_sound() -> None:
    t = catan()
    t.do(ck.Started)
    place_all(t, 60)
    v = t.wait(59 * 60 + 59)
    assert v.phase == "play" and v.phase_remaining == 1 and not v.sound
    v = t.wait(1)
    assert v.phase == "times_up" and "times_up" in v.alerts and v.sound
    assert not v.needs_end_signal  # Catan ends at the referee's signal, no engine procedure
    v = t.wait(30)
    assert v.phase == "times_up" and v.overtime == 30


def test_catan_end_signal_ends_at_once_and_later_plays_are_void() -> None:
    """C.TIME.2: at the signal the game ends mid-action; plays after it are void."""
    t = catan()
    t.do(ck.Started)
    place_all(t, 60)
    t.wait(60 * 60)
    t.do(ck.Ended, reason="time")
    end = t.time.now
    v = t.wait(120)
    assert v.phase == "ended" and v.end_reason == "time" and v.alerts == () and not v.sound
    assert v.game_seconds == 68 * 60  # frozen at the signal
    assert ck.play_counts(t.clock, end - 1)
    assert not ck.play_counts(t.clock, end)
    assert not ck.play_counts(t.clock, end + 5)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Ended)
    assert err.value.rule == "C.TIME.2"
    for cls in (ck.Paused, ck.Resumed, ck.PlacementDone):
        with pytest.raises(IllegalCommand):
            t.do(cls)


def test_plays_during_a_past_pause_did_not_count() -> None:
    """C.TIME.3: nothing is played while the referee has the game stopped, even once it has resumed."""
    t = catan()
    t.do(ck.Started)
    t.wait(10)
    t.do(ck.Paused)
    paused = t.time.now
    t.wait(30)
    t.do(ck.Resumed)
    resumed = t.time.now
    t.wait(5)
    assert ck.play_counts(t.clock, paused - 1)
    assert not ck.play_counts(t.clock, paused + 10)
    assert ck.play_counts(t.clock, resumed)
    assert not ck.play_counts(t.clock, 0)  # before the start


def test_catan_signal_may_come_before_time_up() -> None:
    """C.TIME.2 / C.WIN.1: the referee's signal (or a declared win) ends the game whenever it comes."""
    t = catan()
    t.do(ck.Started)
    place_all(t)
    t.wait(1200)
    t.do(ck.Ended, reason="win")
    v = t.wait(5000)
    assert v.phase == "ended" and v.end_reason == "win" and v.phase_remaining == 0 and v.total_remaining == 0


# ---- C.TIME.3: referee call ----


def test_pause_adds_the_paused_time() -> None:
    """C.TIME.3: the game stops while the referee is called; the paused time is added to the game."""
    t = catan()
    t.do(ck.Started)
    place_all(t, 60)
    t.wait(600)
    t.do(ck.Paused)
    v = t.wait(300)
    assert v.phase == "paused" and v.paused_phase == "play" and "referee_called" in v.alerts
    assert v.phase_remaining == 50 * 60  # frozen
    assert v.paused_seconds == 300 and v.deadline is None
    t.do(ck.Resumed)
    v = t.view()
    assert v.phase == "play" and v.phase_remaining == 50 * 60 and v.alerts == ()
    assert v.paused_seconds == 300
    assert t.wait(50 * 60 - 1).phase == "play"  # play ends 5 minutes later on the wall clock
    assert t.wait(1).phase == "times_up"


def test_pause_during_placement_stops_the_settlement_minute() -> None:
    t = catan()
    t.do(ck.Started)
    t.wait(40)
    t.do(ck.Paused)
    t.wait(500)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.PlacementDone)
    assert err.value.rule == "C.TIME.3"
    t.do(ck.Resumed)
    v = t.view()
    assert v.phase == "placement" and v.phase_remaining == 20 and "placement_overdue" not in v.alerts


def test_several_pauses_add_up() -> None:
    t = Table(ck.monopoly_config())
    t.do(ck.Started)
    for _ in range(3):
        t.wait(100)
        t.do(ck.Paused)
        t.wait(50)
        t.do(ck.Resumed)
    v = t.view()
    assert v.paused_seconds == 150 and v.game_seconds == 300 and v.phase_remaining == 90 * 60 - 300
    assert t.clock.pauses == 3


def test_pause_and_resume_refusals() -> None:
    t = catan()
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Paused)
    assert err.value.rule == "C.TIME.3"
    t.do(ck.Started)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Resumed)
    assert err.value.rule == "C.TIME.3"
    t.do(ck.Paused)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Paused)
    assert err.value.rule == "C.TIME.3"


def test_other_pause_reasons_are_not_a_referee_call() -> None:
    t = catan()
    t.do(ck.Started)
    t.do(ck.Paused, reason="break")
    v = t.view()
    assert v.alerts == ("paused",) and v.pause_reason == "break"


# ---- adjusting time (C.TIME.2: the referee may extend) ----


def test_adjust_only_while_paused() -> None:
    t = catan()
    t.do(ck.Started)
    place_all(t)
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Adjusted, seconds=60)
    assert err.value.rule == "C.TIME.2"
    before = t.clock
    assert t.view().phase_remaining == 3600
    assert t.clock is before  # refused: unchanged


def test_adjust_adds_and_removes_time_while_paused() -> None:
    t = catan()
    t.do(ck.Started)
    place_all(t)
    t.wait(1000)
    t.do(ck.Paused)
    t.do(ck.Adjusted, seconds=300)
    assert t.view().phase_remaining == 3600 - 1000 + 300
    t.do(ck.Adjusted, seconds=-120)
    v = t.view()
    assert v.phase_remaining == 3600 - 1000 + 180 and v.adjusted_seconds == 180
    t.do(ck.Resumed)
    assert t.wait(2780 - 1).phase == "play"
    assert t.wait(1).phase == "times_up"


def test_referee_extends_after_time_up() -> None:
    """C.TIME.2: at time up the referee may extend: pause, add time, resume."""
    t = catan()
    t.do(ck.Started)
    place_all(t)
    t.wait(3600 + 20)
    assert t.view().phase == "times_up"
    t.do(ck.Paused)
    v = t.view()
    assert v.phase == "paused" and v.paused_phase == "times_up" and not v.sound
    t.do(ck.Adjusted, seconds=300)
    t.do(ck.Resumed)
    v = t.view()
    assert v.phase == "play" and v.phase_remaining == 280


def test_removing_time_can_bring_time_up_at_once() -> None:
    t = Table(ck.monopoly_config(10))
    t.do(ck.Started)
    t.wait(300)
    t.do(ck.Paused)
    t.do(ck.Adjusted, seconds=-400)
    t.do(ck.Resumed)
    v = t.view()
    assert v.phase == "times_up" and v.overtime == 100 and v.needs_end_signal


def test_adjust_in_placement_moves_the_current_settlement_minute() -> None:
    t = catan()
    t.do(ck.Started)
    t.do(ck.Paused)
    t.do(ck.Adjusted, seconds=30)
    t.do(ck.Resumed)
    v = t.view()
    assert v.phase_remaining == 90 and v.total_remaining == 90 + 7 * 60 + 3600
    t.do(ck.PlacementDone)
    assert t.view().phase_remaining == 60  # the next settlement has its plain minute


def test_zero_adjustment_is_malformed() -> None:
    t = catan()
    t.do(ck.Started)
    t.do(ck.Paused)
    with pytest.raises(InvalidCommand):
        t.do(ck.Adjusted, seconds=0)


# ---- M.END.2: the Monopoly time game ----


def test_monopoly_default_90_minutes_then_needs_the_end_signal() -> None:
    """M.END.2: 90 minutes is usual; at time up the table must give the engine its end signal."""
    t = Table(ck.monopoly_config())
    assert t.view().total_remaining == 90 * 60 and t.view().settlements == 0
    t.do(ck.Started)
    v = t.wait(90 * 60 - 1)
    assert v.phase == "play" and v.phase_remaining == 1 and not v.needs_end_signal
    v = t.wait(1)
    assert v.phase == "times_up" and v.needs_end_signal and v.sound and "times_up" in v.alerts
    t.do(ck.Ended, reason="time")
    v = t.view()
    assert v.phase == "ended" and not v.needs_end_signal


def test_monopoly_event_sets_its_own_limit() -> None:
    """M.END.2: tournaments set their own end time."""
    t = Table(ck.monopoly_config(45))
    t.do(ck.Started)
    assert t.wait(45 * 60 - 1).phase == "play"
    assert t.wait(1).needs_end_signal


def test_monopoly_paused_at_time_up_does_not_signal() -> None:
    t = Table(ck.monopoly_config(1))
    t.do(ck.Started)
    t.wait(61)
    t.do(ck.Paused)
    v = t.view()
    assert v.phase == "paused" and not v.needs_end_signal and "times_up" in v.alerts


def test_monopoly_refusals_cite_m_end_2() -> None:
    t = Table(ck.monopoly_config())
    with pytest.raises(IllegalCommand) as err:
        t.do(ck.Ended)
    assert err.value.rule == "M.END.2"
    t.do(ck.Started)
    for cls, kw in ((ck.PlacementDone, {}), (ck.Adjusted, {"seconds": 60}), (ck.Resumed, {}), (ck.Started, {})):
        with pytest.raises(IllegalCommand) as err:
            t.do(cls, **kw)
        assert err.value.rule == "M.END.2"


def test_monopoly_config_refuses_a_non_positive_limit() -> None:
    with pytest.raises(InvalidCommand):
        ck.monopoly_config(0)


def test_catan_config_needs_three_or_four_players() -> None:
    for players in (("A", "B"), ("A", "B", "C", "D", "E"), ("A", "A", "B")):
        with pytest.raises(InvalidCommand):
            ck.catan_config(players)


# ---- event sourcing ----


def test_events_round_trip_through_json_and_fold() -> None:
    t = catan()
    t.do(ck.Started)
    t.wait(20)
    t.do(ck.PlacementDone, player="A")
    t.wait(5)
    t.do(ck.Paused)
    t.wait(40)
    t.do(ck.Adjusted, seconds=15)
    t.do(ck.Resumed)
    data = t.clock.to_json()
    again = ck.clock_from_json(data)
    assert again == t.clock
    assert ck.view(again, t.time.now + 7) == ck.view(t.clock, t.time.now + 7)


def test_events_may_not_go_back_in_time() -> None:
    c = ck.step(ck.new_clock(ck.monopoly_config()), ck.Started(at=100))
    with pytest.raises(InvalidCommand):
        ck.step(c, ck.Paused(at=99))


def test_unknown_or_malformed_events_are_refused() -> None:
    for data in ({"type": "explode", "at": 1}, {"type": "paused"}, {"type": "paused", "at": 1, "colour": "red"}):
        with pytest.raises(InvalidCommand):
            ck.event_from_json(data)


def test_view_json_is_plain() -> None:
    t = catan()
    t.do(ck.Started)
    d = t.view().to_json()
    assert d["phase"] == "placement" and d["placement_turn"] == "A" and d["alerts"] == []


# ---- properties over random event sequences ----

_ACTIONS = st.lists(
    st.tuples(st.sampled_from(["placement_done", "paused", "resumed", "adjusted", "wait"]),
              st.integers(min_value=1, max_value=400)),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(_ACTIONS)
def test_game_time_plus_pauses_is_wall_time(actions: list[tuple[str, int]]) -> None:
    """C.TIME.3 as an invariant: wall time since start = game time + paused time, until the end; the
    remaining time never goes up while the clock runs; refused events change nothing."""
    t = catan()
    t.do(ck.Started)
    start = t.time.now
    for name, n in actions:
        before = t.clock
        v0 = t.view()
        if name == "wait":
            v1 = t.wait(n)
            if v0.phase not in ("paused",) and v1.phase == v0.phase and v0.phase in ("placement", "play"):
                assert v1.phase_remaining <= v0.phase_remaining
            continue
        kw: dict[str, object] = {"seconds": n - 200 or 1} if name == "adjusted" else {}
        cls = ck.EVENT_TYPES[name]
        try:
            t.do(cls, **kw)
        except IllegalCommand:
            assert t.clock is before
        v = t.view()
        assert v.game_seconds + v.paused_seconds == pytest.approx(t.time.now - start)
        assert v.phase_remaining >= 0 and v.total_remaining >= v.phase_remaining
