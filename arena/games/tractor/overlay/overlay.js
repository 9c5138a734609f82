/* 升级 / 拖拉机's part of the stream overlay: what a Tractor table shows beyond the shell.
 *
 * The shell (arena/server/static/overlay.js) loads this script when a snapshot names
 * the game "tractor", and draws the seats, names, turns, bubbles, gifts, the centre
 * trick and the move history itself; this renderer adds:
 *
 * - in the top bar: both teams' levels in their colours (team 0 red, team 1 blue; the
 *   banker's team marked), the round's level, the trump (a suit, or 无主 / no trump) and
 *   who declared it (the candidate while declaring), the defenders' points, the kitty;
 * - on each seat: its team (a chip and a bar in the team's colour), the banker's badge,
 *   its declaration while declaring, its play in the current trick;
 * - a callout over the table: the candidate as it is declared, the trump once locked,
 *   a throw that did not stand (甩牌失败) for as long as its trick lasts;
 * - the result card's story (the defenders' points, the kitty shown and its multiplier,
 *   each team's level change) and the full-screen moments (a kitty kill, the match won);
 * - cards as faces (the events name them by id: D1_H_10 is ♥10, D2_BJ 大王).
 *
 * Its hooks are described in docs/overlay.md. Like the shell, it puts text on the page
 * with textContent only.
 */
"use strict";

