/* Shared by every page: the page's data block, words in the page's language, the SVG board, the event
   log in words, and the live connection (Server-Sent Events). Plain JS, no build step, no CDN. */
"use strict";

const PAGE = JSON.parse(document.getElementById("page-data").textContent);
const I18N = PAGE.i18n;
const BOARD = PAGE.board;
const TABLE = PAGE.table || null;
const SVGNS = "http://www.w3.org/2000/svg";
const PLAYER_COLOURS = ["#e6194b", "#3c8d2f", "#4363d8", "#f58231", "#911eb4", "#0fa3b1", "#d6338a", "#8a5a1f"];

function t(key) { return I18N.ui[key] || key; }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) node.append(c);
  return node;
}

function money(n) { return (n < 0 ? "-$" : "$") + Math.abs(n).toLocaleString("en-US"); }
function deedName(id) { return (BOARD.deeds[id] && BOARD.deeds[id].name) || id; }
function squareName(i) { return (BOARD.squares[i] && BOARD.squares[i].name) || String(i); }
function who(name) { return name === null || name === undefined ? t("bank_name") : name; }

function playerColour(state, name) {
  const i = state.players.findIndex((p) => p.name === name);
  return PLAYER_COLOURS[(i < 0 ? 0 : i) % PLAYER_COLOURS.length];
}

/* An API address asking for the page's own language: the server's messages (a refusal's rule title) then
   match the page even where it was opened with ?lang= against the browser's preference. */
function inPageLang(url) {
  return url + (url.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(I18N.lang);
}

/* A link to another of our pages with this page's own ?lang= passed on, as the server's links are
   (web/pages.py CARRY_LANG): a hall screen opened with ?lang=ja opens its tables' dashboards in Japanese. */
function carryLang(href) {
  const asked = new URLSearchParams(location.search).get("lang");
  if (!asked || asked !== I18N.lang) return href;
  const u = new URL(href, location.href);
  if (u.origin !== location.origin || u.searchParams.has("lang")) return href;
  u.searchParams.set("lang", asked);
  return u.pathname + u.search + u.hash;
}

/* A rule refusal as shown everywhere: the rule ID always, its title in the page's language, then the
   engine's own words. */
function ruleMessage(err) {
  let msg = err.message || err.error || "";
  if (err.rule && msg.startsWith(err.rule + ": ")) msg = msg.slice(err.rule.length + 2);
  if (!err.rule) return msg;
  const title = I18N.rules[err.rule];
  if (title && !msg.startsWith(title)) return `${err.rule}: ${title} — ${msg}`;
  return `${err.rule}: ${msg}`;
}

function reasonText(reason) {
  if (!reason) return "";
  // The verdict the gist already says ("reroll: " of a voided throw's reason) is not repeated in the detail.
  const detail = reason.replace(/^(reroll|unreadable): /, "");
  for (const [en, ja] of Object.entries(I18N.reasons)) if (reason.includes(en)) return `${ja} (${detail})`;
  return reason;
}

/* Why money moved, in the page's language: the engine's reason matched against its kinds (engine/describe.py
   MONEY_REASONS, sent as I18N.money), deeds, groups and cards named, never shown by their ids. */
let moneyPatterns = null;
function moneyReason(reason) {
  if (!reason) return "";
  moneyPatterns = moneyPatterns || I18N.money.patterns.map(([key, src]) => [key, new RegExp(`^(?:${src})$`)]);
  for (const [key, re] of moneyPatterns) {
    const m = re.exec(reason);
    if (!m) continue;
    const f = {};
    for (const [k, v] of Object.entries(m.groups || {})) {
      if (v === undefined) continue;
      if (k === "card") f[k] = cardName(v);
      else if (k === "deed" || k === "where") f[k] = BOARD.deeds[v] ? deedName(v) : (BOARD.group_names[v] || v);
      else f[k] = v;
    }
    return fill(I18N.money.words[key], f);
  }
  return reasonText(reason);
}

/* The camera's status in the page's language (I18N.camera, by the status's kind); else the service's words. */
function cameraText(cam) {
  const tpl = I18N.camera[cam.kind];
  return `${t("camera")}: ${cam.source || ""} — ${tpl ? fill(tpl, cam) : cam.message || ""}`;
}

/* One referee change in the page's language (I18N.referee): whose field, and the value named. */
function refereeText(path, value) {
  const words = I18N.referee;
  const [top, whose, field] = path.split(".");
  if (path === "turn.player") return `${words.turn || "turn"}=${value}`;
  if (!field || !words[field]) return `${path}=${value}`;
  let shown = value;
  if (field === "cash") shown = money(value);
  else if (field === "position") shown = squareName(value);
  else if (field === "owner") shown = who(value);
  else if (field === "jail_cards") shown = (value || []).map(cardName).join("、") || t("nothing");
  else if (typeof value === "boolean") shown = value ? words.yes : words.no;
  return `${top === "deeds" ? deedName(whose) : whose}の${words[field]}=${shown}`;
}

/* One side of a trade (M.TRADE.6): cash, deeds and jail cards, named in the page's language. */
function tradeGiven(side) {
  const parts = side && side.cash ? [money(side.cash)] : [];
  for (const d of (side && side.deeds) || []) parts.push(deedName(d));
  for (const c of (side && side.jail_cards) || []) parts.push(cardName(c));
  return parts.join(I18N.lang === "ja" ? "、" : ", ") || t("nothing");
}

/* ---- the event log in words ---- */

function cardName(key) {
  if (!key) return "";
  const [deck, id] = key.split(":");
  const list = (PAGE.cards && Object.values(PAGE.cards).flatMap((d) => d[deck] || [])) || [];
  const found = list.find((c) => c.key === key);
  return `${BOARD.decks[deck] || deck}: ${found ? found.title : id}`;
}

function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (fields[k] === undefined ? "" : String(fields[k])));
}

