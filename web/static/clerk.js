/* The clerk's console: everything the camera can't see, as engine commands posted to the JSON API with the
   session's CSRF token. A refused command shows the rule's message (rule ID always shown). */
"use strict";

const root = document.getElementById("console");
const logList = document.getElementById("log");
let STATE = null;
let LEGAL = [];

/* Sends one command; the dashboard and this page redraw from the stream, not from this reply. */
async function send(command) {
  const { ok, data } = await postJSON(TABLE.commands, command);
  if (ok) {
    const rows = Array.isArray(data) ? data : data.events || [];
    const words = rows.map(eventText).filter(Boolean);
    showResult(true, words.join(" · ") || command.type);
  } else {
    showResult(false, ruleMessage(data));
  }
  return ok;
}

function button(label, command, extra) {
  const attrs = Object.assign({ type: "button", dataset: { cmd: command.type }, onclick: () => send(command) }, extra || {});
  // Commands the engine lists as allowed now get a green ring; the others stay clickable (and are refused
  // with the rule's message), since the list leaves out open-ended commands.
  attrs.class = [attrs.class || "", isLegal(command) ? "legal" : ""].join(" ").trim();
  return el("button", attrs, label);
}

/* Whether the engine lists this command as allowed now (open-ended commands are never listed). */
function isLegal(command) {
  return LEGAL.some((c) => Object.keys(command).every((k) => JSON.stringify(c[k]) === JSON.stringify(command[k])));
}

/* ---- status ---- */

function renderStatus(state) {
  const turn = state.turn;
  const box = document.getElementById("status");
  box.replaceChildren(
    el("div", { class: "turn-line" }, el("span", { class: "label" }, t("turn")),
      el("b", { id: "turn-player" }, turn.player), ` · ${t("turn_no")} ${turn.number} · ${phaseText(turn.phase)}`,
      turn.doubles ? el("span", { class: "badge" }, `${t("doubles")} ×${turn.doubles}`) : null),
    el("div", { class: "pending", id: "pending", dataset: { kind: (state.pending && state.pending.kind) || "" } },
      el("span", { class: "label" }, t("pending")), pendingText(state.pending)),
    el("div", { class: "mini-players" }, state.players.map((p, k) => el("span", { class: `mini${p.bankrupt ? " out" : ""}`,
      dataset: { player: p.name } }, el("span", { class: "dot", style: `background:${PLAYER_COLOURS[k % 8]}` }),
    `${p.name} ${money(p.cash)}`, p.in_jail ? ` (${t("in_jail")})` : "", ` @ ${squareName(p.position)}`))),
  );
}

/* ---- the decision the game waits for ---- */

function playerSelect(id, state, selected) {
  return el("select", { id }, state.players.filter((p) => !p.bankrupt).map((p) =>
    el("option", { value: p.name, selected: p.name === selected }, p.name)));
}

