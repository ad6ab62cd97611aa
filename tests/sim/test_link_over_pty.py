"""The real link (BoardSensor: reader thread, pyserial, session, stabiliser) over a real pty against
the simulated MCU running the firmware: handling the board, resets, unplugging, and wire faults."""
import pytest
import serial

from firmware_host.sensing import protocol as p
from firmware_host.sensing.events import (BoardChanging, BoardSettled, BoardStable, CommandFailed, FaultKind,
                                          FramesDropped, LinkLost, LinkSilent, LinkUp, McuReset, SelfTestResult,
                                          SensorFault, SensorFaultCleared)
from firmware_host.sensing.link import open_port

from sim_rig import OPENING


def stable_on(rig, reading):
    return rig.events.next(BoardStable, lambda event: event.reading == reading)


def test_lift_place_and_slide_come_out_as_changing_then_stable(pty_rig):
    rig = pty_rig
    rig.events.next(LinkUp)
    stable_on(rig, OPENING)
    rig.events.next(BoardSettled)
    rig.board.lift(13, "white")
    lifted = rig.board.reading()
    assert lifted.point(13) == (4, 0)
    rig.events.next(BoardChanging, lambda event: event.reading == lifted)
    stable_on(rig, lifted)
    rig.board.place(9)
    placed = rig.board.reading()
    stable_on(rig, placed)
    rig.board.slide(24, 20, "white")
    stable_on(rig, rig.board.reading())
    assert not [event for event in rig.events.items if isinstance(event, (FramesDropped, LinkLost, SensorFault))]


def test_an_mcu_reset_mid_game_is_reported_and_the_board_read_again(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.board.hit(1, "black")
    after_hit = rig.board.reading()
    stable_on(rig, after_hit)
    rig.mcu.reset()
    reset = rig.events.next(McuReset)
    assert reset.hello.reason is p.HelloReason.BOOT
    stable_on(rig, after_hit)


def test_unplug_and_replug_mid_turn_loses_nothing(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.board.lift(8, "white")
    rig.events.next(BoardChanging, lambda event: event.reading.point(8) == (2, 0))
    rig.mcu.unplug()
    rig.events.next(LinkLost)
    rig.board.place(5)                 # the move is finished while the cable is out
    rig.board.bear_off(6, "white")
    final = rig.board.reading()
    rig.mcu.replug()
    rig.events.next(LinkUp)
    rig.events.next(McuReset)          # USB power came back: the MCU booted
    stable_on(rig, final)
    assert rig.sensor.link.reopen_attempts >= 1


def test_wire_faults_are_counted_and_the_next_change_still_arrives(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.mcu.corrupt_next_crc()
    dropped = rig.events.next(FramesDropped)
    assert dropped.reason.startswith("crc")
    rig.mcu.send_garbage(b"\x00\x13\x37 line noise \xff")
    rig.events.next(FramesDropped)
    rig.mcu.drop_bytes(3)
    rig.events.next(FramesDropped)
    rig.board.lift(24, "white")
    rig.board.place(23)
    stable_on(rig, rig.board.reading())
    assert rig.sensor.session.frames_dropped >= 3


def test_a_silent_mcu_is_reported_and_welcomed_back(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.mcu.go_silent()
    rig.events.next(LinkSilent)
    rig.board.lift(12, "black")
    rig.board.place(14)
    rig.mcu.resume()
    up = rig.events.next(LinkUp)
    assert up.hello.reason is p.HelloReason.REQUESTED
    stable_on(rig, rig.board.reading())
    assert not [event for event in rig.events.items if isinstance(event, McuReset)]


def test_a_flickering_point_is_a_sensor_fault_until_repaired(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.mcu.flicker("point:17", (0, 2), period_s=0.1)
    fault = rig.events.next(SensorFault)
    assert (fault.location, fault.kind) == ("point:17", FaultKind.FLICKER)
    rig.mcu.unstick("point:17")
    rig.events.next(SensorFaultCleared, lambda event: event.location == "point:17")
    stable_on(rig, OPENING)


def test_a_stuck_sensor_showing_too_many_checkers_is_a_fault_not_a_board(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.mcu.stick("point:3", (4, 0))
    fault = rig.events.next(SensorFault)
    assert (fault.location, fault.kind) == ("point:3", FaultKind.TOO_MANY)
    assert "34 checkers on the board" in fault.reason   # magnet sensors (the default) count both colours as one
    rig.mcu.unstick("point:3")
    rig.events.next(SensorFaultCleared)
    stable_on(rig, OPENING)
    faulty = [event for event in rig.events.items if isinstance(event, BoardStable) and event.reading.point(3) != (0, 0)]
    assert faulty == []


def test_a_sensor_that_gives_no_reading_is_named_and_the_rest_of_the_board_still_reads(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.mcu.break_sensor("point:19")
    fault = rig.events.next(SensorFault)
    assert (fault.location, fault.kind) == ("point:19", FaultKind.UNREADABLE)
    assert not [event for event in rig.events.items if isinstance(event, (LinkSilent, LinkLost))]
    rig.board.lift(13, "white")
    changing = rig.events.next(BoardChanging)
    assert changing.reading.point(13) == (4, 0) and changing.reading.point(19) == (0, 5)   # its last count
    rig.board.place(13, "white")
    rig.mcu.unstick("point:19")
    rig.events.next(SensorFaultCleared, lambda event: event.location == "point:19")
    stable_on(rig, OPENING)


def test_the_mcu_restarts_into_maintenance_on_request_and_runs_again_after_a_reset(pty_rig):
    rig = pty_rig
    stable_on(rig, OPENING)
    rig.sensor.enter_maintenance()
    rig.events.next(LinkSilent)
    assert rig.mcu.in_maintenance
    rig.mcu.reset()
    rig.events.next(LinkUp)
    stable_on(rig, OPENING)


def test_a_self_test_names_the_failing_locations(pty_rig):
    rig = pty_rig
    rig.events.next(LinkUp)
    rig.mcu.fail_self_test([("point:5", p.SelfTestFailure.NO_RESPONSE), ("off:black", p.SelfTestFailure.OUT_OF_RANGE)])
    rig.sensor.run_self_test()
    result = rig.events.next(SelfTestResult)
    assert result.failures == (("point:5", "no_response"), ("off:black", "out_of_range"))
    assert not result.passed
    assert not [event for event in rig.events.items if isinstance(event, CommandFailed)]


def test_the_port_is_taken_exclusively(pty_rig):
    pty_rig.events.next(LinkUp)
    with pytest.raises(serial.SerialException, match="exclusively lock"):
        open_port(pty_rig.mcu.port, pty_rig.config.serial)


def test_the_same_link_works_over_tcp(tcp_rig):
    rig = tcp_rig
    assert rig.mcu.port.startswith("socket://127.0.0.1:")
    stable_on(rig, OPENING)
    rig.board.lift(19, "black")
    rig.board.place(22)
    stable_on(rig, rig.board.reading())
    rig.mcu.unplug()
    rig.events.next(LinkLost)
    rig.mcu.replug()
    rig.events.next(McuReset)
    stable_on(rig, rig.board.reading())