function eventText(row) {
  const p = row.payload || {};
  const tpl = I18N.events[row.type];
  // English: the engine's own words (engine.describe) where it has them; Japanese: our phrasebook.
  if (I18N.lang === "en" && row.text) return row.text;
  if (!tpl) return row.text || null;
  const f = Object.assign({}, p);
  switch (row.type) {
    case "game_started": f.players = (p.players || []).join(", "); break;
    case "dice_rolled": f.a = p.dice[0]; f.b = p.dice[1]; f.dbl = p.dice[0] === p.dice[1] ? ` (${t("doubles")})` : ""; break;
    case "throw_voided": f.reason = reasonText(p.reason); break;
    case "moved": f.square = squareName(p.to); break;
    case "cash": f.payer = who(p.payer); f.payee = who(p.payee); f.reason = moneyReason(p.reason); break;
    case "deed": f.deed = deedName(p.deed); f.owner = who(p.owner); break;
    case "mortgage": f.deed = deedName(p.deed); f.what = p.mortgaged ? t("mortgaged") : t("unmortgage"); break;
    case "buildings": f.deed = deedName(p.deed); f.what = p.hotel ? t("hotel") : `${p.houses} ${t("houses")}`; break;
    case "card_drawn": case "jail_card_returned": case "jail_card_given": f.card = cardName(p.card); break;
    case "start_order": f.order = (p.order || []).join(", "); break;
    case "bankrupt": f.creditor = who(p.creditor); break;
    case "game_ended": f.ranking = (p.ranking || []).map((n, i) => `${i + 1}. ${n}`).join(", "); break;
    case "referee": f.changes = Object.entries(p.changes || {}).map(([k, v]) => refereeText(k, v)).join(I18N.lang === "ja" ? "、" : ", "); break;
    case "build_declared": f.deed = deedName(p.deed); break;
    case "traded": f.give = tradeGiven(p.give); f.get = tradeGiven(p.get); break;
    case "sent_to_jail": f.why = (p.reason || "").startsWith("card ") ? cardName(p.reason.slice(5)) : t(`jail_${p.reason}`); break;
    case "left_jail": f.why = t(`jail_${p.how}`); break;
    default: break;
  }
  return fill(tpl, f);
}

/* Appends the rows (newest first) that have words, skipping ones already shown. */
function appendLog(list, rows, limit) {
  const seen = list._seen || (list._seen = new Set());
  for (const row of rows) {
    if (seen.has(row.seq)) continue;
    seen.add(row.seq);
    const text = eventText(row);
    if (!text) continue;
    const li = el("li", { class: `ev ev-${row.type}`, dataset: { seq: row.seq, type: row.type } }, text);
    if (row.source && row.source !== "clerk") li.append(el("span", { class: "src" }, row.source));
    list.prepend(li);
  }
  while (limit && list.children.length > limit) list.lastElementChild.remove();
}

/* ---- the live connection ---- */

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
}

/* POSTs `body` as JSON with the session's CSRF token, in the page's language (a refusal is worded in it).
   A reply that is not JSON (a proxy's error page) still gives {error, message}. */
