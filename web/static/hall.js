/* The hall display: every table's status and clock at a glance, refreshed every two seconds (one small
   request for all tables, instead of a stream per table on a screen that may show dozens). */
"use strict";

const hall = document.getElementById("hall");

function tick() {
  const now = new Date();
  document.getElementById("wallclock").textContent = now.toLocaleTimeString(I18N.lang === "ja" ? "ja-JP" : "en-GB");
}

function clockText(clock) {
  if (!clock) return "—";
  if (typeof clock === "string") return clock;
  if (clock.remaining_s !== undefined) {
    const s = Math.max(0, Math.round(clock.remaining_s));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  return JSON.stringify(clock);
}

function card(row) {
  const players = [...row.players].sort((a, b) => b.cash - a.cash);
  const turn = row.turn || {};
  return el("a", { class: "hall-card", href: row.dashboard, dataset: { table: row.id, seq: row.seq } },
    el("h2", {}, row.name, el("span", { class: `cam ${row.camera && row.camera.ok === false ? "bad" : "ok"}`,
      title: row.camera ? `${t("camera")}: ${row.camera.source || ""} ${row.camera.message || ""}` : "" }, "◉")),
    el("div", { class: "hall-body" },
      el("div", { class: "hall-turn" }, `${t("turn")}: `, el("b", {}, turn.player || ""),
        ` · ${t("turn_no")} ${turn.number || 1}`, turn.doubles ? ` · ${t("doubles")} ×${turn.doubles}` : ""),
      el("div", { class: "hall-status" }, `${t("status")}: `, row.winner ? `${t("winner")} ${row.winner}` :
        row.pending ? t(row.pending === "buy" ? "buy" : row.pending) : phaseText(turn.phase || "pre_roll")),
      el("div", { class: "hall-clock" }, `${t("clock")}: `, el("b", {}, clockText(row.clock))),
      el("ol", { class: "hall-players" }, players.map((p) => el("li", { class: p.bankrupt ? "out" : "" },
        el("span", {}, p.name), el("span", {}, money(p.cash)))))));
}

async function refresh() {
  try {
    const data = await getJSON("/api/hall");
    if (!data.tables.length) return;
    hall.replaceChildren(...data.tables.map(card));
    hall.dataset.loaded = "1";
  } catch (e) {
    console.error(e);
  }
}

tick();
setInterval(tick, 1000);
refresh();
setInterval(refresh, 2000);
