/* The between screen: over the table while the next match (or a tournament's next
 * table) is coming, every game's.
 *
 * The server says when the next one comes (`next_at` in its `server` message, Unix ms:
 * `arena serve --next-in` between two matches, or the hold between two featured tables
 * of `tournament run --serve`, `[server] between_tables_s`) and, when it knows, what
 * comes (`next`: the table, its players, a tournament's stage and table number). While
 * `next_at` is in the future this screen covers the table: the title (next match / next
 * table and which), a big countdown, the standings so far (a tournament's leaderboard,
 * else the last match's final standings from the snapshot's `story`) and who plays next.
 * It goes when the time is up or the server says nothing is due any more.
 *
 * The shell (overlay.js) calls `ArenaBetween.tick(ctx)` about four times a second with
 * what the page knows; the screen is built again only when that changed, the clock
 * every tick. Every string from agents goes on the page with textContent only.
 */
"use strict";

(function () {
  const WORDS = {
    zh: {
      nextMatch: "下一场", nextTable: "下一桌", soon: "稍后揭晓",
      stage: (n) => `第 ${n} 轮`, table: (n) => `第 ${n} 桌`, seating: (n) => `座次 ${n}`,
      standings: "目前排名", lastMatch: "上一场排名", rank: "名次", player: "选手",
      points: "积分", upNext: "对阵", pts: "分",
    },
    en: {
      nextMatch: "Next match", nextTable: "Next table", soon: "to be announced",
      stage: (n) => `Round ${n}`, table: (n) => `Table ${n}`, seating: (n) => `seating ${n}`,
      standings: "Standings", lastMatch: "Last match", rank: "#", player: "Player",
      points: "Points", upNext: "Up next", pts: "pts",
    },
  };
  /** Rows of standings shown at most. */
  const MAX_ROWS = 8;

  const built = { key: null };

  function words(lang, key, ...args) {
    const v = (WORDS[lang] || WORDS.zh)[key];
    return typeof v === "function" ? v(...args) : v;
  }

  /** Seconds as m:ss. */
  const mmss = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;

  /** The standings to show: [{rank, name, points}] and whose they are (null: none). */
  function standings(ctx) {
    const agents = ctx.leaderboard && Array.isArray(ctx.leaderboard.agents) ? ctx.leaderboard.agents : [];
    if (agents.length) {
      return {
        title: "standings", pts: true,
        rows: agents.map((a) => ({ rank: a.rank, name: a.name, points: a.points })),
      };
    }
    const story = ctx.story || {};
    const match = story.match && story.match.data ? story.match.data : null;
    if (match && Array.isArray(match.standings) && match.standings.length) {
      const totals = match.totals || {};
      return {
        title: "lastMatch", pts: false,
        rows: match.standings.map((s) => ({
          rank: s.rank, name: s.player, points: s.player in totals ? totals[s.player] : s.score,
        })),
      };
    }
    const rounds = Array.isArray(story.rounds) ? story.rounds : [];
    const totals = rounds.length && rounds[rounds.length - 1] ? rounds[rounds.length - 1].totals || {} : {};
    const names = Object.keys(totals).sort((a, b) => totals[b] - totals[a]);
    if (!names.length) return null;
    return {
      title: "lastMatch", pts: false,
      rows: names.map((name) => ({
        rank: 1 + names.filter((other) => totals[other] > totals[name]).length, name, points: totals[name],
      })),
    };
  }

  /** Which table comes, in words: "Round 2 · Table 1" (its id when it has no place). */
  function which(lang, next) {
    if (!next || typeof next.table !== "string") return null;
    const parts = [];
    if (Number.isInteger(next.stage)) parts.push(words(lang, "stage", next.stage));
    if (Number.isInteger(next.index)) parts.push(words(lang, "table", next.index));
    if (Number.isInteger(next.seating)) parts.push(words(lang, "seating", next.seating));
    return parts.length ? parts.join(" · ") : next.table;
  }

  function build(box, ctx, tournament, next) {
    const { el } = ctx;
    const lang = ctx.lang;
    const card = el("div", "between-card panel");
    card.append(el("div", "between-title", words(lang, tournament ? "nextTable" : "nextMatch")));
    const place = which(lang, next);
    if (tournament || place) {
      const line = el("div", "between-which", place || words(lang, "soon"));
      if (next && typeof next.table === "string") line.dataset.table = next.table;
      card.append(line);
    }
    card.append(el("div", "between-clock"));
    const players = next && Array.isArray(next.players) ? next.players.filter((p) => typeof p === "string") : [];
    if (players.length) {
      const up = el("div", "between-next");
      up.append(el("span", "between-label", words(lang, "upNext")));
      const names = el("span", "between-players");
      players.forEach((p) => names.append(el("span", "between-player", p)));
      up.append(names);
      card.append(up);
    }
    const board = standings(ctx);
    if (board) {
      const table = el("div", "between-standings");
      table.dataset.source = board.title;
      table.append(el("div", "between-standings-title", words(lang, board.title)));
      const header = el("div", "between-row between-header");
      header.append(
        el("span", "between-rank", words(lang, "rank")), el("span", "between-name", words(lang, "player")),
        el("span", "between-points", words(lang, "points")),
      );
      table.append(header);
      board.rows.slice(0, MAX_ROWS).forEach((r) => {
        const row = el("div", "between-row");
        row.dataset.rank = String(r.rank);
        row.append(
          el("span", "between-rank", r.rank), el("span", "between-name", r.name),
          el("span", "between-points", board.pts ? `${r.points} ${words(lang, "pts")}` : r.points),
        );
        table.append(row);
      });
      card.append(table);
    }
    box.replaceChildren(card);
  }

  /** Show, update or hide the screen. `ctx`: {server, leaderboard, story, lang, el}. */
  function tick(ctx) {
    const box = document.getElementById("between");
    if (!box) return;
    const server = ctx.server || {};
    const at = Number.isInteger(server.next_at) ? server.next_at : null;
    const left = at === null ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
    const on = left > 0;
    box.hidden = !on;
    const root = document.getElementById("overlay");
    if (root) root.classList.toggle("between-on", on);
    if (!on) { built.key = null; return; }
    const tournament = server.mode === "tournament";
    const next = server.next && typeof server.next === "object" ? server.next : null;
    const key = JSON.stringify([ctx.lang, tournament, next, ctx.leaderboard, ctx.story && ctx.story.match,
      ctx.story && ctx.story.rounds]);
    if (key !== built.key) {
      built.key = key;
      build(box, ctx, tournament, next);
    }
    const clock = box.querySelector(".between-clock");
    if (clock) clock.textContent = mmss(left);
  }

  window.ArenaBetween = { tick, standings };
})();