async function postJSON(url, body) {
  const r = await fetch(inPageLang(url), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": PAGE.csrf || "" },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: String(r.status), message: r.statusText }; }
  // Not (or no longer) this table's clerk: a login that ended, or one for another table. Said in the page's
  // language with what to do, not the API's English meant for scripts.
  if (r.status === 401 || r.status === 403) data = Object.assign({}, data, { rule: null, message: t("login_again") });
  return { ok: r.ok, status: r.status, data };
}

/* The page's result bar (#result), where it has one: what was done, or the refusal with its rule. */
function showResult(ok, text) {
  const result = document.getElementById("result");
  if (!result) return;
  result.className = `result ${ok ? "ok" : "refused"}`;
  result.dataset.ok = ok ? "1" : "0";
  result.textContent = ok ? `${t("done")}: ${text}` : `${t("refused")} — ${text}`;
}

/* Loads the state, then follows the stream. onUpdate(state, newRows) runs for the first load and for every
   push; after a reconnect the rows missed meanwhile are fetched so the log has no holes. */
function follow(onUpdate) {
  const live = document.getElementById("live");
  let lastSeq = 0;
  const setLive = (s) => { if (live) { live.dataset.state = s; live.title = s === "open" ? t("live") : t("offline"); } };
  const catchUp = async () => {
    const [state, rows] = await Promise.all([getJSON(TABLE.state), getJSON(`${TABLE.events}?after=${lastSeq}`)]);
    const list = Array.isArray(rows) ? rows : rows.events || [];
    if (list.length) lastSeq = Math.max(lastSeq, ...list.map((r) => r.seq));
    onUpdate(state, list, "load");
  };
  catchUp().catch((e) => console.error(e));
  const source = new EventSource(TABLE.stream);
  let dropped = false;
  source.addEventListener("open", () => {
    setLive("open");
    if (dropped) { dropped = false; catchUp().catch((e) => console.error(e)); }
  });
  source.addEventListener("error", () => { setLive("closed"); dropped = true; });
  source.addEventListener("update", (e) => {
    const msg = JSON.parse(e.data);
    const rows = msg.events || [];
    if (rows.length) lastSeq = Math.max(lastSeq, ...rows.map((r) => r.seq));
    onUpdate(msg.state, rows, msg.kind || "events");
  });
  return source;
}

/* Marks the page as showing a given table seq: tests and the overlay wait on data-seq. */
function markSeq(node, state) {
  const seq = (state.table && state.table.seq) || state.seq || 0;
  node.dataset.seq = String(seq);
}

/* ---- the board ---- */

const B = { size: 1100, corner: 150, band: 30 };
B.w = (B.size - 2 * B.corner) / 9;

/* Square i's centre and rotation: drawn upright as if on the bottom row (inner edge up), then turned. */
function squareFrame(i) {
  const c = B.corner, s = B.size, w = B.w;
  if (i === 0) return { x: s - c / 2, y: s - c / 2, rot: 0, corner: true };
  if (i === 10) return { x: c / 2, y: s - c / 2, rot: 0, corner: true };
  if (i === 20) return { x: c / 2, y: c / 2, rot: 0, corner: true };
  if (i === 30) return { x: s - c / 2, y: c / 2, rot: 0, corner: true };
  if (i < 10) return { x: s - c - (i - 0.5) * w, y: s - c / 2, rot: 0 };
  if (i < 20) return { x: c / 2, y: s - c - (i - 10 - 0.5) * w, rot: 90 };
  if (i < 30) return { x: c + (i - 20 - 0.5) * w, y: c / 2, rot: 180 };
  return { x: s - c / 2, y: c + (i - 30 - 0.5) * w, rot: 270 };
}

function nameLines(name, max) {
  const words = I18N.lang === "ja" ? name.split(/[・／]/) : name.split(/\s+/);
  const lines = [];
  for (const word of words) {
    const last = lines[lines.length - 1];
    if (last && (last + " " + word).length <= max && I18N.lang !== "ja") lines[lines.length - 1] = last + " " + word;
    else lines.push(word);
  }
  return lines.slice(0, 4);
}

const SQUARE_ICON = { chance: "?", community_chest: "♦", tax: "$", go: "GO", jail: "", free_parking: "P", go_to_jail: "→" };

function drawBoard(root, state) {
  root.replaceChildren();
  root.append(svg("rect", { x: 0, y: 0, width: B.size, height: B.size, class: "board-bg" }));
  const defs = svg("defs", {},
    svg("pattern", { id: "hatch", width: 10, height: 10, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      svg("rect", { width: 10, height: 10, fill: "rgba(60,60,60,.35)" }),
      svg("line", { x1: 0, y1: 0, x2: 0, y2: 10, stroke: "rgba(255,255,255,.8)", "stroke-width": 4 })));
  root.append(defs);
  for (const sq of BOARD.squares) root.append(drawSquare(sq, state));
  root.append(drawCentre(state));
  root.append(drawTokens(state));
}

function drawSquare(sq, state) {
  const f = squareFrame(sq.index);
  const W = f.corner ? B.corner : B.w, H = B.corner;
  const g = svg("g", { transform: `translate(${f.x} ${f.y}) rotate(${f.rot})`, class: `sq sq-${sq.type}`,
    "data-square": sq.index, "data-deed": sq.deed || null });
  g.append(svg("rect", { x: -W / 2, y: -H / 2, width: W, height: H, class: "sq-bg" }));
  const deed = sq.deed ? state.deeds[sq.deed] : null;
  const info = sq.deed ? BOARD.deeds[sq.deed] : null;
  // Text reads upright for the bottom and top rows (the top row is turned back), sideways on the columns.
  const textRot = f.rot === 180 ? 180 : 0;
  const tg = svg("g", { transform: `rotate(${textRot})` });
  if (sq.group && BOARD.colours[sq.group]) {
    g.append(svg("rect", { x: -W / 2, y: -H / 2, width: W, height: B.band, fill: BOARD.colours[sq.group], class: "band" }));
  }
  // In the text group's own frame the band is at the top, or at the bottom for the turned-back top row.
  const bandTop = !textRot;
  const banded = Boolean(sq.group && BOARD.colours[sq.group]);
  const lines = nameLines(sq.name, f.corner ? 14 : 11);
  const nameY = bandTop && banded ? -H / 2 + B.band + 18 : -H / 2 + 22;
  lines.forEach((line, k) => {
    // Squeeze a line wider than the square (long katakana names) instead of letting it spill over.
    const est = [...line].reduce((n, ch) => n + (ch.charCodeAt(0) > 0x2e80 ? 12.5 : 7.2), 0);
    const fit = est > W - 8 ? { textLength: W - 8, lengthAdjust: "spacingAndGlyphs" } : {};
    tg.append(svg("text", Object.assign({ x: 0, y: nameY + k * 15, class: "sq-name", "text-anchor": "middle", text: line }, fit)));
  });
  if (SQUARE_ICON[sq.type]) tg.append(svg("text", { x: 0, y: 30, class: "sq-icon", "text-anchor": "middle", text: SQUARE_ICON[sq.type] }));
  const priceY = bandTop || !banded ? H / 2 - 22 : H / 2 - B.band - 22;
  if (info) tg.append(svg("text", { x: 0, y: priceY, class: "sq-price", "text-anchor": "middle", text: money(info.price) }));
  g.append(tg);
  if (deed && deed.owner) {
    const colour = playerColour(state, deed.owner);
    g.append(svg("rect", { x: -W / 2, y: H / 2 - 14, width: W, height: 14, fill: colour, class: "owner",
      "data-owner": deed.owner }));
  }
  if (deed && (deed.houses || deed.hotel)) {
    const bg = svg("g", { class: "buildings", "data-houses": deed.houses, "data-hotel": deed.hotel ? 1 : 0 });
    if (deed.hotel) bg.append(svg("rect", { x: -18, y: -H / 2 + 6, width: 36, height: 18, rx: 3, class: "hotel" }));
    else for (let k = 0; k < deed.houses; k++) {
      bg.append(svg("rect", { x: -W / 2 + 6 + k * ((W - 12) / 4), y: -H / 2 + 7, width: (W - 12) / 4 - 4, height: 16, rx: 2, class: "house" }));
    }
    g.append(bg);
  }
  if (deed && deed.mortgaged) {
    g.append(svg("rect", { x: -W / 2, y: -H / 2, width: W, height: H, fill: "url(#hatch)", class: "mortgaged" }));
    g.append(svg("text", { x: 0, y: 8, class: "mort-label", "text-anchor": "middle", text: t("mortgaged"),
      transform: `rotate(${textRot})` }));
  }
  return g;
}

function drawCentre(state) {
  const g = svg("g", { class: "centre" });
  const mid = B.size / 2;
  g.append(svg("text", { x: mid, y: mid - 150, class: "centre-title", "text-anchor": "middle", text: (TABLE && TABLE.name) || "" }));
  const turn = state.turn || {};
  g.append(svg("text", { x: mid, y: mid - 95, class: "centre-turn", "text-anchor": "middle",
    text: `${t("turn")}: ${turn.player || ""}` + (turn.doubles ? ` · ${t("doubles")} ×${turn.doubles}` : "") }));
  const dice = turn.last_dice;
  if (dice) dice.forEach((v, k) => g.append(drawDie(mid - 70 + k * 90, mid - 60, 70, v)));
  const bank = state.bank || {};
  g.append(svg("text", { x: mid, y: mid + 60, class: "centre-bank", "text-anchor": "middle",
    text: `${t("bank")}: ${bank.houses} ${t("houses")} · ${bank.hotels} ${t("hotels")}` }));
  return g;
}

const PIPS = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]],
  5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]] };

