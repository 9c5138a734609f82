/* The round's and the match's story on the overlay: every game's result and match cards.
 *
 * The shell (overlay.js) hands this module each snapshot's `story` (the hub keeps it:
 * `round`, the table's last `round_result` event until the next round starts; `rounds`,
 * each ended round's `round_no`, `scores` and `totals`; `match`, the `match_ended`
 * event), so that a page that joins late draws the same cards as one that watched.
 *
 * - The result card: the headline (who won), what made the stakes (the game renderer's
 *   `roundStory(data)` hook: `{headline, items: [{label, value, cards?}]}`; a game without it
 *   shows the card without that part), then one row per seat: its name, the round's
 *   points, the running total and the cards left in its hand (`data.result.final_hands`
 *   by seat, or the renderer's `roundHands(data)`; `false` from it: no hands), with the renderer's
 *   `roundSeatTag(data, seat)` beside the name. It stays until the next round starts,
 *   and at least HOLD_MS once it appeared.
 * - The match card: the standings (rank, name, total, rounds won), each model seat's
 *   legal-move rate and cost (the snapshot's figures), and the round that swung it.
 *
 * The round that swung it: the round that widened the winner's lead the most. The
 * winner is the first of the standings; its lead after a round is its running total
 * minus the best running total of the others (0 before the first round); the round
 * whose lead minus the lead before it is the largest wins, the earlier on a tie, and
 * none is named when no round widened the lead (a match of draws).
 *
 * Every string that comes from agents is put on the page with textContent only.
 */
"use strict";

