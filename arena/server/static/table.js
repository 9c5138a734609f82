/* The middle of the table on the overlay: every game's centre trick, move history and
 * turn ring (issue 27). The shell (overlay.js) calls it; it knows seats, their
 * `action` ({type, cards?}) and the `play` / `pass` events, nothing of one game: a
 * game's renderer names its other moves (`moveText(action)`: a bid, say) and
 * labels a play (`trickLabel(action)`, a hand type).
 *
 * - The trick (#trick): the current trick's plays and passes, oldest to newest, each
 *   under its player's name in its seat's colour; the newest play big. When a trick is
 *   won (every seat's action cleared) the last one stays, dimmed, until the next play,
 *   so that the centre always shows the round's last play. It gives way to the result
 *   and match cards (CSS: a story card shown hides it).
 * - The history (#moves): the round's last MOVES_SHOWN moves, newest first: kept from
 *   the events as they come, and rebuilt from the snapshot's seat actions when a page
 *   joins (or changes table or round), in the order the seats acted.
 * - The ring: around the avatar of the seat to act, the part of its decision time left.
 *
 * Every string from agents goes on the page with textContent only.
 */
"use strict";

(function () {
  const MOVES_KEPT = 24; // (a seat event no game names is kept, not shown)
  /** A seat's events that are never moves of the history (every table's). */
  const NOT_MOVES = new Set(["turn_started", "decision", "fault", "seat_replaced", "budget_spent",
    "gift", "effect_applied", "round_started", "round_result", "match_started", "match_ended"]);
  const MOVES_SHOWN = 8;
  const TRICK_SHOWN = 4; // the newest entries of a trick in the centre (six seats: not all)
  const SVG = "http://www.w3.org/2000/svg";
  const RING_R = 54;
  const RING_LEN = 2 * Math.PI * RING_R;

  const WORDS = {
    zh: { pass: "不出", moves: "出牌记录" },
    en: { pass: "Pass", moves: "Moves" },
  };

  const hist = { table: null, round: null, lastSeq: -1, items: [] };
  let players = []; // the seats' players, by seat, from the last snapshot
  let lastTrick = null; // {round, entries}: the trick shown, kept dimmed once it is won
  let shownKeys = new Set(); // the centre's entries already drawn (animated once only)
  let lastDrawn = null; // what the centre shows now, as its entries' keys
  let drawnFor = null; // the table whose trick was drawn: a page that joins animates nothing

  function word(ctx, key) {
    const own = (WORDS[ctx.lang] || WORDS.zh)[key];
    const shell = ctx.t(key);
    return shell !== key ? shell : own;
  }

  const isTrickAction = (a) => !!a && (a.type === "play" || a.type === "pass");

  /** One move of the history, from a seat's action ({type, ...}); its words are found
   *  when it is drawn (the game's renderer may load after the move came). */
  function moveOf(seat, player, action, seq) {
    const cards = action.type === "play" && Array.isArray(action.cards) ? action.cards.map(String) : null;
    return { seat, player: player || null, type: action.type, cards, action, seq };
  }

  /** A move's words: a pass, else the game's (`moveText`); null when none names it. */
  function moveWords(move, ctx) {
    if (move.cards) return "";
    if (move.type === "pass") return word(ctx, "pass");
    const own = ctx.hook("moveText", move.action);
    return typeof own === "string" && own ? own : null;
  }

  /** The seats that acted, oldest first: after the seat to act, round the table
   *  (the one to act, if it has acted, acted first); else after the last play. */
  function actingOrder(state) {
    const seats = Array.isArray(state.seats) ? state.seats : [];
    const n = seats.length;
    let start = 0;
    if (state.turn && Number.isInteger(state.turn.seat)) start = state.turn.seat;
    else if (state.trick && Number.isInteger(state.trick.seat)) start = state.trick.seat + 1;
    const order = [];
    for (let k = 0; k < n; k++) order.push(seats[(start + k) % n]);
    return order.filter((s) => s && s.action);
  }

  /** The history anew from a snapshot (a page that joins, a new table or round). */
  function rebuild(state, ctx) {
    hist.table = state.table;
    hist.round = state.round;
    hist.lastSeq = Number.isInteger(state.seq) ? state.seq : -1;
    hist.items = [];
    actingOrder(state).forEach((s, i) => {
      hist.items.push(moveOf(s.seat, s.player, s.action, hist.lastSeq - 1 + i / 100));
    });
  }

  /** A public event: a move of the current round goes on the history. */
  function onEvent(ev, ctx) {
    if (!ev) return;
    if (hist.table !== null && ev.table !== hist.table) return; // the next snapshot rebuilds
    if (ev.type === "round_started" || (hist.round !== null && ev.round !== hist.round)) {
      hist.round = ev.round;
      hist.items = [];
    }
    if (!Number.isInteger(ev.seat) || ev.seat < 0) return;
    if (!Number.isInteger(ev.seq) || ev.seq <= hist.lastSeq) return;
    const action = Object.assign({}, ev.data || {}, { type: ev.type });
    if (NOT_MOVES.has(ev.type)) return;
    hist.lastSeq = ev.seq;
    hist.items.push(moveOf(ev.seat, ev.player, action, ev.seq));
    while (hist.items.length > MOVES_KEPT) hist.items.shift();
  }

  /** A player's name in its seat's colour (text only). */
  function who(ctx, seat, player, cls) {
    const node = ctx.el("span", cls || "move-who", player);
    node.dataset.seat = String(seat);
    node.style.setProperty("--seat-color", ctx.seatColor(seat));
    return node;
  }

  /** Small cards as text chips (the history: compact). */
  function miniCards(ctx, cards) {
    const box = ctx.el("span", "mini-cards");
    cards.forEach((card) => {
      const c = ctx.face ? ctx.face(card) : String(card); // a game's face for its card ids
      const chip = ctx.el("span", "mini-card", c);
      if (c.includes("♥") || c.includes("♦") || c === "大王") chip.classList.add("red");
      box.append(chip);
    });
    return box;
  }

  function renderMoves(ctx) {
    const box = document.getElementById("moves");
    if (!box) return;
    const named = hist.items.map((m) => ({ m, text: moveWords(m, ctx) })).filter((x) => x.text !== null);
    const items = named.slice(-MOVES_SHOWN).reverse(); // newest first
    box.hidden = items.length === 0;
    const rows = items.map(({ m, text }) => {
      const row = ctx.el("div", "move");
      row.dataset.type = m.type;
      row.dataset.seat = String(m.seat);
      // (an event without its player's name: the seat's, as the snapshot has it)
      row.append(who(ctx, m.seat, m.player || players[m.seat] || `#${m.seat + 1}`));
      if (m.cards) {
        row.dataset.cards = m.cards.join(" ");
        row.append(miniCards(ctx, m.cards));
      } else {
        row.append(ctx.el("span", "move-text", text));
      }
      return row;
    });
    box.replaceChildren(ctx.el("div", "moves-title", word(ctx, "moves")), ...rows);
  }

  /** The current trick's entries (oldest first), from the snapshot's seat actions in
   *  the order the history has them. */
  function trickEntries(state) {
    const acted = actingOrder(state).filter((s) => isTrickAction(s.action));
    const when = (s) => {
      for (let i = hist.items.length - 1; i >= 0; i--) {
        const m = hist.items[i];
        if (m.seat === s.seat && (m.type === "play" || m.type === "pass")) {
          return m.type === s.action.type ? m.seq : -1;
        }
      }
      return -1;
    };
    const ranked = acted.map((s, i) => ({ s, at: when(s), i }));
    ranked.sort((a, b) => (a.at === b.at ? a.i - b.i : a.at - b.at));
    return ranked.map(({ s, at }) => ({
      seat: s.seat, player: s.player || `#${s.seat + 1}`, action: s.action,
      key: `${state.round}|${s.seat}|${at}|${(s.action.cards || []).join(",")}|${s.action.type}`,
    }));
  }

  /** Where a seat's panel is, from the trick's centre: a new play flies in from there. */
  function fromSeat(seat, box) {
    const panel = document.querySelector(`.seat[data-seat="${seat}"] .seat-panel`);
    if (!panel) return null;
    const a = panel.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (!b.width) return null;
    const root = document.getElementById("overlay");
    const scale = root.getBoundingClientRect().width / root.offsetWidth || 1;
    return {
      dx: ((a.left + a.width / 2) - (b.left + b.width / 2)) / scale,
      dy: ((a.top + a.height / 2) - (b.top + b.height / 2)) / scale,
    };
  }

  function renderTrick(state, ctx) {
    const box = document.getElementById("trick");
    if (!box) return;
    let entries = trickEntries(state);
    let won = false;
    if (entries.some((e) => e.action.type === "play")) {
      lastTrick = { round: state.round, table: state.table, entries };
    } else if (lastTrick && lastTrick.round === state.round && lastTrick.table === state.table
      && state.status === "live") {
      entries = lastTrick.entries; // the trick just won, until the next play
      won = true;
    } else {
      lastTrick = null;
      entries = [];
    }
    entries = entries.slice(-TRICK_SHOWN);
    // the same trick as drawn: left as it is (a flight under way is not restarted)
    const drawn = `${state.table}|${won}|${entries.map((e) => e.key).join(";")}|${ctx.lang}`;
    if (drawn === lastDrawn && box.childElementCount === entries.length) return;
    lastDrawn = drawn;
    box.dataset.state = won ? "won" : "live";
    box.hidden = entries.length === 0;
    let newest = -1;
    entries.forEach((e, i) => { if (e.action.type === "play") newest = i; });
    const seen = new Set();
    const nodes = entries.map((e, i) => {
      const item = ctx.el("div", "trick-entry");
      item.dataset.seat = String(e.seat);
      item.dataset.type = e.action.type;
      item.style.setProperty("--seat-color", ctx.seatColor(e.seat));
      if (i === newest) item.classList.add("latest");
      const head = ctx.el("div", "trick-head");
      head.append(who(ctx, e.seat, e.player, "trick-who"));
      if (e.action.type === "play") {
        const label = ctx.hook("trickLabel", e.action);
        if (typeof label === "string" && label) head.append(ctx.el("span", "trick-label", label));
        const cards = ctx.el("div", "trick-cards cards");
        ctx.setCards(cards, Array.isArray(e.action.cards) ? e.action.cards : []);
        item.append(head, cards);
      } else {
        item.append(head, ctx.el("div", "trick-pass", word(ctx, "pass")));
      }
      seen.add(e.key);
      if (!shownKeys.has(e.key) && !won && drawnFor === state.table) item.classList.add("entering");
      return item;
    });
    box.replaceChildren(...nodes);
    nodes.forEach((item, i) => {
      if (!item.classList.contains("entering")) return;
      const from = fromSeat(entries[i].seat, item);
      if (from) {
        item.style.setProperty("--from-x", `${Math.round(from.dx)}px`);
        item.style.setProperty("--from-y", `${Math.round(from.dy)}px`);
      }
    });
    shownKeys = seen;
    drawnFor = state.table;
  }

  /** The ring round the avatar of the seat to act: `fraction` of its time left. */
  function ring(node, fraction, low) {
    const head = node.querySelector(".seat-head");
    if (!head) return;
    let svg = head.querySelector(":scope > .turn-ring");
    if (fraction === null) {
      if (svg) svg.remove();
      return;
    }
    if (!svg) {
      svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("class", "turn-ring");
      svg.setAttribute("viewBox", "0 0 120 120");
      svg.setAttribute("aria-hidden", "true");
      const track = document.createElementNS(SVG, "circle");
      const arc = document.createElementNS(SVG, "circle");
      [track, arc].forEach((c) => {
        c.setAttribute("cx", "60");
        c.setAttribute("cy", "60");
        c.setAttribute("r", String(RING_R));
      });
      track.setAttribute("class", "ring-track");
      arc.setAttribute("class", "ring-arc");
      arc.setAttribute("stroke-dasharray", RING_LEN.toFixed(2));
      svg.append(track, arc);
      head.prepend(svg);
    }
    const f = Math.max(0, Math.min(1, fraction));
    svg.dataset.fraction = f.toFixed(3);
    svg.classList.toggle("low", !!low);
    svg.querySelector(".ring-arc").setAttribute("stroke-dashoffset", (RING_LEN * (1 - f)).toFixed(2));
  }

  /** Each snapshot: the history (rebuilt when the table or round is new), the trick. */
  function render(state, ctx) {
    if (!state) return;
    players = (Array.isArray(state.seats) ? state.seats : []).map((s) => (s && s.player) || null);
    // the first snapshot of a page that saw the round's events already keeps them
    const kept = hist.table === null && hist.round === state.round && hist.items.length > 0;
    if (kept) hist.table = state.table;
    else if (state.table !== hist.table || state.round !== hist.round) rebuild(state, ctx);
    renderMoves(ctx);
    renderTrick(state, ctx);
  }

  /** The page's language changed, or a move came: the history drawn again. */
  function redraw(ctx) { renderMoves(ctx); }

  window.ArenaTable = { render, onEvent, redraw, ring, history: hist };
})();
