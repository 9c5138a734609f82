/* Model seats on stage (the delayed /spectator view only): beside each seat, a small box
 * with what it had in mind for its last decision: its strategy hint (策略 / Strategy) and
 * a summary of its reasoning (思路 / Reasoning), from the spectator feed's "thought"
 * items (docs/overlay.md). Never on the live /overlay: the shell calls this only in
 * spectator mode, and the live page's feed never carries a thought.
 *
 * Where a box goes is measured, not written into the layout: after each render it is put
 * beside its seat's panel, on the first side where it fits the frame and covers no seat
 * panel (and, if it can, nothing else of the table); so it follows any layout, three to
 * six seats, landscape or portrait. Text goes in with textContent only: a hint or a
 * model's reasoning is an agent's own words.
 */
(function () {
  "use strict";

  const LABELS = {
    zh: { hint: "策略", reasoning: "思路" },
    en: { hint: "Strategy", reasoning: "Reasoning" },
  };
  const GAP = 10;
  /** What a box must never cover (the seat panels), and what it avoids when it can. */
  const HARD = ".seat-panel";
  const SOFT = ".seat-hand, .seat-action .card, .bubble:not([hidden]), #topbar, "
    + "#leaderboard:not([hidden]), .story-card:not([hidden]), #peek:not([hidden])";

  /** The last thought of each seat, by seat number. */
  let thoughts = {};

  function layer() {
    let box = document.getElementById("thoughts");
    if (!box) {
      box = document.createElement("div");
      box.id = "thoughts";
      document.getElementById("overlay").appendChild(box);
    }
    return box;
  }

  function line(cls, label, text) {
    const row = document.createElement("div");
    row.className = `thought-line ${cls}`;
    const name = document.createElement("span");
    name.className = "thought-label";
    name.textContent = label;
    const said = document.createElement("span");
    said.className = "thought-text";
    said.textContent = text;
    row.append(name, said);
    return row;
  }

  /** The box of a seat, made once. */
  function boxOf(seat) {
    const root = layer();
    let box = root.querySelector(`.thought[data-seat="${seat}"]`);
    if (!box) {
      box = document.createElement("div");
      box.className = "thought panel";
      box.dataset.seat = String(seat);
      root.appendChild(box);
    }
    return box;
  }

  function fill(box, thought, lang) {
    const labels = LABELS[lang] || LABELS.zh;
    const rows = [];
    if (typeof thought.hint === "string" && thought.hint) rows.push(line("thought-hint", labels.hint, thought.hint));
    if (typeof thought.reasoning === "string" && thought.reasoning) {
      rows.push(line("thought-reasoning", labels.reasoning, thought.reasoning));
    }
    const key = JSON.stringify([lang, thought.seq, thought.table]);
    if (box.dataset.key !== key) {
      box.replaceChildren(...rows);
      box.dataset.key = key;
      box.classList.remove("fresh");
      void box.offsetWidth; // restart the fade-in for a new thought
      box.classList.add("fresh");
    }
    return rows.length > 0;
  }

  /** Rectangles in the overlay's own 1920x1080 (or 1080x1920) pixels, whatever the scale. */
  function frame() {
    const root = document.getElementById("overlay");
    const r = root.getBoundingClientRect();
    const scale = root.offsetWidth ? r.width / root.offsetWidth : 1;
    const rect = (node) => {
      const b = node.getBoundingClientRect();
      return { x: (b.left - r.left) / scale, y: (b.top - r.top) / scale, w: b.width / scale, h: b.height / scale };
    };
    return { w: root.offsetWidth, h: root.offsetHeight, rect };
  }

  function overlap(a, b) {
    const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
    const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
    return w > 0 && h > 0 ? w * h : 0;
  }

  /** Beside the panel: right, left, above, below (each aligned both ways). */
  function candidates(p, w, h) {
    return [
      { x: p.x + p.w + GAP, y: p.y },
      { x: p.x - GAP - w, y: p.y },
      { x: p.x + p.w + GAP, y: p.y + p.h - h },
      { x: p.x - GAP - w, y: p.y + p.h - h },
      { x: p.x, y: p.y - GAP - h },
      { x: p.x + p.w - w, y: p.y - GAP - h },
      { x: p.x, y: p.y + p.h + GAP },
      { x: p.x + p.w - w, y: p.y + p.h + GAP },
    ].map((c) => ({ x: c.x, y: c.y, w, h }));
  }

  /** The first place in the frame over no panel, covering the least of the rest; the
   *  box stays where it was while that place is still clear (no jumping with each play). */
  function place(box, panel, f, placed) {
    const w = box.offsetWidth;
    const h = box.offsetHeight;
    const p = f.rect(panel);
    const hard = [...document.querySelectorAll(HARD)].map(f.rect).concat(placed);
    const soft = [...document.querySelectorAll(SOFT)].map(f.rect);
    let best = null;
    let bestCost = Infinity;
    const side = Number(box.dataset.side);
    const sides = candidates(p, w, h);
    const order = Number.isInteger(side) && sides[side] ? [sides[side], ...sides] : sides;
    order.forEach((c) => {
      if (c.x < 0 || c.y < 0 || c.x + c.w > f.w || c.y + c.h > f.h) return;
      if (hard.some((r) => overlap(c, r) > 0)) return;
      const cost = soft.reduce((sum, r) => sum + overlap(c, r), 0);
      if (cost < bestCost) { best = c; bestCost = cost; }
    });
    if (best) box.dataset.side = String(sides.findIndex((c) => c.x === best.x && c.y === best.y));
    if (!best) { // nowhere free: the first side, kept inside the frame
      const c = candidates(p, w, h)[0];
      best = { x: Math.max(0, Math.min(c.x, f.w - w)), y: Math.max(0, Math.min(c.y, f.h - h)), w, h };
    }
    box.style.left = `${Math.round(best.x)}px`;
    box.style.top = `${Math.round(best.y)}px`;
    return best;
  }

  /** Draw every seat's box where it fits (after each render of the shell). */
  function render(app) {
    const root = layer();
    const state = app && app.snapshot;
    const round = state && Number.isInteger(state.round) ? state.round : null;
    const lang = (app && app.lang) || "zh";
    const f = frame();
    const placed = [];
    const seen = new Set();
    Object.keys(thoughts).forEach((seat) => {
      const thought = thoughts[seat];
      const box = boxOf(seat);
      seen.add(box);
      const node = document.querySelector(`.seat[data-seat="${CSS.escape(seat)}"]`);
      const panel = node && node.querySelector(".seat-panel");
      if (node) box.style.setProperty("--seat-color", node.style.getPropertyValue("--seat-color"));
      const current = round === null || thought.round === round;
      box.hidden = !(panel && current && fill(box, thought, lang));
      if (!box.hidden) placed.push(place(box, panel, f, placed));
    });
    root.querySelectorAll(".thought").forEach((box) => { if (!seen.has(box)) box.remove(); });
  }

  function keep(thought) {
    if (thought && typeof thought === "object" && Number.isInteger(thought.seat)) thoughts[thought.seat] = thought;
  }

  window.ArenaThoughts = {
    /** A delayed "thought" item: the seat's box shows it from now on. */
    item(thought, app) { keep(thought); render(app); },
    /** A snapshot of the delayed view: each seat's last thought (none: a new match). */
    snapshot(list) { thoughts = {}; (Array.isArray(list) ? list : []).forEach(keep); },
    render,
  };
})();
