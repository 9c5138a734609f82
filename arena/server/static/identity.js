/* Who is who on the overlay (issue 27): every game's, loaded before the shell.
 *
 * - a colour per seat (stable by seat index, distinct, readable on the dark panels),
 *   which the shell sets as `--seat-color` on each `.seat`;
 * - a default avatar per player, drawn from a hash of the name (no network, no picture
 *   file): a mirrored 5 × 5 pattern in a colour of its own, as an SVG built with DOM
 *   calls; the name goes in its <title> as text only;
 * - a model seat's provider badge: the provider's name and the model's, shortened.
 *
 * Nothing here reads or writes markup from strings: names are data, never HTML.
 */
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";

  /** Seat colours, by seat index: cyan, orange, violet first (the three seats most games
   *  have), then pink, lime, teal, coral, sand. None is the turn's yellow. */
  const SEAT_COLORS = [
    "#4cc9f0", "#ff9f45", "#b794ff", "#f36bbd", "#a5e05a", "#2fe0c0", "#ff6b6b", "#e9d8a6",
  ];

  function seatColor(index) {
    const i = Number.isInteger(index) && index >= 0 ? index : 0;
    return SEAT_COLORS[i % SEAT_COLORS.length];
  }

  /** FNV-1a over the name's UTF-16 units: the same name, the same number, everywhere. */
  function hash(text) {
    let h = 0x811c9dc5;
    const s = String(text);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    // one more mix, so that names differing in their last letter differ in every bit
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d) >>> 0;
    h ^= h >>> 12;
    return h >>> 0;
  }

  /** The avatar's design for a name: its hue and the 15 cells of the left half and middle
   *  (the right half mirrors them). Exposed so tests and other parts can compare. */
  function design(name) {
    const h = hash(name);
    const hue = Math.floor(((h >>> 16) / 65536) * 360);
    const cells = [];
    for (let bit = 0; bit < 15; bit++) cells.push((h >>> bit) & 1);
    // never an empty or a full pattern: keep at least a few cells on and a few off
    const on = cells.reduce((a, b) => a + b, 0);
    if (on < 4) [0, 6, 8, 12].forEach((b) => { cells[b] = 1; });
    if (on > 12) [1, 7, 11].forEach((b) => { cells[b] = 0; });
    return { hue, cells, key: `${hue}:${cells.join("")}` };
  }

  /** A default avatar for `name`: an <svg> (DOM calls only; the name as text in <title>). */
  function avatar(name) {
    const shown = name === null || name === undefined ? "?" : String(name);
    const d = design(shown);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 7 7");
    svg.setAttribute("class", "seat-avatar-default");
    svg.setAttribute("role", "img");
    svg.dataset.design = d.key;
    const title = document.createElementNS(SVG, "title");
    title.textContent = shown;
    svg.appendChild(title);
    const back = document.createElementNS(SVG, "rect");
    back.setAttribute("width", "7");
    back.setAttribute("height", "7");
    back.setAttribute("fill", `hsl(${d.hue}, 45%, 18%)`);
    svg.appendChild(back);
    const fill = `hsl(${d.hue}, 80%, 62%)`;
    for (let col = 0; col < 3; col++) {
      for (let row = 0; row < 5; row++) {
        if (!d.cells[col * 5 + row]) continue;
        for (const x of col === 2 ? [2] : [col, 4 - col]) {
          const cell = document.createElementNS(SVG, "rect");
          cell.setAttribute("x", String(x + 1));
          cell.setAttribute("y", String(row + 1));
          cell.setAttribute("width", "1.02"); // no hairline seams between cells
          cell.setAttribute("height", "1.02");
          cell.setAttribute("fill", fill);
          svg.appendChild(cell);
        }
      }
    }
    return svg;
  }

  /** Providers the arena knows, by the name a seat's `provider` has; another provider's
   *  name is shown as it is. */
  const PROVIDERS = {
    openai: "OpenAI", anthropic: "Anthropic", deepseek: "DeepSeek", qwen: "Qwen",
    dashscope: "Qwen", ollama: "Ollama", vllm: "vLLM", openrouter: "OpenRouter",
    moonshot: "Moonshot", zhipu: "Zhipu", gemini: "Gemini", google: "Gemini",
  };

  /** The provider of a model seat: its figures' `provider`, else a guess from the model's
   *  name for the well-known families, else null. */
  function providerOf(fig) {
    const given = fig && typeof fig.provider === "string" && fig.provider.trim() ? fig.provider.trim() : null;
    if (given) return given;
    const model = fig && typeof fig.model === "string" ? fig.model.toLowerCase() : "";
    if (/^(gpt|o[134]\b|o[134]-|chatgpt)/.test(model)) return "openai";
    if (model.startsWith("claude")) return "anthropic";
    if (model.includes("deepseek")) return "deepseek";
    if (model.includes("qwen")) return "qwen";
    return null;
  }

  function providerLabel(provider) {
    const key = String(provider).toLowerCase();
    return PROVIDERS[key] || String(provider);
  }

  /** A model's name for a badge: without an organisation prefix ("Qwen/…") or a date
   *  stamp ("-20241022"), at most 18 characters. */
  function shortModel(model) {
    let name = String(model);
    const slash = name.lastIndexOf("/");
    if (slash >= 0 && slash < name.length - 1) name = name.slice(slash + 1);
    name = name.replace(/[-@]20\d{2}-?\d{2}-?\d{2}$/, "");
    const chars = Array.from(name);
    return chars.length > 18 ? `${chars.slice(0, 17).join("")}…` : name;
  }

  /** A badge for a model seat's figures: provider and model, each text; the full names in
   *  the title. Null when the figures name neither. */
  function providerBadge(fig) {
    const provider = providerOf(fig);
    const model = fig && typeof fig.model === "string" && fig.model ? fig.model : null;
    if (!provider && !model) return null;
    const badge = document.createElement("span");
    badge.className = "provider-badge";
    if (provider) {
      const key = String(provider).toLowerCase();
      badge.dataset.provider = key in PROVIDERS ? key : "other";
      const p = document.createElement("span");
      p.className = "badge-provider";
      p.textContent = providerLabel(provider);
      badge.appendChild(p);
    }
    if (model) {
      const m = document.createElement("span");
      m.className = "badge-model";
      m.textContent = shortModel(model);
      badge.appendChild(m);
    }
    badge.title = [provider, model].filter(Boolean).join(" · ");
    return badge;
  }

  window.ArenaIdentity = {
    SEAT_COLORS, seatColor, hash, design, avatar, providerOf, providerLabel, shortModel,
    providerBadge,
  };
})();