(function () {
  /** How long a result card stays at least, once it appeared (ms). */
  const HOLD_MS = 5000;

  const WORDS = {
    zh: {
      roundResult: (r) => `第 ${r} 局 结果`, matchResult: (n) => `比赛结束 · 共 ${n} 局`,
      champion: (names) => `冠军 ${names}`, points: "本局",
      total: "总分", hand: "剩余手牌", rank: "名次", player: "选手", won: "胜局",
      swing: (r, n, gain) => `关键一局: 第 ${r} 局 (${n} 领先 +${gain})`,
      wins: (names) => `${names} 胜`, noCards: "出完", legal: "合法率", cost: "花费",
      rounds: (n) => `共 ${n} 局`,
    },
    en: {
      roundResult: (r) => `Round ${r} result`, matchResult: (n) => `Final standings · ${n} rounds`,
      champion: (names) => `Winner: ${names}`, points: "Round",
      total: "Total", hand: "Cards left", rank: "#", player: "Player", won: "Won",
      swing: (r, n, gain) => `The round that swung it: round ${r} (${n}'s lead +${gain})`,
      wins: (names) => `${names} win${names.includes(",") ? "" : "s"}`, noCards: "out",
      legal: "Legal", cost: "Cost",
    },
  };

  const shown = { round: null, event: null, roundAt: 0, timer: null, pending: null, story: null };

  function words(ctx, key, ...args) {
    const v = (WORDS[ctx.lang] || WORDS.zh)[key];
    return typeof v === "function" ? v(...args) : v;
  }

  const signed = (n) => (typeof n === "number" ? (n > 0 ? `+${n}` : String(n)) : "–");
  const roundKey = (ev) => (ev && ev.data ? `${ev.table}|${ev.data.round_no}|${ev.seq}` : null);

  /** The result card of one round_result event. */
  function buildRoundCard(box, ev, ctx) {
    const { el } = ctx;
    const d = ev.data || {};
    const players = Array.isArray(d.players) ? d.players : [];
    const scores = d.scores || {};
    const totals = d.totals || {};
    const story = ctx.hook("roundStory", d) || {};
    const items = Array.isArray(story) ? story : Array.isArray(story.items) ? story.items : [];
    // a game's own hands; `false`: its card shows none (every card is played, say)
    const own = ctx.hook("roundHands", d);
    const showHands = own !== false;
    const hands = Array.isArray(own) ? own
      : (d.result && Array.isArray(d.result.final_hands) ? d.result.final_hands : []);
    const winners = players.filter((p) => typeof scores[p] === "number" && scores[p] > 0);
    const headline = typeof story.headline === "string" && story.headline
      ? story.headline : winners.length ? words(ctx, "wins", winners.join(", ")) : "";

    const title = el("div", "story-title", words(ctx, "roundResult", d.round_no || "?"));
    const head = el("div", "story-headline", headline);
    const parts = [title, head];
    if (items.length) {
      const stakes = el("div", "story-stakes");
      items.forEach((item) => {
        if (!item) return;
        const chip = el("span", "story-item");
        if (item.kind) chip.dataset.kind = String(item.kind);
        chip.append(el("span", "story-label", item.label));
        if (Array.isArray(item.cards)) { // cards the round revealed (a kitty), as cards
          const cards = el("span", "story-cards cards small");
          ctx.setCards(cards, item.cards);
          chip.append(cards);
        }
        chip.append(el("span", "story-value", item.value));
        stakes.append(chip);
      });
      parts.push(stakes);
    }
    const rows = el("div", "story-seats");
    players.forEach((player, seat) => {
      const row = el("div", "story-seat");
      row.dataset.seat = String(seat);
      row.classList.toggle("won", winners.includes(player));
      const line = el("div", "story-seat-line");
      const name = el("span", "story-name", player);
      const tag = ctx.hook("roundSeatTag", d, seat);
      line.append(name);
      if (tag) line.append(el("span", "story-tag", tag));
      line.append(
        el("span", "story-points", signed(scores[player])),
        el("span", "story-total", `${words(ctx, "total")} ${player in totals ? totals[player] : "–"}`),
      );
      row.append(line);
      if (showHands) {
        const cards = Array.isArray(hands[seat]) ? hands[seat] : [];
        const hand = el("div", "story-hand cards small");
        ctx.setCards(hand, cards);
        if (!cards.length) hand.append(el("span", "story-out", words(ctx, "noCards")));
        row.append(hand);
      }
      rows.append(row);
    });
    parts.push(rows);
    box.replaceChildren(...parts);
    box.classList.toggle("many-seats", players.length > 4);
    box.dataset.round = String(d.round_no || "");
  }

  /** The round that widened the winner's lead the most (see the module): null or
   *  {round_no, gain}. */
  function swingRound(winner, rounds) {
    let before = 0;
    let best = null;
    for (const r of rounds || []) {
      const totals = r && r.totals ? r.totals : {};
      if (!(winner in totals)) continue;
      const others = Object.keys(totals).filter((p) => p !== winner).map((p) => totals[p]);
      const lead = totals[winner] - (others.length ? Math.max(...others) : 0);
      const gain = lead - before;
      if (gain > 0 && (best === null || gain > best.gain)) best = { round_no: r.round_no, gain };
      before = lead;
    }
    return best;
  }

  /** The match card of the match_ended event. */
  function buildMatchCard(box, ev, rounds, ctx) {
    const { el } = ctx;
    const d = ev.data || {};
    const players = Array.isArray(d.players) ? d.players : [];
    const standings = Array.isArray(d.standings) ? d.standings : [];
    const totals = d.totals || {};
    const won = d.rounds_won || {};
    const title = el("div", "story-title", words(ctx, "matchResult", d.rounds || rounds.length || 0));
    const first = standings.filter((s) => s.rank === 1).map((s) => s.player);
    const sub = el("div", "story-headline", first.length ? words(ctx, "champion", first.join(", ")) : "");
    const table = el("div", "match-standings");
    const header = el("div", "match-row match-header");
    header.append(
      el("span", "match-rank", words(ctx, "rank")), el("span", "match-name", words(ctx, "player")),
      el("span", "match-total", words(ctx, "total")), el("span", "match-won", words(ctx, "won")),
    );
    table.append(header);
    standings.forEach((s) => {
      const row = el("div", "match-row");
      row.dataset.rank = String(s.rank);
      const seat = players.indexOf(s.player);
      const fig = seat >= 0 ? ctx.figures[seat] : null;
      const who = el("span", "match-name");
      who.append(el("span", "match-player", s.player));
      if (fig) {
        const figs = el("span", "match-figures");
        if (fig.model) figs.append(el("span", "fig-model", fig.model));
        if (typeof fig.legal_rate === "number") {
          figs.append(el("span", "fig-rate", `${words(ctx, "legal")} ${(fig.legal_rate * 100).toFixed(0)}%`));
        }
        if (typeof fig.cost === "number") {
          figs.append(el("span", "fig-cost", `${words(ctx, "cost")} $${fig.cost.toFixed(fig.cost < 1 ? 4 : 2)}`));
        }
        who.append(figs);
      }
      row.append(
        el("span", "match-rank", s.rank),
        who,
        el("span", "match-total", s.player in totals ? totals[s.player] : s.score),
        el("span", "match-won", s.player in won ? won[s.player] : s.rounds_won),
      );
      table.append(row);
    });
    const parts = [title, sub, table];
    const winner = standings.length ? standings[0].player : null;
    const swing = winner === null ? null : swingRound(winner, rounds);
    if (swing) {
      const line = el("div", "match-swing", words(ctx, "swing", swing.round_no, winner, swing.gain));
      line.dataset.round = String(swing.round_no);
      parts.push(line);
    }
    box.replaceChildren(...parts);
  }

  /** A round_result seen live: its card is shown with the next snapshot, even when
   *  the next round's start or the match's end comes in the same snapshot. */
  function onEvent(ev) {
    if (ev && ev.type === "round_result" && ev.data) shown.pending = ev;
  }

  /** Draw the cards for the latest `story` (called on each snapshot, and again when a
   *  held result card's time is up). `ctx`: the shell's helpers and the figures. */
  function render(story, ctx) {
    const roundBox = document.getElementById("round-card");
    const matchBox = document.getElementById("match-card");
    if (!roundBox || !matchBox) return;
    clearTimeout(shown.timer);
    shown.story = story;
    const s = story || {};
    const round = s.round && s.round.data ? s.round : null;
    const match = s.match && s.match.data ? s.match : null;
    const now = Date.now();
    // a result seen live; else one the page joined on (not once the match is over:
    // a page that joins an ended match goes straight to the match card)
    let fresh = shown.pending;
    shown.pending = null;
    if (!fresh && round && !match) fresh = round;
    if (fresh && roundKey(fresh) !== shown.round) {
      shown.round = roundKey(fresh);
      shown.event = fresh;
      shown.roundAt = now;
    }
    const holding = shown.round !== null && now - shown.roundAt < HOLD_MS;
    const current = round !== null && roundKey(round) === shown.round;
    const roundOn = holding || (current && !match);
    if (roundOn) buildRoundCard(roundBox, shown.event, ctx); // (in the page's words now)
    else shown.round = shown.event = null;
    roundBox.hidden = !roundOn;
    const matchOn = !!match && !roundOn;
    if (matchOn) buildMatchCard(matchBox, match, Array.isArray(s.rounds) ? s.rounds : [], ctx);
    matchBox.hidden = !matchOn;
    if (holding) {
      shown.timer = setTimeout(() => render(shown.story, ctx), HOLD_MS - (now - shown.roundAt) + 20);
    }
  }

  window.ArenaStory = { render, onEvent, swingRound, HOLD_MS };
})();