function drawDie(x, y, size, value) {
  const g = svg("g", { class: "die", "data-value": value });
  g.append(svg("rect", { x, y, width: size, height: size, rx: size / 7, class: "die-face" }));
  for (const [cx, cy] of PIPS[value] || []) {
    g.append(svg("circle", { cx: x + size * (0.22 + cx * 0.28), cy: y + size * (0.22 + cy * 0.28), r: size / 11, class: "pip" }));
  }
  return g;
}

function drawTokens(state) {
  const g = svg("g", { class: "tokens" });
  const at = {};
  state.players.forEach((p, k) => {
    if (p.bankrupt) return;
    const key = p.in_jail ? "jail" : String(p.position);
    (at[key] = at[key] || []).push([p, k]);
  });
  for (const [key, list] of Object.entries(at)) {
    const f = squareFrame(key === "jail" ? 10 : Number(key));
    list.forEach(([p, k], n) => {
      // Jailed players sit in the cell's inner corner; visitors along its outer edge.
      const dx = key === "jail" ? 20 + (n % 2) * 30 : (n % 3 - 1) * 28;
      const dy = key === "jail" ? -40 + Math.floor(n / 2) * 30 : 10 + Math.floor(n / 3) * 28;
      g.append(svg("circle", { cx: f.x + dx, cy: f.y + dy, r: 13, fill: PLAYER_COLOURS[k % PLAYER_COLOURS.length],
        class: "token", "data-player": p.name }));
      g.append(svg("text", { x: f.x + dx, y: f.y + dy + 5, class: "token-label", "text-anchor": "middle", text: p.name.slice(0, 1) }));
    });
  }
  return g;
}

