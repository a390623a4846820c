"""The tournament clock in the table service, with a fake time source: stored, folded on restart, the
referee's commands (start, placement, pause/resume, adjust while paused, end), Monopoly's automatic end
signal at time up (M.END.2, once), Catan's placement minutes and play (C.TIME.1-3), pushes to subscribers."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.clock import catan_config, monopoly_config
from hardware import store
from tests.hall.conftest import FakeTime, make_table


def test_monopoly_time_up_gives_the_end_signal_once_and_survives_a_restart(tmp_path: Path,
                                                                           fake_time: FakeTime) -> None:
    svc = make_table(tmp_path, clock=monopoly_config(), now=fake_time)
    c = svc.clock_json()
    assert c is not None and c["phase"] == "not_started" and c["phase_remaining"] == 90 * 60
    assert svc.state_json()["table"]["clock"]["kind"] == "monopoly"
    svc.clock_command({"type": "start"})
    fake_time.advance(30 * 60)
    v = svc.tick()
    assert v is not None and v.phase == "play" and v.phase_remaining == 60 * 60
    assert v.deadline == fake_time() + 60 * 60
    seq = svc.seq
    fake_time.advance(60 * 60 + 2.5)  # the tick comes 2.5 s late
    v = svc.tick()
    assert v is not None and v.phase == "ended" and v.end_reason == "time"
    assert svc.clock is not None and svc.clock.ended_at == pytest.approx(fake_time() - 2.5)
    added = svc.events(after=seq)
    assert [e["type"] for e in added] == ["command", "end_signalled"]
    assert added[0]["payload"]["command"]["type"] == "end_signal" and {e["source"] for e in added} == {"system"}
    assert svc.state().ending is not None
    c = svc.clock_json()
    assert c is not None and c["time_up"] and c["phase"] == "ended"
    fake_time.advance(10)
    svc.tick()
    assert svc.seq == seq + 2  # once
    with pytest.raises(engine.IllegalCommand) as err:
        svc.clock_command({"type": "end"})
    assert err.value.rule == "M.END.2"
    # A restart folds the same clock from the store; nothing is given twice.
    again = make_table(tmp_path, clock=monopoly_config(), now=fake_time)
    assert again.clock == svc.clock and again.seq == svc.seq
    again.tick()
    assert again.seq == svc.seq
    with store.session_scope(again.db) as s:
        rows = store.load_clock_events(s, game_id=again.game_id)
    assert [r.type for r in rows] == ["configured", "started", "ended"]
    assert [r.source for r in rows] == ["system", "referee", "system"]


def test_referee_call_pauses_adds_the_time_and_adjusts_only_while_paused(tmp_path: Path,
                                                                        fake_time: FakeTime) -> None:
    svc = make_table(tmp_path, clock=monopoly_config(60), now=fake_time)
    sub = svc.subscribe()
    svc.clock_command({"type": "start"})
    fake_time.advance(600)
    with pytest.raises(engine.IllegalCommand):
        svc.clock_command({"type": "adjust", "seconds": 120})  # running: refused
    c = svc.clock_command({"type": "pause"})
    assert c["phase"] == "paused" and "referee_called" in c["alerts"] and c["deadline"] is None
    fake_time.advance(300)  # the referee takes five minutes: added (C.TIME.3)
    c = svc.clock_command({"type": "adjust", "seconds": 120})
    c = svc.clock_command({"type": "adjust", "seconds": -60})
    assert c["adjusted_seconds"] == 60
    c = svc.clock_command({"type": "resume"})
    assert c["phase"] == "play" and c["paused_seconds"] == 300
    assert c["phase_remaining"] == 3600 - 600 + 60
    with pytest.raises(engine.InvalidCommand):
        svc.clock_command({"type": "adjust", "seconds": "lots"})
    with pytest.raises(engine.InvalidCommand):
        svc.clock_command({"type": "jump"})
    kinds = []
    while (m := sub.get(timeout=0.01)) is not None:
        kinds.append(m["kind"])
        assert "clock" in m["state"]["table"]
    assert kinds.count("clock") == 5  # start, pause, two adjustments, resume


def test_catan_placement_minutes_early_handover_play_and_immediate_end(tmp_path: Path,
                                                                      fake_time: FakeTime) -> None:
    players = ("Ann", "Bob", "Cy", "Di")
    svc = make_table(tmp_path, clock=catan_config(players), now=fake_time)
    svc.clock_command({"type": "start"})
    c = svc.clock_json()
    assert c is not None and c["phase"] == "placement" and c["placement_turn"] == "Ann" and c["settlement"] == 1
    fake_time.advance(20)
    svc.clock_command({"type": "placement_done", "player": "Ann"})  # early: Bob's minute starts now
    c = svc.clock_json()
    assert c is not None and c["placement_turn"] == "Bob" and c["phase_remaining"] == 60
    with pytest.raises(engine.IllegalCommand) as err:
        svc.clock_command({"type": "placement_done", "player": "Di"})
    assert err.value.rule == "C.TIME.1"
    fake_time.advance(75)  # Bob overruns
    v = svc.tick()
    assert v is not None and "placement_overdue" in v.alerts
    for _ in range(7):
        fake_time.advance(30)
        svc.clock_command({"type": "placement_done"})
    c = svc.clock_json()
    assert c is not None and c["phase"] == "play" and c["phase_remaining"] == 3600
    fake_time.advance(3600)
    v = svc.tick()
    assert v is not None and v.phase == "times_up" and v.sound  # Catan: the referee gives the signal
    assert svc.state().ending is None  # the engine (Monopoly) is not touched by a Catan clock
    c = svc.clock_command({"type": "end", "reason": "time"})
    assert c["phase"] == "ended" and c["time_up"]


def test_table_without_clock_refuses_clock_commands(tmp_path: Path) -> None:
    svc = make_table(tmp_path)
    assert svc.clock_json() is None and svc.tick() is None
    with pytest.raises(engine.InvalidCommand):
        svc.clock_command({"type": "start"})
    svc.new_game(clock=monopoly_config(45), round_label="R2")
    c = svc.clock_json()
    assert c is not None and c["phase_remaining"] == 45 * 60
    assert svc.state_json()["table"]["round"] == "R2"


def test_clock_log_is_append_only(tmp_path: Path, fake_time: FakeTime) -> None:
    import sqlalchemy as sa

    svc = make_table(tmp_path, clock=monopoly_config(), now=fake_time)
    svc.clock_command({"type": "start"})
    with pytest.raises(sa.exc.DatabaseError), svc.db.begin() as conn:
        conn.execute(sa.text("UPDATE clock_events SET type='x'"))
    with pytest.raises(sa.exc.DatabaseError), svc.db.begin() as conn:
        conn.execute(sa.text("DELETE FROM clock_events"))
