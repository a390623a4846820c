/* The tournament clock on a page: text from a clock JSON (engine.clock.ClockView + now, time_up), counted
   down locally from `deadline` between pushes (with the offset between the server's clock and this
   browser's), and a short WebAudio beep for time up (no sound files). */
"use strict";

const CLOCK = { offset: 0, audio: null };

function clockSync(serverNow) {
  if (typeof serverNow === "number") CLOCK.offset = serverNow - Date.now() / 1000;
}

function clockRemaining(clock) {
  if (!clock) return null;
  if (clock.deadline !== null && clock.deadline !== undefined) {
    return Math.max(0, clock.deadline - (Date.now() / 1000 + CLOCK.offset));
  }
  return Math.max(0, clock.phase_remaining || 0);
}

function clockFmt(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  const s = Math.ceil(seconds);  // minutes:seconds, like a tournament timer (90:00, not 1:30:00)
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function clockPhaseText(clock) {
  if (!clock) return "";
  let text = t(`clock_${clock.phase}`);
  if (clock.phase === "placement" || (clock.phase === "paused" && clock.paused_phase === "placement")) {
    text += ` ${clock.placement_turn || ""} (${t("settlement")} ${clock.settlement}/${clock.settlements})`;
  }
  if (clock.phase === "ended" && clock.time_up) text = t("time_up");
  return text;
}

function clockRunning(clock) {
  return !!clock && clock.deadline !== null && clock.deadline !== undefined;
}

function soundOn() {
  try {
    CLOCK.audio = CLOCK.audio || new (window.AudioContext || window.webkitAudioContext)();
    if (CLOCK.audio.state === "suspended") CLOCK.audio.resume();
  } catch (e) { CLOCK.audio = null; }
  return CLOCK.audio;
}

/* Three short beeps. Browsers allow sound only after a click on the page: the "Sound on" button. */
function beep() {
  const ctx = CLOCK.audio || soundOn();
  if (!ctx) return false;
  const start = ctx.currentTime;
  for (let i = 0; i < 3; i++) {
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = "square";
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, start + i * 0.35);
    gain.gain.setValueAtTime(0, start + i * 0.35 + 0.2);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start + i * 0.35);
    osc.stop(start + i * 0.35 + 0.22);
  }
  document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  return true;
}