/* ---- words for the turn and the pending decision ---- */

function phaseText(phase) { return t(`phase_${phase}`); }

function pendingText(p) {
  if (!p) return t("nothing_pending");
  switch (p.kind) {
    case "buy": return `${p.player}: ${t("buy")} ${deedName(p.deed)} (${money(BOARD.deeds[p.deed].price)})?`;
    case "auction": return `${t("auction")}: ${deedName(p.deed)} — ${t("high_bid")} ${money(p.high_bid)}${p.high_bidder ? " (" + p.high_bidder + ")" : ""}`;
    case "card": return `${p.player}: ${t("draw_card")} — ${BOARD.decks[p.deck] || p.deck}`;
    case "debt": return `${p.debtor}: ${t("pay_debt")} ${money(p.amount)} → ${who(p.creditor)} (${p.rule})`;
    case "jail_fine": return `${p.player}: ${t("pay_jail_fine")}`;
    case "tax_choice": return `${p.player}: ${t("choose_tax_flat")} / ${t("choose_tax_percent")}`;
    case "utility_roll": return `${p.player}: ${t("roll")} (×${p.multiplier})`;
    case "start_order": return `${phaseText("start_order")}: ${(p.groups || []).map((g) => g.join("/")).join(" > ")}`;
    case "build_round": return `M.BUILD.5: ${(p.declarations || []).map((d) => `${d[0]} ${deedName(d[1])} ×${d[2]}`).join(", ")}`;
    case "building_auction": return `M.BUILD.6: ${p.unit} — ${t("high_bid")} ${money(p.high_bid)}`;
    case "tie_break": return `M.END.4: ${(p.groups || []).map((g) => g.join("/")).join(" > ")}`;
    default: return p.kind;
  }
}

function verdictText(roll) {
  if (!roll) return t("no_roll");
  if (roll.verdict === "ok") return `${t("verdict_ok")}: ${(roll.dice || []).map((d) => (typeof d === "object" ? d.value : d)).join("+")}`;
  return `${t("verdict_" + roll.verdict)}: ${reasonText(roll.reason)}`;
}