(function () {
  const LABELS = {
    zh: {
      team: (t) => (t === 0 ? "红队" : "蓝队"), teamShort: (t) => (t === 0 ? "红" : "蓝"),
      playing: "打", trump: "主", noTrump: "无主",
      playingShort: "打", trumpShort: "主", pointsShort: "闲家", kittyShort: "底", declaring: "亮主中",
      points: "闲家得分", kitty: "底牌", banker: "庄", bankerLong: "庄家",
      declares: "亮主", declared: "亮", locked: "定主", by: (n) => `${n} 亮`,
      throwFailed: "甩牌失败!", threw: "甩", playedAs: "改出",
      kinds: { PAIR: "对子", TRACTOR: "拖拉机", THROW: "甩牌", MIXED: "垫牌" },
      ruff: "毙", punishedTag: "甩牌失败",
      moveDeclare: (c) => `亮主 ${c}`, moveBury: (n) => `扣底 ${n} 张`,
      moveLocked: (s) => `坐庄 · ${s}`, movePunished: (a, b) => `甩牌失败 ${a} → ${b}`,
      moveScored: (p) => `得 ${p} 分`,
      rsUp: (team, from, to, d) => `${team} 升 ${d} 级 (${from} → ${to})`,
      rsDefenders: "闲家得分", rsTricks: "墩分", rsKitty: "底牌",
      rsKill: (p, m) => `抠底 ${p} × ${m} = ${p * m}`, rsKept: (p) => `${p} 分 · 庄家保底`,
      rsNext: "下一庄",
      kill: (m) => `抠底 ×${m}!`, wins: (team) => `${team} 获胜!`, champion: (team) => `♛ ${team} 胜`,
      draw: "平局",
    },
    en: {
      team: (t) => (t === 0 ? "Red" : "Blue"), teamShort: (t) => (t === 0 ? "Red" : "Blue"),
      playing: "Playing", trump: "Trump", noTrump: "No trump",
      playingShort: "Lv", trumpShort: "Trump", pointsShort: "Def.", kittyShort: "Kitty", declaring: "Declaring",
      points: "Defenders", kitty: "Kitty", banker: "Banker", bankerLong: "Banker",
      declares: "declares", declared: "Declared", locked: "Trump", by: (n) => `by ${n}`,
      throwFailed: "Throw failed!", threw: "threw", playedAs: "played as",
      kinds: { PAIR: "Pair", TRACTOR: "Tractor", THROW: "Throw", MIXED: "Mixed" },
      ruff: "Ruff", punishedTag: "Throw failed",
      moveDeclare: (c) => `declares ${c}`, moveBury: (n) => `buries ${n}`,
      moveLocked: (s) => `banker · ${s}`, movePunished: (a, b) => `throw failed ${a} → ${b}`,
      moveScored: (p) => `+${p} pts`,
      rsUp: (team, from, to, d) => `${team} up ${d} (${from} → ${to})`,
      rsDefenders: "Defenders' points", rsTricks: "Tricks", rsKitty: "Kitty",
      rsKill: (p, m) => `kill ${p} × ${m} = ${p * m}`, rsKept: (p) => `${p} pts · kept`,
      rsNext: "Next banker",
      kill: (m) => `KITTY ×${m}!`, wins: (team) => `${team} WINS!`, champion: (team) => `♛ ${team} wins`,
      draw: "Draw",
    },
  };

  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A" };
  const CALLOUT_MS = 3500;

  /** A card's face: D1_H_10 → ♥10, D2_SJ → 小王, D1_BJ → 大王 (anything else as it is). */
  function cardFace(card) {
    const text = String(card);
    const m = /^D[12]_(?:([SHDC])_(10|[2-9JQKA])|(SJ|BJ))$/.exec(text);
    if (!m) return text;
    if (m[3]) return m[3] === "BJ" ? "大王" : "小王";
    return SUITS[m[1]] + m[2];
  }

  const faces = (cards) => (Array.isArray(cards) ? cards.map(cardFace).join(" ") : "");
  /** A level as people write it: 2..10, J, Q, K, A (the events give 2..14). */
  const levelText = (n) => (Number.isInteger(n) ? RANKS[n] || String(n) : "–");
  const teamOf = (state, seat) => {
    const teams = Array.isArray(state.teams) ? state.teams : [];
    for (let t = 0; t < teams.length; t++) if (Array.isArray(teams[t]) && teams[t].includes(seat)) return t;
    return Number.isInteger(seat) ? seat % 2 : null;
  };
  const nameOf = (state, seat) => {
    const s = state && Array.isArray(state.seats) ? state.seats[seat] : null;
    return s && s.player ? s.player : `#${Number(seat) + 1}`;
  };

  let current = null; // the last snapshot, for the hooks that get an action only
  let flash = null; // {round, until}: the trump locked, called out for a few seconds

  /** An item of the top bar: its label (set by the shell in the page's language), then
   *  its value. */
  function infoItem(api, key, value, cls) {
    const item = api.el("span", `info-item${cls ? " " + cls : ""}`);
    const label = api.el("span", "info-label tr-long");
    label.dataset.i18n = key;
    const short = api.el("span", "info-label tr-short"); // (portrait: the bar is narrow)
    short.dataset.i18n = `${key}Short`;
    item.append(label, short, document.createTextNode(" "), value);
    return item;
  }

  function teamChip(api, team) {
    const chip = api.el("span", "tr-team");
    chip.dataset.team = String(team);
    chip.append(api.el("span", "tr-team-name"), api.el("span", "tr-team-level"));
    return chip;
  }

  /** The trump as words: "♥" or 无主 (no trump). */
  function trumpText(suit, t) {
    return suit ? SUITS[suit] || suit : t("noTrump");
  }

  // ---------- the top bar ----------

  function renderTopbar(state, api) {
    const { $, t } = api;
    const levels = Array.isArray(state.levels) ? state.levels : [null, null];
    const bankerTeam = Number.isInteger(state.banker) ? teamOf(state, state.banker) : null;
    [0, 1].forEach((team) => {
      const chip = $(`#tr-teams .tr-team[data-team="${team}"]`);
      $(".tr-team-name", chip).textContent = t("team", team);
      $(".tr-team-level", chip).textContent = levelText(levels[team]);
      chip.classList.toggle("banker-team", bankerTeam === team);
      chip.dataset.level = levels[team] === null || levels[team] === undefined ? "" : String(levels[team]);
    });
    $("#tr-level").textContent = levelText(state.level);
    const trump = $("#tr-trump");
    const who = $("#tr-declarer");
    let suit = "";
    let by = "";
    if (state.trump) {
      suit = trumpText(state.trump.suit, t);
      by = state.trump.player ? t("by", state.trump.player) : "";
      trump.dataset.suit = state.trump.suit || "none";
    } else if (state.candidate) {
      suit = `${trumpText(state.candidate.suit, t)}?`;
      by = t("by", state.candidate.player || nameOf(state, state.candidate.seat));
      trump.dataset.suit = state.candidate.suit || "none";
    } else {
      suit = state.phase === "declaring" ? t("declaring") : "–";
      trump.dataset.suit = "";
    }
    trump.textContent = suit;
    trump.classList.toggle("red", state.trump ? ["H", "D"].includes(state.trump.suit)
      : !!(state.candidate && ["H", "D"].includes(state.candidate.suit)));
    who.textContent = by;
    who.hidden = !by;
    const points = $("#tr-points");
    points.textContent = Number.isInteger(state.defender_points) ? String(state.defender_points) : "0";
    const defenders = bankerTeam === null ? null : 1 - bankerTeam;
    points.dataset.team = defenders === null ? "" : String(defenders);
    $("#tr-kitty").textContent = Number.isInteger(state.kitty_count) ? String(state.kitty_count) : "–";
    const over = state.game_over;
    const champion = $("#tr-champion");
    champion.hidden = !over;
    if (over) {
      champion.textContent = Number.isInteger(over.winner_team)
        ? t("champion", t("team", over.winner_team)) : t("draw");
      champion.dataset.team = Number.isInteger(over.winner_team) ? String(over.winner_team) : "";
    }
  }

  // ---------- the callout over the table ----------

  /** What the callout says now: a throw that did not stand (while its trick lasts), the
   *  candidate while declaring, the trump locked (while the banker buries, and a few
   *  seconds after it locked while the first trick begins). */
  function calloutOf(state) {
    const punished = Array.isArray(state.punished) && state.punished.length
      ? state.punished[state.punished.length - 1] : null;
    if (punished && state.phase === "playing") return { kind: "punished", punished };
    if (state.phase === "declaring" && state.candidate) return { kind: "candidate", candidate: state.candidate };
    // the trump just locked: while the banker buries, and a few seconds into the first trick
    const trump = state.trump;
    const early = state.tricks_done === 0 && !(state.trick && state.trick.plays.length > 1);
    const fresh = flash && flash.round === state.round && Date.now() < flash.until && early;
    if (trump && Number.isInteger(state.banker) && (state.phase === "burying" || fresh)) {
      return { kind: "locked", suit: trump.suit, declarer: trump.declarer, banker: state.banker };
    }
    return null;
  }

  /** Cards as compact chips (the callout is one line between the seats and the trick). */
  function cardsBox(api, cards) {
    const box = api.el("span", "tr-callout-cards");
    (cards || []).forEach((card) => {
      const face = cardFace(card);
      const chip = api.el("span", "mini-card", face);
      chip.dataset.card = face;
      if (face.includes("♥") || face.includes("♦") || face === "大王") chip.classList.add("red");
      box.append(chip);
    });
    return box;
  }

  function renderCallout(state, api) {
    const box = document.getElementById("tr-callout");
    if (!box) return;
    const { el, t } = api;
    const c = calloutOf(state);
    box.hidden = !c || state.phase === "settled";
    if (box.hidden) {
      box.dataset.kind = "";
      box.replaceChildren();
      return;
    }
    box.dataset.kind = c.kind;
    const parts = [];
    if (c.kind === "punished") {
      const p = c.punished;
      const seat = Number.isInteger(p.seat) ? p.seat : null;
      box.dataset.seat = seat === null ? "" : String(seat);
      box.dataset.team = seat === null ? "" : String(teamOf(state, seat));
      parts.push(el("span", "tr-callout-title", t("throwFailed")));
      parts.push(el("span", "tr-callout-who", p.player || nameOf(state, seat)));
      parts.push(el("span", "tr-callout-verb", t("threw")));
      parts.push(cardsBox(api, p.original));
      parts.push(el("span", "tr-callout-arrow", `→ ${t("playedAs")}`));
      parts.push(cardsBox(api, p.punished));
    } else if (c.kind === "candidate") {
      const d = c.candidate;
      box.dataset.seat = String(d.seat);
      box.dataset.team = String(teamOf(state, d.seat));
      parts.push(el("span", "tr-callout-who", d.player || nameOf(state, d.seat)));
      parts.push(el("span", "tr-callout-verb", t("declares")));
      parts.push(cardsBox(api, d.cards));
      parts.push(el("span", "tr-callout-title", trumpText(d.suit, t)));
    } else if (c.kind === "locked") {
      box.dataset.seat = String(c.banker);
      box.dataset.team = String(teamOf(state, c.banker));
      parts.push(el("span", "tr-callout-title", `${t("locked")} ${trumpText(c.suit, t)}`));
      parts.push(el("span", "tr-callout-verb", t("bankerLong")));
      parts.push(el("span", "tr-callout-who", nameOf(state, c.banker)));
    }
    box.replaceChildren(...parts);
  }

  // ---------- the seats ----------

  function renderSeatParts(node, seat, state, api) {
    const { $, t } = api;
    const team = Number.isInteger(seat.team) ? seat.team : teamOf(state, seat.seat);
    node.dataset.team = team === null ? "" : String(team);
    const row = $(".seat-name-row", node);
    let chip = $(".tr-seat-team", row);
    if (!chip) {
      chip = api.el("span", "tr-seat-team");
      row.insertBefore(chip, row.firstChild);
    }
    chip.textContent = t("teamShort", team);
    chip.dataset.team = String(team);
    const isBanker = state.banker === seat.seat;
    node.classList.toggle("banker", isBanker);
    const badge = api.slot(row, "tr-badge-banker", isBanker);
    if (badge) {
      badge.textContent = `★ ${t("banker")}`;
      row.insertBefore(badge, chip.nextSibling);
    }
    // the declarer of the trump (or of the candidate, while declaring): its suit beside its name
    const declaration = state.trump || (state.phase === "declaring" ? state.candidate : null);
    const declarer = declaration ? (state.trump ? state.trump.declarer : declaration.seat) : null;
    const mark = api.slot(row, "tr-badge-trump", declarer === seat.seat && Number.isInteger(declarer));
    if (mark) {
      mark.textContent = declaration.suit ? `${t("trump")} ${trumpText(declaration.suit, t)}` : t("noTrump");
      mark.classList.toggle("red", ["H", "D"].includes(declaration.suit));
      mark.classList.toggle("candidate", !state.trump);
    }
    // the seat's play in the current trick, or its declaration while declaring
    const action = seat.action;
    const play = $(".seat-play", node);
    const isPlay = !!(action && action.type === "play");
    api.setCards(play, isPlay ? action.cards : []);
    play.hidden = !isPlay;
    play.classList.toggle("punished", isPlay && !!action.punished);
    const said = $(".tr-seat-said", node);
    let words = "";
    if (state.phase === "declaring" && seat.declared && Array.isArray(seat.declared.cards)) {
      words = `${t("declared")} ${faces(seat.declared.cards)}`;
    }
    said.textContent = words;
    said.hidden = !words;
  }

  // ---------- the result card ----------

  /** A round's story: which team went up (from what to what), the defenders' points,
   *  the trick points, the kitty shown and its multiplier, both teams' levels. */
  function roundStory(data, api) {
    const { t } = api;
    const r = data.result || {};
    const players = Array.isArray(data.players) ? data.players : [];
    const before = Array.isArray(r.levels_before) ? r.levels_before : [];
    const after = Array.isArray(r.levels_after) ? r.levels_after : [];
    const up = Number.isInteger(r.up_team) ? r.up_team : null;
    const headline = up === null ? ""
      : t("rsUp", t("team", up), levelText(before[up]), levelText(after[up]), r.delta);
    const items = [
      { label: t("rsDefenders"), value: String(r.defender_points ?? "–"), kind: "total" },
      { label: t("rsTricks"), value: String(r.trick_points ?? "–"), kind: "tricks" },
    ];
    const kitty = Array.isArray(r.kitty) ? r.kitty : [];
    const mult = Number(r.multiplier) || 0;
    items.push({
      label: t("rsKitty"),
      cards: kitty,
      value: mult > 0 ? t("rsKill", r.kitty_points || 0, mult) : t("rsKept", r.kitty_points || 0),
      kind: mult > 0 ? "kill" : "kitty",
    });
    [0, 1].forEach((team) => {
      if (!Number.isInteger(before[team])) return;
      const changed = before[team] !== after[team];
      items.push({
        label: t("team", team),
        value: changed ? `${levelText(before[team])} → ${levelText(after[team])}` : levelText(after[team]),
        kind: `team-${team}`,
      });
    });
    if (Number.isInteger(r.next_banker)) {
      items.push({ label: t("rsNext"), value: players[r.next_banker] || `#${r.next_banker + 1}`, kind: "next" });
    }
    return { headline, items };
  }

  /** Beside a seat's name on the result card: its team, and the banker's badge. */
  function roundSeatTag(data, seat, api) {
    const r = data.result || {};
    const team = seat % 2;
    const word = api.t("team", team);
    return r.banker === seat ? `${word} · ${api.t("banker")}` : word;
  }

  // ---------- the centre trick and the moves ----------

  function trickLabel(action, api) {
    const { t } = api;
    if (!action) return "";
    if (action.punished) return t("punishedTag");
    const lead = current && current.trick && current.trick.lead ? current.trick.lead : null;
    if (action.suit_group === "TRUMP" && lead && lead.suit_group && lead.suit_group !== "TRUMP") {
      return t("ruff");
    }
    const kinds = t("kinds");
    return kinds && typeof kinds === "object" ? kinds[action.kind] || "" : "";
  }

  function moveText(action, api) {
    const { t } = api;
    switch (action.type) {
      case "declare": return action.declared ? t("moveDeclare", faces(action.cards)) : "";
      case "bury": return t("moveBury", action.count);
      case "trump_locked": return t("moveLocked", `${t("trump")} ${trumpText(action.trump_suit, t)}`);
      case "throw_punished": return t("movePunished", faces(action.original), faces(action.punished));
      case "trick_won": return action.counted && action.points > 0 ? t("moveScored", action.points) : "";
      default: return "";
    }
  }

  window.ArenaOverlay.register("tractor", {
    labels: LABELS,
    effectNames: {
      zh: { RESHUFFLE: "重新洗牌" },
      en: { RESHUFFLE: "Reshuffle" },
    },
    sounds: {
      punished: [[330, 0.0, 0.18, "square"], [220, 0.15, 0.3, "square"]],
      kill: [[196, 0.0, 0.2, "sawtooth"], [392, 0.15, 0.25, "sawtooth"], [784, 0.3, 0.35, "square"]],
      win: [[523, 0.0, 0.15, "sine"], [659, 0.12, 0.15, "sine"], [784, 0.24, 0.15, "sine"], [1046, 0.36, 0.4, "sine"]],
    },

    cardFace,

    /** Both teams' levels, the round's level, the trump, the points, the kitty; the
     *  callout over the table (in the page, once). */
    buildTopbar(box, api) {
      const teams = api.el("span", "info-item tr-teams");
      teams.id = "tr-teams";
      teams.append(teamChip(api, 0), teamChip(api, 1));
      const level = api.el("span", "tr-level");
      level.id = "tr-level";
      const trump = api.el("span", "tr-trump-box");
      const suit = api.el("span", "tr-trump");
      suit.id = "tr-trump";
      const declarer = api.el("span", "tr-declarer");
      declarer.id = "tr-declarer";
      trump.append(suit, declarer);
      const points = api.el("span", "tr-points");
      points.id = "tr-points";
      const kitty = api.el("span", "tr-kitty");
      kitty.id = "tr-kitty";
      const champion = api.el("span", "info-item tr-champion");
      champion.id = "tr-champion";
      champion.hidden = true;
      box.append(
        teams,
        infoItem(api, "playing", level, "tr-level-item"),
        infoItem(api, "trump", trump, "tr-trump-item"),
        infoItem(api, "points", points, "tr-points-item"),
        infoItem(api, "kitty", kitty, "tr-kitty-item"),
        champion,
      );
      if (!document.getElementById("tr-callout")) {
        const callout = api.el("div", "tr-callout panel");
        callout.id = "tr-callout";
        callout.hidden = true;
        const root = document.getElementById("overlay");
        if (root) root.appendChild(callout);
      }
    },

    /** A seat's play in the trick, and its words while declaring. */
    buildSeat(node, api) {
      api.$(".seat-action", node).append(api.el("div", "seat-play cards"), api.el("div", "tr-seat-said"));
    },

    render(state, api) {
      current = state;
      renderTopbar(state, api);
      renderCallout(state, api);
    },

    renderSeat: renderSeatParts,
    roundStory,
    roundSeatTag,
    /** The result card shows no hands: every card was played (the kitty is in the story). */
    roundHands: () => false,
    trickLabel,
    moveText,

    /** A throw that did not stand, the trump locked: the callout (and a sound); a kitty
     *  killed for points, the match won: full screen. */
    onEvent(ev, api) {
      const d = ev.data || {};
      const { t } = api;
      if (ev.type === "throw_punished") api.beep("punished");
      if (ev.type === "trump_locked") {
        flash = { round: ev.round, until: Date.now() + CALLOUT_MS };
        setTimeout(() => { if (current) renderCallout(current, api); }, CALLOUT_MS + 50);
      }
      // a kill that brought the defenders points (a kitty of no points adds nothing)
      if (ev.type === "round_result" && d.result && Number(d.result.multiplier) > 0
        && Number(d.result.kitty_points) > 0) {
        api.fullScreen("tr-kill", t("kill", d.result.multiplier));
        api.beep("kill");
      }
      if (ev.type === "game_over") {
        const team = Number.isInteger(d.winner_team) ? d.winner_team : null;
        api.fullScreen(team === null ? "tr-draw" : `tr-win-${team}`, team === null ? t("draw") : t("wins", t("team", team)));
        api.beep("win");
      }
    },
  });
})();