function renderDecision(state) {
  const box = document.getElementById("decision");
  const p = state.pending;
  const parts = [el("p", { class: "pending-text" }, pendingText(p))];
  if (!p) {
    box.replaceChildren(...parts);
    return;
  }
  switch (p.kind) {
    case "buy":
      parts.push(el("div", { class: "row" }, button(`${t("buy")} ${deedName(p.deed)} ${money(BOARD.deeds[p.deed].price)}`,
        { type: "buy" }, { id: "buy-btn", class: "primary" }), button(t("decline"), { type: "decline" }, { id: "decline-btn" })));
      break;
    case "auction":
    case "building_auction": {
      const step = (state.options && state.options.auction_step) || 10;
      const minBid = (state.options && state.options.auction_min_bid) || 10;
      const next = Math.max(minBid, (p.high_bid || 0) + step);
      const out = new Set([...(p.out || []), ...(p.excluded || [])]);
      const rows = state.players.filter((q) => !q.bankrupt && !out.has(q.name)).map((q) => {
        const amount = el("input", { type: "number", min: 1, step, value: next, class: "bid-amount", "aria-label": `${q.name} ${t("amount")}` });
        return el("div", { class: "row bidder", dataset: { player: q.name } }, el("b", {}, q.name), amount,
          el("button", { type: "button", class: "bid-btn", onclick: () => send({ type: "bid", player: q.name, amount: Number(amount.value) }) }, t("bid")),
          q.name !== p.high_bidder || p.held ? el("button", { type: "button", class: "pass-btn",
            onclick: () => send({ type: "pass_bid", player: q.name }) }, t("pass_bid")) : null);
      });
      parts.push(...rows);
      if (p.kind === "building_auction" && p.placing) {
        const sel = el("select", { id: "place-deed" }, Object.entries(state.deeds).filter(([, d]) => d.owner === p.high_bidder)
          .map(([id]) => el("option", { value: id }, deedName(id))));
        parts.push(el("div", { class: "row" }, sel, el("button", { type: "button",
          onclick: () => send({ type: "place_building", player: p.high_bidder, deed: sel.value }) }, t("build"))));
      }
      break;
    }
    case "card": {
      const edition = (state.options && state.options.edition) || "2008";
      const cards = ((PAGE.cards[edition] || {})[p.deck]) || [];
      const sel = el("select", { id: "card-select" }, el("option", { value: "" }, t("seeded_card")),
        cards.map((c) => el("option", { value: c.key }, c.title)));
      parts.push(el("div", { class: "row" }, sel, el("button", { type: "button", id: "draw-btn", class: "primary",
        onclick: () => send(sel.value ? { type: "draw_card", deck: p.deck, card: sel.value } : { type: "draw_card", deck: p.deck }) }, t("draw_card"))));
      break;
    }
    case "debt":
      parts.push(el("div", { class: "row" }, button(t("pay_debt"), { type: "pay_debt" }, { class: "primary" }),
        button(t("declare_bankruptcy"), { type: "declare_bankruptcy" }, { class: "danger" })));
      break;
    case "jail_fine":
      parts.push(el("div", { class: "row" }, button(t("pay_jail_fine"), { type: "pay_jail_fine" }),
        button(t("use_jail_card"), { type: "use_jail_card" }), button(t("declare_bankruptcy"), { type: "declare_bankruptcy" }, { class: "danger" })));
      break;
    case "tax_choice":
      parts.push(el("div", { class: "row" }, button(t("choose_tax_flat"), { type: "choose_tax", option: "flat" }),
        button(t("choose_tax_percent"), { type: "choose_tax", option: "percent" })));
      break;
    case "build_round":
      parts.push(el("div", { class: "row" }, state.players.filter((q) => !q.bankrupt && !(p.passed || []).includes(q.name))
        .map((q) => button(`${q.name}: ${t("pass_build")}`, { type: "pass_build", player: q.name }))));
      break;
    default:
      break;  // start order, utility roll, tie break: the dice entry below
  }
  box.replaceChildren(...parts);
}

/* ---- build / sell with the even rule shown ---- */

function ownedGroups(state) {
  const out = [];
  for (const [group, members] of Object.entries(BOARD.groups)) {
    if (!BOARD.colours[group]) continue;  // railroads and utilities take no buildings
    const owner = state.deeds[members[0]].owner;
    if (owner && members.every((m) => state.deeds[m].owner === owner)) out.push({ group, owner, members });
  }
  return out;
}

