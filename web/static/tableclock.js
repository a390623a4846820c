/* The table's tournament clock on the dashboard (read-only) and the clerk console (with the referee's
   buttons: start, settlement placed, referee call, resume, add/remove time while paused, end signal).
   Drawn from each pushed state (state.table.clock), counted down locally between pushes; time up beeps. */
"use strict";

let TABLE_CLOCK = null;
let TABLE_CLOCK_UP = null;

function showTableClock(state) {
  const box = document.getElementById("table-clock");
  if (!box) return;
  const clock = (state.table && state.table.clock) || null;
  clockSync(clock && clock.now);
  TABLE_CLOCK = clock;
  box.hidden = !clock;
  if (!clock) return;
  const up = !!clock.time_up;
  if (TABLE_CLOCK_UP === false && up) beep();
  TABLE_CLOCK_UP = up;
  const alerts = (clock.alerts || []).map((a) => el("span", { class: `badge danger alert-${a}`, dataset: { alert: a } },
    t(a === "times_up" ? "time_up" : a)));
  const parts = [
    el("div", { class: "clock-line" },
      state.table.round ? el("span", { class: "badge" }, `${t("round")} ${state.table.round}`) : null,
      el("b", { class: "clock-time", id: "clock-time", dataset: { phase: clock.phase } }, clockFmt(clockRemaining(clock))),
      el("span", { class: "clock-phase", id: "clock-phase" }, clockPhaseText(clock)), alerts),
  ];
  if (box.dataset.referee === "1") parts.push(refereeButtons(clock));
  box.replaceChildren(...parts);
  box.dataset.phase = clock.phase;
}

function refereeButtons(clock) {
  const b = (label, cmd, cls) => el("button", { type: "button", class: cls || "", dataset: { clock: cmd.type },
    onclick: () => clockCommand(cmd) }, label);
  const seconds = el("input", { type: "number", id: "clock-seconds", value: "60", step: "30", style: "width:5rem" });
  return el("div", { class: "referee-buttons" },
    b(t("clock_start"), { type: "start" }, "primary"),
    clock.settlements ? b(t("placement_done"), { type: "placement_done" }) : null,
    b(t("clock_pause"), { type: "pause", reason: "referee" }, "warn"),
    b(t("clock_resume"), { type: "resume" }),
    seconds,
    el("button", { type: "button", dataset: { clock: "adjust" },
      onclick: () => clockCommand({ type: "adjust", seconds: Number(seconds.value) }) }, t("clock_adjust")),
    b(t("clock_end"), { type: "end", reason: "referee" }, "danger"));
}

async function clockCommand(cmd) {
  const { ok, data } = await postJSON(`/api/tables/${TABLE.id}/clock`, cmd);
  showResult(ok, ok ? cmd.type : ruleMessage(data));
  return ok;
}

setInterval(() => {
  if (!clockRunning(TABLE_CLOCK)) return;
  const b = document.getElementById("clock-time");
  if (b) b.textContent = clockFmt(clockRemaining(TABLE_CLOCK));
}, 250);
