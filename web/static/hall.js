/* The hall display: every table's card (round, clock, state, alerts), pushed live by one hall-wide stream
   (/api/hall/stream: the whole hall first, then one table's row per change). Clocks count down locally
   between pushes; time up beeps once per table. Falls back to polling /api/hall while the stream is down. */
"use strict";

const hall = document.getElementById("hall");
const cards = new Map();  // table id -> {row, node}
const timeUp = new Set();

function tick() {
  const now = new Date();
  document.getElementById("wallclock").textContent = now.toLocaleTimeString(I18N.lang === "ja" ? "ja-JP" : "en-GB");
}

function stateText(row) {
  const turn = row.turn || {};
  // A Catan table's game is not kept by the engine (Monopoly only): its players, not a Monopoly turn.
  if (row.clock && row.clock.kind === "catan") return (row.players || []).map((p) => p.name).join(" · ");
  if (row.winner) return `${t("winner")} ${row.winner}`;
  if (turn.phase === "game_over") return phaseText("game_over");
  const what = row.pending ? t(row.pending === "buy" ? "buy" : row.pending) : phaseText(turn.phase || "pre_roll");
  return `${turn.player || ""} · ${t("turn_no")} ${turn.number || 1} · ${what}`;
}

function card(row) {
  const clock = row.clock;
  const alerts = row.alerts || [];
  const players = [...(row.players || [])].sort((a, b) => b.cash - a.cash);
  const cls = ["hall-card"];
  if (alerts.length) cls.push("alert");
  if (alerts.includes("time_up")) cls.push("timeup");
  if (alerts.includes("referee_called")) cls.push("referee");
  return el("a", { class: cls.join(" "), href: carryLang(row.dashboard), dataset: { table: row.id, seq: row.seq } },
    el("h2", {}, el("span", { class: "hall-name" }, row.name),
      row.round ? el("span", { class: "hall-round", title: t("round") }, row.round) : null,
      el("span", { class: `cam ${row.camera && row.camera.ok === false && row.camera.source && row.camera.source !== "none" ? "bad" : "ok"}`,
        title: row.camera ? cameraText(row.camera) : "" }, "◉")),
    el("div", { class: "hall-clock" },
      el("b", { class: "clock-time", dataset: { phase: clock ? clock.phase : "none" } }, clock ? clockFmt(clockRemaining(clock)) : "—"),
      el("span", { class: "clock-phase" }, clock ? clockPhaseText(clock) : "")),
    el("div", { class: "hall-status" }, stateText(row)),
    el("div", { class: "hall-alerts" }, alerts.map((a) => el("span", { class: `badge alert-${a}`, dataset: { alert: a } }, t(a)))),
    el("ol", { class: "hall-players" }, players.map((p) => el("li", { class: p.bankrupt ? "out" : "" },
      el("span", {}, p.name), el("span", {}, money(p.cash))))));
}

function upsert(row, initial) {
  const node = card(row);
  const old = cards.get(row.id);
  if (old) old.node.replaceWith(node); else hall.append(node);
  cards.set(row.id, { row, node });
  const up = (row.alerts || []).includes("time_up");
  if (up && !timeUp.has(row.id)) { timeUp.add(row.id); if (!initial) beep(); }
  if (!up) timeUp.delete(row.id);
}

function replaceAll(rows) {
  cards.clear();
  hall.replaceChildren();  // the server-rendered cards too
  if (!rows.length) hall.append(el("p", { class: "empty" }, t("no_tables")));
  const bar = document.querySelector(".topbar");
  if (bar) hall.style.setProperty("--topbar-h", `${bar.offsetHeight}px`);
  hall.classList.toggle("dense", rows.length > 16);
  hall.classList.toggle("huge", rows.length > 36);
  const cols = Math.max(1, Math.ceil(Math.sqrt(rows.length)));
  hall.style.setProperty("--cols", String(cols));
  hall.style.setProperty("--rows", String(Math.max(1, Math.ceil(rows.length / cols))));
  rows.forEach((r) => upsert(r, true));
  hall.dataset.loaded = "1";
  hall.dataset.tables = String(rows.length);
}

function redrawClocks() {
  for (const { row, node } of cards.values()) {
    if (!clockRunning(row.clock)) continue;
    const b = node.querySelector(".clock-time");
    if (b) b.textContent = clockFmt(clockRemaining(row.clock));
  }
}

let polling = null;
async function poll() {
  try {
    const data = await getJSON("/api/hall");
    clockSync(data.now);
    replaceAll(data.tables);
  } catch (e) { console.error(e); }
}

function followHall() {
  const source = new EventSource("/api/hall/stream");
  source.addEventListener("hall", (e) => {
    const msg = JSON.parse(e.data);
    clockSync(msg.now);
    replaceAll(msg.tables);
    if (polling) { clearInterval(polling); polling = null; }
    hall.dataset.live = "1";
  });
  source.addEventListener("table", (e) => {
    const msg = JSON.parse(e.data);
    clockSync(msg.now);
    upsert(msg.row, false);
    hall.dataset.updates = String(Number(hall.dataset.updates || 0) + 1);
  });
  source.addEventListener("error", () => {
    hall.dataset.live = "0";
    if (!polling) polling = setInterval(poll, 2000);
  });
}

const soundButton = document.getElementById("sound-on");
if (soundButton) soundButton.addEventListener("click", () => { soundOn(); soundButton.classList.add("on"); });

tick();
setInterval(tick, 1000);
setInterval(redrawClocks, 250);
followHall();