function renderBuilds(state) {
  const box = document.getElementById("builds");
  const groups = ownedGroups(state);
  if (!groups.length) { box.replaceChildren(el("p", { class: "muted" }, t("no_groups"))); return; }
  box.replaceChildren(...groups.map(({ group, owner, members }) => {
    const levels = members.map((m) => (state.deeds[m].hotel ? 5 : state.deeds[m].houses));
    const lo = Math.min(...levels);
    return el("div", { class: "group", dataset: { group } },
      el("div", { class: "group-head" }, el("span", { class: "swatch", style: `background:${BOARD.colours[group]}` }),
        `${BOARD.group_names[group]} — ${owner}`, el("span", { class: "muted small" }, ` ${money(BOARD.deeds[members[0]].house_cost)} ${t("per_house")}`)),
      members.map((m, i) => {
        const d = state.deeds[m];
        const level = levels[i];
        // The even rule at a glance: a deed above the group's lowest level can't take the next house.
        const evenOk = level === lo;
        return el("div", { class: `deed-row${d.mortgaged ? " mort" : ""}`, dataset: { deed: m, level } },
          el("span", { class: "deed-name" }, deedName(m)),
          el("span", { class: `level${evenOk ? "" : " above"}`, title: t("even_rule") }, d.hotel ? "H" : "■".repeat(d.houses) + "□".repeat(4 - d.houses)),
          button("+1", { type: "build", player: owner, deed: m, count: 1 }, { class: "build-btn", title: t("build") }),
          button(t("build_hotel"), { type: "build_hotel", player: owner, deed: m }, { class: "hotel-btn" }),
          button("−1", { type: "sell_building", player: owner, deed: m, count: 1 }, { class: "sell-btn", title: t("sell") }));
      }));
  }));
}

function renderMortgages(state) {
  const box = document.getElementById("mortgages");
  const rows = state.players.filter((p) => !p.bankrupt).map((p) => {
    const owned = Object.entries(state.deeds).filter(([, d]) => d.owner === p.name);
    if (!owned.length) return null;
    return el("div", { class: "mort-player", dataset: { player: p.name } }, el("b", {}, p.name), owned.map(([id, d]) =>
      d.mortgaged
        ? button(`${deedName(id)}: ${t("unmortgage")}`, { type: "unmortgage", player: p.name, deed: id }, { class: "chipbtn mort" })
        : button(`${deedName(id)}: ${t("mortgage")}`, { type: "mortgage", player: p.name, deed: id }, { class: "chipbtn" })));
  }).filter(Boolean);
  box.replaceChildren(...rows);
}

/* ---- trade builder ---- */

function tradeSide(fieldset, legendText, state, name) {
  const legend = el("legend", {}, legendText);
  const cash = el("input", { type: "number", min: 0, step: 1, value: 0, class: "trade-cash", "aria-label": t("cash") });
  const player = state.players.find((p) => p.name === name);
  const deeds = Object.entries(state.deeds).filter(([, d]) => d.owner === name).map(([id, d]) =>
    el("label", { class: "check" }, el("input", { type: "checkbox", value: id, class: "trade-deed" }), deedName(id), d.mortgaged ? ` (${t("mortgaged")})` : ""));
  const cards = ((player && player.jail_cards) || []).map((c) =>
    el("label", { class: "check" }, el("input", { type: "checkbox", value: c, class: "trade-card" }), cardName(c)));
  fieldset.replaceChildren(legend, el("label", {}, `${t("cash")} `, cash), el("div", { class: "checks" }, deeds, cards));
}

function readSide(fieldset) {
  const side = {};
  const cash = Number(fieldset.querySelector(".trade-cash").value || 0);
  if (cash) side.cash = cash;
  const deeds = [...fieldset.querySelectorAll(".trade-deed:checked")].map((x) => x.value);
  if (deeds.length) side.deeds = deeds;
  const cards = [...fieldset.querySelectorAll(".trade-card:checked")].map((x) => x.value);
  if (cards.length) side.jail_cards = cards;
  return side;
}

function tradeCommand() {
  return { type: "trade", from: document.getElementById("trade-from").value, to: document.getElementById("trade-to").value,
    give: readSide(document.getElementById("trade-give")), get: readSide(document.getElementById("trade-get")) };
}

