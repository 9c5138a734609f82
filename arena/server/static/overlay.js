/* The arena's stream overlay (public /overlay and delayed /spectator): every game's shell.
 *
 * The shell draws what every game has: the connection and its status, one panel per
 * seat (as many as the snapshot's seats, laid out around the table), names, avatars,
 * whose turn it is with its countdown, comments as bubbles, a model seat's figures,
 * gift banners, full-screen effects, the leaderboard, sound. What a table of one game
 * shows beyond that is the game's renderer, a script of the game's package that the
 * shell loads when a snapshot names the game (`snapshot.game.script`, served at
 * /static/games/<game>/overlay.js) and that registers itself with
 * `window.ArenaOverlay.register(name, renderer)` (the hooks: docs/overlay.md). A game
 * without a renderer, or whose renderer does not load, is shown by the shell alone.
 *
 * Safety: every string that comes from agents or viewers is put on the page with
 * textContent / createTextNode only; this file never uses innerHTML with data.
 * The steady picture is rendered from `snapshot` messages; events only trigger
 * transient things (gift banners, full-screen effects, sounds).
 */
"use strict";

(function () {
  const params = new URLSearchParams(location.search);
  // One page serves both views: /spectator (every hand, delayed) and /overlay.
  const MODE = /\/spectator\/?$/.test(location.pathname) ? "spectator" : "overlay";
  document.body.dataset.mode = MODE;
  if (MODE === "spectator") document.title = "Dou Dizhu Arena · Spectator";
  const LAYOUT = params.get("layout") === "portrait" ? "portrait" : "landscape";
  const TABLE = params.get("table");
  const LANG_PARAM = ["en", "zh"].includes(params.get("lang")) ? params.get("lang") : null;
  const SOUND_PARAM = params.get("sound");

  const I18N = {
    zh: {
      waiting: "等待开始", live: "直播中", paused: "已暂停", ended: "已结束",
      round: (r, n) => (n ? `第 ${r}/${n} 局` : `第 ${r} 局`),
      leaderboard: "排行榜", cardsLeft: "剩", total: "总分",
      standin: "替补", legal: "合法率", cost: "花费", sent: "送出", pts: "分",
      forfeits: (n) => `弃权 ${n}`,
      delayed: (s) => `延迟 ${s} 秒`, peek: (v) => `${v} 偷看了`,
      specOff: "延迟观战未开启", specOffHint: "启动时加上 --spectator-delay SECONDS",
      connecting: "连接中…", degraded: "信号异常", winner: (s) => `${s} 胜`,
      thinking: (s) => `思考中 ${s} 秒`,
      everyone: "全场",
    },
    en: {
      waiting: "Waiting", live: "Live", paused: "Paused", ended: "Ended",
      round: (r, n) => (n ? `Round ${r}/${n}` : `Round ${r}`),
      leaderboard: "Leaderboard", cardsLeft: "Cards", total: "Total",
      standin: "Stand-in", legal: "Legal", cost: "Cost", sent: "sent", pts: "pts",
      forfeits: (n) => `${n} forfeited`,
      delayed: (s) => `delayed ${s} s`, peek: (v) => `${v} peeked`,
      specOff: "Delayed spectator view is off", specOffHint: "start the arena with --spectator-delay SECONDS",
      connecting: "Connecting…", degraded: "Degraded", winner: (s) => `${s} wins`,
      thinking: (s) => `Thinking ${s} s`,
      everyone: "everyone",
    },
  };

  const EMOTIONS = {
    // Pre-2017 emoji only, so they render even with an older emoji font.
    confident: "😎", nervous: "😰", excited: "😆", angry: "😠",
    thinking: "😐", happy: "😄", sad: "😢", taunting: "😜",
  };

  // Everything the page knows; rendered as a whole on each snapshot.
  const app = {
    server: null, snapshot: null, figures: [],
    hands: null, leaderboard: null, lang: LANG_PARAM || "zh",
    sound: SOUND_PARAM === "1", seenGifts: new Set(), ws: null, backoff: 500,
    game: null, renderer: null, seatsBuilt: null, story: null,
  };

  const $ = (sel, root) => (root || document).querySelector(sel);
  /** A label: the shell's own, else the game renderer's (`labels`), else the key. */
  const t = (key, ...args) => {
    let v = I18N[app.lang][key];
    if (v === undefined) {
      const own = app.renderer && app.renderer.labels ? app.renderer.labels[app.lang] : null;
      v = own && key in own ? own[key] : key;
    }
    return typeof v === "function" ? v(...args) : v;
  };

  /** A DOM element with a class and (text-only) content. */
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /** A card as it is shown: its face from the game's renderer (`cardFace`: a game whose
   *  events name cards by id, ``D1_H_10``, shows ``♥10``), else the card's own text. */
  function faceOf(card) {
    const r = app.renderer;
    if (r && typeof r.cardFace === "function") {
      try {
        const face = r.cardFace(card, api);
        if (typeof face === "string" && face) return face;
      } catch (err) {
        // a renderer that fails leaves the card as the event wrote it
      }
    }
    return String(card);
  }

  /** A playing card element; the card's face goes in textContent and data-card (and the
   *  card as the event wrote it in data-id, when the face differs). */
  function cardEl(card) {
    const text = faceOf(card);
    const node = el("span", "card");
    node.dataset.card = text;
    if (text !== String(card)) node.dataset.id = String(card);
    const joker = text === "大王" || text === "小王";
    if (text.includes("♥") || text.includes("♦") || text === "大王") node.classList.add("red");
    if (joker) {
      node.classList.add("joker");
      // Jokers read as their Chinese name, written down the card (the star is CSS).
      node.appendChild(el("span", "card-rank", text));
    } else {
      // Suit first in the DOM so the element's text is exactly the card ("♥4");
      // CSS puts the rank on top.
      node.appendChild(el("span", "card-suit", text.slice(0, 1)));
      node.appendChild(el("span", "card-rank", text.slice(1)));
    }
    // Screen readers and tests read the card as its plain text.
    node.setAttribute("aria-label", text);
    return node;
  }

  /** Fill a container with card elements (replaces its children). */
  function setCards(container, cards) {
    container.replaceChildren(...(cards || []).map(cardEl));
    container.classList.toggle("many", (cards || []).length > 10);
  }

  /** The child of `parent` with class `cls`: created when wanted, removed when not. */
  function slot(parent, cls, wanted, tag) {
    let node = parent.querySelector(`:scope > .${cls}`);
    if (wanted && !node) {
      node = el(tag || "span", cls);
      parent.appendChild(node);
    } else if (!wanted && node) {
      node.remove();
      node = null;
    }
    return node;
  }

  function safeAvatar(url) {
    if (typeof url !== "string") return null;
    return url.startsWith("/avatars/") || url.startsWith("http://") || url.startsWith("https://")
      ? url : null;
  }

  // ---------- static labels ----------

  function applyLabels() {
    document.documentElement.lang = app.lang;
    document.querySelectorAll("[data-i18n]").forEach((n) => {
      n.textContent = t(n.dataset.i18n);
    });
  }

  // ---------- the game's renderer ----------

  /** Renderers registered by the games' scripts, by game name. */
  const renderers = {};

  /** What the shell lends a renderer: its helpers, never its state. */
  const api = {
    el, $, t, slot, cardEl, setCards, face: (card) => faceOf(card), fullScreen: (...a) => fullScreen(...a),
    beep: (...a) => beep(...a), mode: MODE,
  };

  /** The shell alone: a game without a renderer still shows a play's cards. */
  const NEUTRAL = {
    buildSeat(node) {
      $(".seat-action", node).append(el("div", "seat-play cards"));
    },
    renderSeat(node, seat) {
      const play = $(".seat-play", node);
      const cards = seat.action && Array.isArray(seat.action.cards) ? seat.action.cards : [];
      setCards(play, cards);
      play.hidden = cards.length === 0;
    },
  };

  /** Call a renderer's hook; a renderer that fails leaves the shell drawing. */
  function hook(name, ...args) {
    const r = app.renderer;
    if (!r || typeof r[name] !== "function") return undefined;
    try {
      return r[name](...args, api);
    } catch (err) {
      console.warn(`the ${app.game} renderer's ${name} failed`, err);
      return undefined;
    }
  }

  let loading = null; // messages held while a game's renderer loads
  /** The table's game (from its snapshot): load its renderer once, holding the messages
   *  that come meanwhile, and draw with the shell alone if it has none or it fails. */
  function useGame(game, then) {
    const name = game && typeof game.name === "string" ? game.name : null;
    if (name === app.game) return then();
    if (!name || !game.script || name in renderers) return switchGame(name, then);
    loading = [];
    const done = () => {
      const held = loading || [];
      loading = null;
      switchGame(name, then);
      held.forEach(onMessage);
    };
    if (game.style && !document.querySelector(`link[data-game="${CSS.escape(name)}"]`)) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = game.style;
      link.dataset.game = name;
      document.head.appendChild(link);
    }
    const script = document.createElement("script");
    script.src = game.script;
    script.dataset.game = name;
    script.onload = done;
    script.onerror = () => { renderers[name] = null; done(); };
    document.head.appendChild(script);
    return undefined;
  }

  function switchGame(name, then) {
    app.game = name;
    app.renderer = (name && renderers[name]) || NEUTRAL;
    document.body.dataset.game = name || "";
    app.seatsBuilt = null; // the seats and the game's top bar are built anew
    const info = $("#game-info");
    info.replaceChildren();
    hook("buildTopbar", info);
    applyLabels();
    return then();
  }

  window.ArenaOverlay = {
    /** A game's renderer registers itself (its script runs once the shell asked for it). */
    register(name, renderer) { renderers[name] = renderer; },
  };

  // ---------- seats ----------

  /** Build the seat panels (as many as the snapshot has seats); render() only updates
   *  their contents. Rebuilt when the count or the game changes. */
  function buildSeats(count) {
    const box = $("#seats");
    box.dataset.count = String(count);
    box.replaceChildren();
    for (let i = 0; i < count; i++) {
      const seat = el("div", "seat");
      seat.dataset.seat = String(i);
      seat.style.setProperty("--seat-color", seatColor(i));
      const panel = el("div", "seat-panel panel");
      const head = el("div", "seat-head");
      const avatarBox = el("div", "seat-avatar-box");
      const info = el("div", "seat-info");
      const nameRow = el("div", "seat-name-row");
      nameRow.append(el("span", "seat-name"));
      const stats = el("div", "seat-stats");
      const left = el("span", "stat stat-left");
      left.append(el("span", "stat-label"), el("span", "seat-cards-left"));
      const total = el("span", "stat stat-total");
      total.append(el("span", "stat-label"), el("span", "seat-total"));
      stats.append(left, total);
      info.append(nameRow, stats);
      head.append(avatarBox, info);
      panel.append(head);
      const bubble = el("div", "bubble");
      bubble.append(el("span", "bubble-emoji"), el("span", "bubble-text"));
      const action = el("div", "seat-action");
      seat.append(panel, bubble, action);
      if (MODE === "spectator") seat.append(el("div", "seat-hand cards small"));
      box.appendChild(seat);
      hook("buildSeat", seat);
    }
    app.seatsBuilt = count;
  }

  function renderSeat(node, seat, state, fig) {
    const isTurn = !!(state.turn && state.turn.seat === seat.seat && state.status === "live");
    node.classList.toggle("turn", isTurn);
    // After a round, the winning side glows until the next round starts.
    // (state.result.winners names players; a full round_result nests seats under .result.)
    const res = state.result ? (state.result.result || state.result) : null;
    const winners = res && Array.isArray(res.winners) ? res.winners : [];
    node.classList.toggle("winner", winners.includes(seat.player) || winners.includes(seat.seat));

    $(".seat-name", node).textContent = seat.player || `#${seat.seat + 1}`;
    renderAvatar($(".seat-avatar-box", node), seat.player);

    // Stand-in marker, figures and countdown exist only when they apply (tests count them).
    const standin = slot($(".seat-name-row", node), "seat-standin", !!seat.standin);
    if (standin) standin.textContent = seat.standin ? `${t("standin")}${seat.standin.by ? " · " + seat.standin.by : ""}` : "";

    $(".stat-left .stat-label", node).textContent = t("cardsLeft");
    $(".seat-cards-left", node).textContent = seat.cards_left === null || seat.cards_left === undefined ? "–" : String(seat.cards_left);
    $(".stat-total .stat-label", node).textContent = t("total");
    const total = seat.total === null || seat.total === undefined
      ? (state.totals && seat.player in state.totals ? state.totals[seat.player] : null) : seat.total;
    $(".seat-total", node).textContent = total === null ? "0" : String(total);

    renderFigures(slot($(".seat-info", node), "seat-figures", !!fig, "div"), fig);
    hook("renderSeat", node, seat, state);
    renderBubble($(".bubble", node), seat);
  }

  // ---------- identity: seat colours, default avatars, provider badges (identity.js) ----------

  const IDENTITY = window.ArenaIdentity || null;
  /** The seat's colour (`--seat-color` on its `.seat`, and wherever the seat is named). */
  function seatColor(i) {
    return IDENTITY ? IDENTITY.seatColor(i) : "#9fb3d1";
  }

  /** A player's default avatar: drawn from the name (identity.js), else its initial. */
  function defaultAvatar(box, player) {
    const name = player || "?";
    const shown = box.firstElementChild;
    if (shown && shown.dataset.player === name) return; // drawn already, the same
    const node = IDENTITY ? IDENTITY.avatar(name) : el("span", "avatar-initial", name.slice(0, 1));
    node.dataset.player = name;
    box.replaceChildren(node);
  }

  const failedAvatars = new Set();
  function renderAvatar(box, player) {
    let url = safeAvatar(app.server && app.server.avatars ? app.server.avatars[player] : null);
    // A picture that failed once is not asked for again on every snapshot.
    if (url && failedAvatars.has(url)) url = null;
    let img = $(".seat-avatar", box);
    box.title = player || "";
    if (!url) {
      defaultAvatar(box, player);
      return;
    }
    if (!img) {
      box.replaceChildren();
      img = el("img", "seat-avatar");
      img.alt = "";
      // A missing picture falls back to the drawn avatar rather than a broken-image icon.
      img.onerror = () => {
        failedAvatars.add(url);
        defaultAvatar(box, player);
      };
      box.appendChild(img);
    }
    if (img.getAttribute("src") !== url) img.src = url;
  }

  function renderFigures(box, fig) {
    if (!box) return;
    box.replaceChildren();
    const badge = IDENTITY ? IDENTITY.providerBadge(fig) : null;
    if (badge) box.appendChild(badge);
    else if (fig.model) box.appendChild(el("span", "fig-model", fig.model));
    if (typeof fig.legal_rate === "number") {
      box.appendChild(el("span", "fig-rate", `${t("legal")} ${(fig.legal_rate * 100).toFixed(0)}%`));
    }
    if (typeof fig.cost === "number") {
      box.appendChild(el("span", "fig-cost", `${t("cost")} $${fig.cost.toFixed(fig.cost < 1 ? 4 : 2)}`));
    }
  }

  function renderBubble(bubble, seat) {
    const text = seat.comment;
    bubble.hidden = !text;
    const emotion = seat.emotion && EMOTIONS[seat.emotion] ? seat.emotion : "neutral";
    bubble.dataset.emotion = emotion;
    $(".bubble-emoji", bubble).textContent = EMOTIONS[emotion] || "💬";
    $(".bubble-text", bubble).textContent = text || "";
  }

  // ---------- the whole table ----------

  /** The sinks the server says keep failing (this page's feed may be one of them). */
  function degradedSinks() {
    const list = app.server && app.server.degraded;
    return Array.isArray(list) ? list : [];
  }

  /** One degraded sink in words: a feed that cannot deliver says why (its worker gone,
   *  its broker away or refusing); a sink that keeps failing, its count and error. */
  function describeDegraded(d) {
    if (d.during === "deliver") return `${d.sink}: ${d.last_error}`;
    return `${d.sink}: ${d.failures} × ${d.last_error} (${d.during})`;
  }

  function statusKey() {
    if (app.disconnected) return "connecting";
    const s = (app.snapshot && app.snapshot.status) || (app.server && app.server.match) || "waiting";
    const shown = ["waiting", "live", "ended"].includes(s) ? s : "waiting";
    // never "live" while a sink keeps failing: what is shown may be missing events
    if (shown !== "ended" && degradedSinks().length) return "degraded";
    if (app.server && app.server.paused) return "paused";
    return shown;
  }

  function render() {
    const root = $("#overlay");
    const state = app.snapshot;
    const st = statusKey();
    const status = $("#status");
    status.textContent = t(st);
    status.dataset.status = st;
    status.title = st === "degraded"
      ? degradedSinks().map(describeDegraded).join("; ")
      : "";
    if (!state) {
      $("#round-info").textContent = "";
      // before the first snapshot: the game's seats, empty, as a table waiting
      const idle = app.server && Number.isInteger(app.server.seats) ? app.server.seats : 0;
      if (app.seatsBuilt === null && idle > 0) buildSeats(idle);
      return;
    }
    root.dataset.table = state.table || "";
    $("#round-info").textContent = state.round ? t("round", state.round, state.rounds) : "";
    hook("render", state);

    const seats = Array.isArray(state.seats) ? state.seats : [];
    if (app.seatsBuilt !== seats.length) buildSeats(seats.length);
    const nodes = document.querySelectorAll(".seat");
    seats.forEach((seat, i) => {
      if (nodes[i]) renderSeat(nodes[i], seat, state, app.figures[i]);
    });
    if (MODE === "spectator") renderHands();
    if (TABLE_PARTS) TABLE_PARTS.render(state, tableCtx());
    if (MODE === "spectator" && window.ArenaThoughts) window.ArenaThoughts.render(app); // thoughts.js
    tickCountdown();
  }

  // ---------- the middle of the table: the trick, the moves, the turn ring (table.js) ----------

  const TABLE_PARTS = window.ArenaTable || null;
  /** What table.js borrows from the shell: its helpers and the page's language. */
  function tableCtx() {
    return {
      lang: app.lang, el, t, setCards, seatColor, face: faceOf, hook: (name, ...args) => hook(name, ...args),
    };
  }

  /** Spectator: every seat's hand face up, from the latest `hands` item. */
  function renderHands() {
    const hands = app.hands && Array.isArray(app.hands.hands) ? app.hands.hands : [];
    document.querySelectorAll(".seat").forEach((node, i) => {
      const box = $(".seat-hand", node);
      if (box) setCards(box, hands[i] || []);
    });
  }

  /** Countdown on the seat to act; runs ~4x a second. */
  /** The next match or table is coming (the server's `next_at`): the between screen
   *  (static/between.js) over the table, counting down. */
  function tickNextUp() {
    if (!window.ArenaBetween) return;
    window.ArenaBetween.tick({
      server: app.server, leaderboard: app.leaderboard, story: app.story, lang: app.lang, el,
    });
  }

  /** The seat whose turn it is, once it has taken a moment (a model thinking; a
   *  scripted bot answers long before): how long so far, counting up. */
  const THINKING_AFTER_MS = 400;
  function tickThinking(node, turn, delayMs) {
    const limit = turn && Number.isFinite(turn.time_limit_ms) ? turn.time_limit_ms : null;
    const startedAt = turn && Number.isFinite(turn.deadline_at) && limit !== null
      ? turn.deadline_at - limit + delayMs : null;
    const elapsed = startedAt === null ? 0 : Date.now() - startedAt;
    const box = slot(node, "thinking", elapsed >= THINKING_AFTER_MS);
    node.classList.toggle("is-thinking", !!box);
    if (box) box.textContent = t("thinking", (elapsed / 1000).toFixed(1));
  }

  function tickCountdown() {
    const state = app.snapshot;
    const turn = state && state.status === "live" ? state.turn : null;
    const delayMs = MODE === "spectator" && app.server && app.server.delay_s ? app.server.delay_s * 1000 : 0;
    document.querySelectorAll(".seat").forEach((node, i) => {
      tickThinking(node, turn && turn.seat === i ? turn : null, delayMs);
      const box = slot($(".seat-stats", node), "countdown", !!(turn && turn.seat === i && turn.deadline_at));
      if (!box) {
        if (TABLE_PARTS) TABLE_PARTS.ring(node, null);
        return;
      }
      // The spectator view plays the table back delay_s late: the deadline shifts with it.
      const leftMs = Math.max(0, turn.deadline_at + delayMs - Date.now());
      const left = Math.ceil(leftMs / 1000);
      box.textContent = String(left); // plain seconds; the "s" is CSS
      box.classList.toggle("low", left <= 5);
      node.classList.toggle("turn-low", left <= 5);
      // the ring round the avatar empties with the decision time (a full ring without a limit)
      const limit = Number.isFinite(turn.time_limit_ms) && turn.time_limit_ms > 0 ? turn.time_limit_ms : null;
      if (TABLE_PARTS) TABLE_PARTS.ring(node, limit === null ? 1 : leftMs / limit, left <= 5);
    });
  }

  // ---------- leaderboard ----------

  function renderLeaderboard() {
    const box = $("#leaderboard");
    const agents = app.leaderboard && Array.isArray(app.leaderboard.agents) ? app.leaderboard.agents : [];
    box.hidden = agents.length === 0;
    const rows = agents.slice(0, 8).map((a) => {
      const row = el("div", "lb-row");
      row.append(
        el("span", "lb-rank", a.rank),
        el("span", "lb-name", a.name),
        el("span", "lb-points", `${a.points} ${t("pts")}`),
      );
      // rounds it did not play itself, each counted as a loss (docs/tournaments.md)
      if (a.forfeits > 0) row.append(el("span", "lb-forfeits", t("forfeits", a.forfeits)));
      return row;
    });
    $("#lb-rows").replaceChildren(...rows);
    // the move history sits above the leaderboard in their shared corner (overlay.css)
    $("#overlay").style.setProperty("--lb-space", box.hidden ? "0px" : `${box.offsetHeight + 16}px`);
    $("#overlay").classList.toggle("with-leaderboard", !box.hidden);
  }

  // ---------- gift banners ----------

  function giftBanner(ev) {
    const d = ev.data || {};
    // A gift is shown once even if it comes again (live event, then a snapshot's `gifts`).
    const key = d.id ? `${d.id}|${d.status}` : null;
    if (key && app.seenGifts.has(key)) return;
    if (key) app.seenGifts.add(key);
    // Queued and applied gifts get a banner; rejected/expired are not worth stream space.
    if (d.status !== "queued" && d.status !== "applied") return;
    // One banner per gift unit: when it is applied after being queued, skip the second.
    if (d.status === "applied" && d.id && app.seenGifts.has(`${d.id}|queued`)) return;
    const banner = el("div", "gift-banner panel");
    banner.dataset.effect = d.effect || "";
    banner.append(el("span", "gift-icon", "★ "), el("span", "gift-viewer", d.viewer || "?"));
    // a platform's gift ("rose ×3"); a test gift from the controls has none
    if (d.gift) {
      banner.append(
        el("span", "gift-sent", ` ${t("sent")} `),
        el("span", "gift-name", d.gift),
        el("span", "gift-count", ` ×${d.units || 1}`),
      );
    }
    giftTarget(banner, d);
    if (d.message) banner.append(el("div", "gift-message", d.message));
    const box = $("#gift-banners");
    box.appendChild(banner);
    while (box.children.length > 4) box.firstChild.remove();
    setTimeout(() => banner.classList.add("leaving"), 5500);
    setTimeout(() => banner.remove(), 6000);
    beep("gift");
    if (d.effect === "EFFECT") fullScreen("effect", "✦ ✦ ✦");
  }

  /** Who the gift is for: "→ Beta: 加油", the target player's name in its seat's colour
   *  (from the snapshot; the seat's number if the snapshot has no such seat), or, for an
   *  effect on no seat, "→ everyone: 特效". */
  function giftTarget(banner, d) {
    const seatNo = Number.isInteger(d.target) && d.target >= 0 ? d.target : null;
    if (seatNo === null && !d.effect) return;
    banner.append(el("span", "gift-arrow", " → "));
    let who;
    if (seatNo !== null) {
      const seats = app.snapshot && Array.isArray(app.snapshot.seats) ? app.snapshot.seats : [];
      const seat = seats[seatNo];
      who = el("span", "gift-target", seat && seat.player ? seat.player : `#${seatNo + 1}`);
      who.dataset.seat = String(seatNo);
      who.style.setProperty("--seat-color", seatColor(seatNo));
    } else {
      who = el("span", "gift-target gift-everyone", t("everyone"));
    }
    banner.append(who);
    if (d.effect) banner.append(el("span", "gift-effect", `: ${effectName(d.effect)}`));
  }

  /** The gift effects every game may offer; a game's own are its renderer's
   *  (`effectNames`), and an effect named by neither is shown as it is called. */
  const EFFECT_NAMES = {
    zh: { CHEER: "加油", EMOTE: "表情", PEEK: "偷看", SWAP: "换牌", ADD: "加牌",
      EFFECT: "特效", RESHUFFLE: "重新洗牌" },
    en: { CHEER: "Cheer", EMOTE: "Emote", PEEK: "Peek", SWAP: "Swap", ADD: "Add card",
      EFFECT: "Effect", RESHUFFLE: "Reshuffle" },
  };
  function effectName(effect) {
    const own = app.renderer && app.renderer.effectNames ? app.renderer.effectNames[app.lang] : null;
    return EFFECT_NAMES[app.lang][effect] || (own && own[effect]) || effect;
  }

  // ---------- full-screen effects ----------

  function fullScreen(kind, label) {
    const box = $("#effects");
    const fx = el("div", `fx fx-${kind}`);
    fx.append(el("div", "fx-label", label));
    box.appendChild(fx);
    setTimeout(() => fx.remove(), 2600);
  }

  function onEvent(ev) {
    if (TABLE === null && app.server && app.server.table && ev.table && ev.table !== app.server.table) return;
    if (ev.type === "gift") giftBanner(ev);
    if (window.ArenaStory) window.ArenaStory.onEvent(ev);
    if (TABLE_PARTS) {
      TABLE_PARTS.onEvent(ev, tableCtx());
      TABLE_PARTS.redraw(tableCtx());
    }
    // the game's own moments (Dou Dizhu: a bomb, a rocket, a spring) are its renderer's
    if (!ev.game || ev.game === app.game) hook("onEvent", ev);
  }

  // ---------- sound (WebAudio, synthesized; off unless asked) ----------

  let audio = null;
  function beep(kind) {
    if (!app.sound) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      // [frequency, start, duration, wave] each; a game's own sounds are its renderer's
      const own = app.renderer && app.renderer.sounds ? app.renderer.sounds : {};
      const tones = {
        gift: [[880, 0.0, 0.1, "triangle"], [1320, 0.08, 0.18, "triangle"]],
      }[kind] || own[kind] || [];
      const now = audio.currentTime;
      for (const [freq, at, dur, type] of tones) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = type;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.15, now + at);
        gain.gain.exponentialRampToValueAtTime(0.001, now + at + dur);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + at);
        osc.stop(now + at + dur + 0.05);
      }
    } catch (err) {
      // No audio device (or autoplay blocked): the overlay works silently.
    }
  }

  // ---------- spectator extras ----------

  function showPeek(item) {
    const box = $("#peek");
    const who = item.viewer || "?";
    const seatNo = typeof item.seat === "number" ? item.seat : null;
    const player = seatNo !== null && app.snapshot && app.snapshot.seats[seatNo] ? app.snapshot.seats[seatNo].player : "";
    const title = el("div", "peek-title", `${t("peek", who)} ${player || ""}`);
    const cards = el("div", "cards");
    setCards(cards, item.cards || []);
    box.replaceChildren(title, cards);
    box.hidden = false;
    clearTimeout(showPeek.timer);
    showPeek.timer = setTimeout(() => { box.hidden = true; }, 6000);
  }

  function onSpectatorItem(item) {
    if (!item) return;
    if (item.kind === "hands") { app.hands = item; renderHands(); }
    else if (item.kind === "peek") showPeek(item);
    else if (item.kind === "thought" && window.ArenaThoughts) window.ArenaThoughts.item(item, app);
    else if (item.kind === "event" && item.event) onEvent(item.event);
  }

  // ---------- messages ----------

  function onServer(msg) {
    app.server = msg;
    if (!LANG_PARAM && (msg.lang === "en" || msg.lang === "zh")) app.lang = msg.lang;
    if (SOUND_PARAM === null) app.sound = !!msg.sound;
    applyLabels();
    if (MODE === "spectator") {
      const off = msg.spectator === false;
      $("#overlay").classList.toggle("spec-off", off);
      $("#spectator-off").hidden = !off;
      const delay = $("#delay-label");
      delay.hidden = off || msg.delay_s === null || msg.delay_s === undefined;
      if (!delay.hidden) delay.textContent = t("delayed", Math.round(msg.delay_s));
    }
    render();
    renderLeaderboard();
    renderStory();
  }

  function onSnapshot(msg) {
    app.snapshot = msg.state || null;
    app.figures = Array.isArray(msg.figures) ? msg.figures : [];
    if (MODE === "spectator" && "hands" in msg) app.hands = msg.hands;
    if (MODE === "spectator" && "thoughts" in msg && window.ArenaThoughts) window.ArenaThoughts.snapshot(msg.thoughts);
    // The last gifts of the table: show those we have not shown yet (e.g. on join).
    (msg.gifts || []).forEach((g) => { if (g && g.data) giftBanner(g); });
    app.story = msg.story || null;
    render();
    renderStory();
  }

  // ---------- the round's and the match's story (static/story.js) ----------

  /** The result card and the match card, from the snapshot's `story`; the game's part
   *  of a result (what made the stakes) is its renderer's `roundStory` hook. */
  function renderStory() {
    if (!window.ArenaStory) return;
    window.ArenaStory.render(app.story, {
      lang: app.lang, el, setCards, figures: app.figures,
      hook: (name, ...args) => hook(name, ...args),
    });
  }

  function onMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    if (loading) { loading.push(msg); return; } // in order, once the game's renderer is in
    switch (msg.type) {
      case "server": onServer(msg); break;
      case "snapshot":
        useGame(msg.game || null, () => onSnapshot(msg));
        break;
      case "leaderboard": app.leaderboard = msg.board || null; renderLeaderboard(); break;
      case "spectator": onSpectatorItem(msg.item); break;
      default:
        if (msg.type && msg.data !== undefined) onEvent(msg);
    }
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams();
    if (TABLE) query.set("table", TABLE);
    // the control page's preview: a page like another, but it starts no match
    if (new URLSearchParams(location.search).get("preview") === "1") query.set("preview", "1");
    const asked = query.toString();
    const path = (MODE === "spectator" ? "/ws/spectator" : "/ws") + (asked ? `?${asked}` : "");
    const ws = new WebSocket(`${proto}//${location.host}${path}`);
    app.ws = ws;
    ws.onopen = () => { app.backoff = 500; app.disconnected = false; render(); };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      try { onMessage(msg); } catch (err) { console.error(err); }
    };
    ws.onclose = () => {
      // Say so on screen (never "live" while the arena is away), then reconnect with
      // backoff; the server resends server + snapshot on join.
      app.disconnected = true;
      render();
      setTimeout(connect, app.backoff);
      app.backoff = Math.min(app.backoff * 2, 10000);
    };
    ws.onerror = () => ws.close();
  }

  /** The layout is drawn at 1920x1080 (or 1080x1920); a browser source of another
   * size gets it scaled to fit, so nothing is clipped. */
  function fitToViewport() {
    const w = LAYOUT === "portrait" ? 1080 : 1920;
    const h = LAYOUT === "portrait" ? 1920 : 1080;
    const scale = Math.min(window.innerWidth / w, window.innerHeight / h);
    const root = $("#overlay");
    root.style.transformOrigin = "0 0";
    root.style.transform = Math.abs(scale - 1) < 0.01 ? "" : `scale(${scale})`;
  }

  function init() {
    const root = $("#overlay");
    root.dataset.layout = LAYOUT;
    document.body.dataset.layout = LAYOUT;
    app.renderer = NEUTRAL;
    const off = $("#spectator-off");
    off.replaceChildren(el("div", "off-zh", I18N.zh.specOff), el("div", "off-en", I18N.en.specOff),
      el("div", "off-hint", `${I18N.zh.specOffHint} / ${I18N.en.specOffHint}`));
    applyLabels();
    render();
    fitToViewport();
    window.addEventListener("resize", fitToViewport);
    // Exposed read-only for debugging in the browser console.
    window.arenaOverlay = app;
    setInterval(tickCountdown, 250);
    setInterval(tickNextUp, 250);
    connect();
  }

  init();
})();
