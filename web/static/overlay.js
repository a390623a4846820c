/* Stream overlay for OBS: a transparent page with cash, whose turn and the last roll. */
"use strict";

const root = document.getElementById("overlay");

function render(state) {
  const turn = state.turn || {};
  document.getElementById("ov-players").replaceChildren(...state.players.map((p, k) =>
    el("div", { class: `ov-player${p.name === turn.player ? " current" : ""}${p.bankrupt ? " out" : ""}`, dataset: { player: p.name } },
      el("span", { class: "dot", style: `background:${PLAYER_COLOURS[k % PLAYER_COLOURS.length]}` }),
      el("span", { class: "name" }, p.name), el("span", { class: "cash" }, money(p.cash)),
      p.in_jail ? el("span", { class: "badge jail" }, t("in_jail")) : null)));
  const roll = state.table && state.table.last_roll;
  const box = document.getElementById("ov-roll");
  const dice = turn.last_dice;
  const items = [];
  if (dice) {
    const s = svg("svg", { viewBox: "0 0 170 80", class: "ov-dice" });
    dice.forEach((v, k) => s.append(drawDie(5 + k * 90, 5, 70, v)));
    items.push(s);
  }
  if (roll && roll.verdict !== "ok") items.push(el("div", { class: "ov-verdict" }, verdictText(roll)));
  items.push(el("div", { class: "ov-turn" }, `${t("turn")}: ${turn.player || ""}` + (turn.doubles ? ` · ${t("doubles")} ×${turn.doubles}` : "")));
  box.replaceChildren(...items);
  markSeq(root, state);
}

follow(render);