function renderTrade(state) {
  const from = document.getElementById("trade-from");
  const to = document.getElementById("trade-to");
  const keepFrom = from.value, keepTo = to.value;
  const names = state.players.filter((p) => !p.bankrupt).map((p) => p.name);
  const ownersChanged = JSON.stringify(names) !== from.dataset.names;
  if (ownersChanged) {
    from.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    to.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    from.dataset.names = JSON.stringify(names);
    from.value = names.includes(keepFrom) ? keepFrom : names[0];
    to.value = names.includes(keepTo) ? keepTo : names[1] || names[0];
  }
  // Redraw the two sides only when who or what they own changed, so a half-built trade survives pushes.
  const key = JSON.stringify([from.value, to.value, ...[from.value, to.value].map((n) =>
    [Object.entries(state.deeds).filter(([, d]) => d.owner === n).map(([id, d]) => id + d.mortgaged),
      (state.players.find((p) => p.name === n) || {}).jail_cards])]);
  const give = document.getElementById("trade-give");
  if (give.dataset.key !== key) {
    give.dataset.key = key;
    tradeSide(give, `${from.value} ${t("gives")}`, state, from.value);
    tradeSide(document.getElementById("trade-get"), `${to.value} ${t("gives")}`, state, to.value);
    document.getElementById("trade-verdict").textContent = "";
  }
}

async function checkTrade() {
  const verdict = document.getElementById("trade-verdict");
  const { ok, data } = await postJSON(TABLE.check, tradeCommand());
  if (ok && data.ok) { verdict.className = "verdict ok"; verdict.textContent = `${t("check_ok")} ✓`; }
  else { verdict.className = "verdict refused"; verdict.textContent = ruleMessage(data); }
  verdict.dataset.ok = ok && data.ok ? "1" : "0";
}

/* ---- camera: corner clicks over the live MJPEG preview ---- */

let corners = [];
let outline = null; // the table's calibration: board (and tray) in the camera's frame pixels

async function loadOutline() {
  try {
    outline = (await getJSON(TABLE.calibration)).calibration;
  } catch (e) {
    outline = null;
  }
  document.getElementById("corners").dataset.outline = outline ? "1" : "0";
  drawCorners();
}

/* The camera's status beside its preview ("camera not read: the calibration is for ..." and the like); the
   outline is fetched again whenever the status changes (a calibration saved from another console). */
let cameraSince = null;
function renderCamera(state) {
  const cam = state.table && state.table.camera;
  const line = document.getElementById("camera-status");
  if (!cam) return;
  line.className = `camera small ${cam.ok ? "ok" : "bad"}`;
  line.textContent = cameraText(cam);
  if (cameraSince !== null && cam.since !== cameraSince) loadOutline();
  cameraSince = cam.since;
}

/* The camera frame's size: the preview's, else the calibration's frames', else the usual 640x480. */
function frameSize() {
  const img = document.getElementById("camera-img");
  return [img.naturalWidth || (outline && outline.size[0]) || 640, img.naturalHeight || (outline && outline.size[1]) || 480];
}

function drawCorners() {
  const overlay = document.getElementById("corners");
  const [w, h] = frameSize();
  overlay.setAttribute("viewBox", `0 0 ${w} ${h}`);
  // Where the calibration in use puts the board, so that a camera knocked out of place shows at a glance.
  const calibrated = outline ? [["board", outline.board], ["tray", outline.tray]].filter(([, p]) => p).map(([kind, p]) =>
    svg("polygon", { points: p.map((c) => c.join(",")).join(" "), class: `calibrated-poly ${kind}` })) : [];
  overlay.replaceChildren(...calibrated, ...corners.map(([x, y], i) => svg("g", {},
    svg("circle", { cx: x, cy: y, r: Math.max(4, w / 120), class: "corner" }),
    svg("text", { x: x + 8, y: y - 8, class: "corner-label", text: String(i + 1) }))));
  if (corners.length > 1) overlay.append(svg("polygon", { points: corners.map((c) => c.join(",")).join(" "), class: "corner-poly" }));
  document.getElementById("corners-save").disabled = corners.length !== 4;
  document.getElementById("corners-text").textContent = corners.map((c) => `(${c[0]}, ${c[1]})`).join(" ");
}

