/* The public dashboard: board, players, turn, pending decision, last roll with its camera crop, the event
   log in words and cash over time; redrawn on every push from the stream, never reloaded. */
"use strict";

const root = document.getElementById("dashboard");
const boardSvg = document.getElementById("board");
const logList = document.getElementById("log");
let points = [];

function renderTurn(state) {
  const turn = state.turn || {};
  const box = document.getElementById("turn");
  const rows = [
    el("div", { class: "turn-line" }, el("span", { class: "label" }, t("turn")),
      el("b", { id: "turn-player", style: `color:${playerColour(state, turn.player)}` }, turn.player || ""),
      el("span", { class: "muted" }, ` ${t("turn_no")} ${turn.number || 1} · ${phaseText(turn.phase)}`),
      turn.doubles ? el("span", { class: "badge", id: "doubles" }, `${t("doubles")} ×${turn.doubles}`) : null),
    el("div", { class: "pending", id: "pending", dataset: { kind: (state.pending && state.pending.kind) || "" } },
      el("span", { class: "label" }, t("pending")), pendingText(state.pending)),
  ];
  if (state.winner || (state.ranking && state.ranking.length && turn.phase === "game_over")) {
    rows.push(el("div", { class: "ranking" }, el("span", { class: "label" }, t("ranking")),
      state.ranking.map((n, i) => `${i + 1}. ${n}`).join("  ")));
  }
  if (state.ending) rows.push(el("div", { class: "badge danger" }, `${t("end_signal")}: ${t("turn_no")} ${state.ending[0]}`));
  box.replaceChildren(...rows);
}

function renderPlayers(state) {
  const box = document.getElementById("players");
  const cards = state.players.map((p, k) => {
    const owned = Object.entries(state.deeds).filter(([, d]) => d.owner === p.name).map(([id, d]) => {
      const info = BOARD.deeds[id];
      const marks = d.hotel ? "H" : d.houses ? "⌂".repeat(d.houses) : "";
      return el("span", { class: `chip${d.mortgaged ? " mort" : ""}`, title: deedName(id),
        style: `border-color:${BOARD.colours[info.group] || "#888"}`, dataset: { deed: id } },
      deedName(id), marks ? el("b", {}, ` ${marks}`) : null);
    });
    const jail = p.in_jail ? el("span", { class: "badge jail" }, `${t("in_jail")} (${p.jail_turns}/3)`) : null;
    const cards = (p.jail_cards || []).map((c) => el("span", { class: "badge" }, cardName(c)));
    return el("div", { class: `player${p.bankrupt ? " out" : ""}${state.turn && state.turn.player === p.name ? " current" : ""}`,
      dataset: { player: p.name } },
    el("div", { class: "player-head" },
      el("span", { class: "dot", style: `background:${PLAYER_COLOURS[k % PLAYER_COLOURS.length]}` }),
      el("b", { class: "name" }, p.name),
      el("span", { class: "cash", dataset: { cash: p.cash } }, money(p.cash))),
    el("div", { class: "player-meta muted" }, `${t("position")}: ${squareName(p.position)}`,
      p.bankrupt ? el("span", { class: "badge danger" }, t("bankrupt")) : null, jail, ...cards),
    el("div", { class: "chips" }, owned));
  });
  box.replaceChildren(el("h3", {}, t("players")), ...cards);
}

function renderRoll(state) {
  const box = document.getElementById("roll");
  const roll = state.table && state.table.last_roll;
  const items = [el("h3", {}, t("last_roll"))];
  if (roll) {
    items.push(el("div", { class: `verdict v-${roll.verdict}`, id: "verdict", dataset: { verdict: roll.verdict } }, verdictText(roll)));
    if (roll.image) items.push(el("img", { class: "crop", src: roll.image, alt: verdictText(roll), loading: "lazy" }));
  } else if (state.turn && state.turn.last_dice) {
    items.push(el("div", { class: "verdict v-ok", id: "verdict" }, `${t("dice")}: ${state.turn.last_dice.join("+")}`));
  } else {
    items.push(el("div", { class: "muted", id: "verdict" }, t("no_roll")));
  }
  const cam = state.table && state.table.camera;
  if (cam) items.push(el("div", { class: `camera ${cam.ok ? "ok" : "bad"}` }, cameraText(cam)));
  box.replaceChildren(...items);
}

/* ---- cash over time: one polyline per player, x = command number ---- */

function renderChart(state) {
  const chart = document.getElementById("chart");
  const legend = document.getElementById("chart-legend");
  chart.replaceChildren();
  if (!points.length) return;
  const names = state.players.map((p) => p.name);
  const maxCash = Math.max(100, ...points.flatMap((pt) => names.map((n) => pt.cash[n] || 0)));
  const W = 600, H = 220, pad = 6;
  const x = (i) => pad + (points.length === 1 ? 0 : (i * (W - 2 * pad)) / (points.length - 1));
  const y = (v) => H - pad - (v / maxCash) * (H - 2 * pad);
  for (const frac of [0.25, 0.5, 0.75, 1]) {
    chart.append(svg("line", { x1: 0, x2: W, y1: y(maxCash * frac), y2: y(maxCash * frac), class: "grid" }));
  }
  names.forEach((n, k) => {
    const pts = points.map((pt, i) => `${x(i).toFixed(1)},${y(pt.cash[n] || 0).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points: pts, fill: "none", stroke: PLAYER_COLOURS[k % PLAYER_COLOURS.length],
      "stroke-width": 2.5, "vector-effect": "non-scaling-stroke", "data-player": n }));
  });
  legend.replaceChildren(...names.map((n, k) => el("span", {}, el("span", { class: "dot",
    style: `background:${PLAYER_COLOURS[k % PLAYER_COLOURS.length]}` }), `${n} ${money(points[points.length - 1].cash[n] || 0)}`)));
}

function addPoint(state) {
  const cash = Object.fromEntries(state.players.map((p) => [p.name, p.cash]));
  const last = points[points.length - 1];
  if (last && JSON.stringify(last.cash) === JSON.stringify(cash)) return;
  points.push({ seq: state.seq, cash });
}

function render(state, rows, kind) {
  if (typeof showTableClock === "function") showTableClock(state);
  drawBoard(boardSvg, state);
  renderTurn(state);
  renderPlayers(state);
  renderRoll(state);
  appendLog(logList, rows, 200);
  if (kind !== "load") addPoint(state);
  renderChart(state);
  markSeq(root, state);
}

getJSON(TABLE.history).then((h) => { points = h.points || []; }).catch(() => { points = []; }).finally(() => {
  follow(render);
});