function setupCamera() {
  const img = document.getElementById("camera-img");
  const overlay = document.getElementById("corners");
  overlay.addEventListener("click", (e) => {
    if (corners.length >= 4) return;
    const box = overlay.getBoundingClientRect();
    const [w, h] = frameSize();
    corners.push([Math.round(((e.clientX - box.left) / box.width) * w), Math.round(((e.clientY - box.top) / box.height) * h)]);
    drawCorners();
  });
  document.getElementById("corners-reset").addEventListener("click", () => { corners = []; drawCorners(); });
  // The board found by its outline in the camera's picture: placed as if clicked, for the clerk to check and save.
  document.getElementById("corners-find").addEventListener("click", async () => {
    const { ok, data } = await postJSON(TABLE.find_board, {});
    if (ok) {
      corners = data.corners.map(([x, y]) => [Math.round(x), Math.round(y)]);
      drawCorners();
    }
    showResult(ok, ok ? t("calibration_found") : ruleMessage(data));
  });
  document.getElementById("corners-save").addEventListener("click", async () => {
    const { ok, data } = await postJSON(TABLE.calibration, { corners });
    showResult(ok, ok ? t("calibration_saved") : ruleMessage(data));
    if (ok) {
      corners = [];
      await loadOutline();
    }
  });
  img.addEventListener("load", drawCorners);
  img.addEventListener("error", () => img.classList.add("missing"));
  // The preview may have failed before this script ran (no camera: 404).
  if (img.complete && !img.naturalWidth) img.classList.add("missing");
  drawCorners();
  loadOutline();
}

/* ---- wiring ---- */

function wireStatic() {
  document.getElementById("roll-btn").addEventListener("click", () => {
    const dice = [Number(document.getElementById("die1").value), Number(document.getElementById("die2").value)];
    const p = STATE && STATE.pending;
    // Start-order and tie-break rolls name the player whose roll it is.
    const cmd = { type: "roll", dice };
    if (p && (p.kind === "start_order" || p.kind === "tie_break")) {
      const done = new Set((p.rolls || []).map((r) => r[0]));
      const group = (p.groups || []).find((g) => g.length > 1) || [];
      const next = group.find((n) => !done.has(n));
      if (next) cmd.player = next;
    }
    send(cmd);
  });
  document.getElementById("void-btn").addEventListener("click", () => send({ type: "void_throw", reason: "clerk" }));
  document.getElementById("end-turn-btn").addEventListener("click", () => send({ type: "end_turn" }));
  document.getElementById("jail-fine-btn").addEventListener("click", () => send({ type: "pay_jail_fine" }));
  document.getElementById("jail-card-btn").addEventListener("click", () => send({ type: "use_jail_card" }));
  document.getElementById("undo-btn").addEventListener("click", () => send({ type: "undo" }));
  document.getElementById("end-signal-btn").addEventListener("click", () => {
    if (window.confirm(t("confirm_end_signal"))) send({ type: "end_signal" });
  });
  document.getElementById("trade-check").addEventListener("click", checkTrade);
  document.getElementById("trade-submit").addEventListener("click", () => send(tradeCommand()));
  for (const id of ["trade-from", "trade-to"]) {
    document.getElementById(id).addEventListener("change", () => { if (STATE) renderTrade(STATE); });
  }
  setupCamera();
}

function markLegalStatic() {
  for (const [id, type] of [["end-turn-btn", "end_turn"], ["jail-fine-btn", "pay_jail_fine"], ["jail-card-btn", "use_jail_card"]]) {
    document.getElementById(id).classList.toggle("legal", LEGAL.some((c) => c.type === type));
  }
}

async function render(state, rows) {
  STATE = state;
  if (typeof showTableClock === "function") showTableClock(state);
  appendLog(logList, rows, 100);
  try { LEGAL = (await getJSON(TABLE.legal)).commands || []; } catch (e) { LEGAL = []; }
  if (STATE !== state) return;  // a newer push arrived while the legal list loaded
  renderStatus(state);
  renderCamera(state);
  renderDecision(state);
  renderBuilds(state);
  renderMortgages(state);
  renderTrade(state);
  markLegalStatic();
  markSeq(root, state);
}

wireStatic();
follow(render);
