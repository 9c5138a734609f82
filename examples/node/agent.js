#!/usr/bin/env node
// A Dou Dizhu Arena agent in plain Node.js (18 or newer, no npm packages):
// copy this file to start your own.
//
// It plays both of the arena's games, Dou Dizhu (斗地主) and Tractor (升级 / 拖拉机): it
// tells them apart by the requests it gets (docs/agents.md, "Playing Tractor").
//
// It speaks the arena's JSON messages in one of two ways:
//
//   node agent.js               JSON lines: one message a line on stdin, replies on stdout
//   node agent.js --http 8766   an HTTP server on 127.0.0.1:8766: each message is POSTed,
//                               a request's reply is the response body
//
// It plays simple, always-legal moves. Dou Dizhu: it beats a single, pair or triple with
// the lowest higher rank it holds (never breaking a bomb), passes otherwise, and leads
// its lowest rank. Tractor: it declares trump only with a long suit, buries its cheapest
// cards, leads its lowest single and follows with what the request's `follow` asks for
// (the lead's suit group, its tractors and pairs), cheapest first. Replace decideBid,
// decideDouble and decidePlay (Tractor: decideDeclare, decideBury and decideTractorPlay)
// with your own ideas.
//
// Each DEAL tells the rules in force and a seed of the seat's own: onDeal keeps both per
// seat, and every random choice draws from a generator seeded with it, so the same match
// played again (the same [match] seed) is played the same.
//
// Logs go to stderr (console.error). Nothing but replies may ever be written to stdout.

"use strict";

const http = require("node:http");
const readline = require("node:readline");

// Rank order, lowest first: a rank's strength is its index + 3, so "3" is 3, "J" is 11,
// "A" is 14, "2" is 15, 小王 is 16 and 大王 is 17.
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"];
const RANK_VALUE = new Map(RANKS.map((rank, index) => [rank, index + 3]));
const JOKERS = ["小王", "大王"];

// The number of cards of one rank, and the name of that combination.
const SHAPE_NAMES = { 1: "SINGLE", 2: "PAIR", 3: "TRIPLE", 4: "BOMB" };

function log(...parts) {
  console.error("[node-agent]", ...parts); // stderr: stdout is reserved for replies
}

// The strength of a canonical card such as "♠10", "♥A" or "大王".
function rankValue(card) {
  if (JOKERS.includes(card)) return RANK_VALUE.get(card);
  return RANK_VALUE.get(card.slice(1)); // the first character is the suit: ♠ ♥ ♦ ♣
}

// The hand as a Map {rank value: [cards of that rank]}.
function groupsByRank(hand) {
  const groups = new Map();
  for (const card of hand) {
    const value = rankValue(card);
    if (!groups.has(value)) groups.set(value, []);
    groups.get(value).push(card);
  }
  return groups;
}

// The rank values held, lowest first.
function sortedValues(groups) {
  return [...groups.keys()].sort((a, b) => a - b);
}

// True when the cards of this rank belong to a bomb or to the rocket (both jokers).
function isBombPart(groups, value) {
  if (groups.get(value).length === 4) return true;
  return value >= 16 && groups.has(16) && groups.has(17);
}

// A rough score of a hand: jokers, 2s and bombs are what win rounds.
function strength(hand) {
  const groups = groupsByRank(hand);
  let score = 2 * hand.filter((card) => JOKERS.includes(card)).length;
  score += (groups.get(15) || []).length; // the 2s
  score += 3 * [...groups.values()].filter((cards) => cards.length === 4).length;
  return score;
}

// ---- what each seat was told at its DEAL: the rules in force and its own seed ----

// A small seeded generator (mulberry32): Math.random cannot be seeded. Numbers in
// [0, 1), the same sequence for the same seed on every machine.
function seededRandom(seed) {
  let state = (seed % 4294967296) ^ Math.floor(seed / 4294967296); // 52 bits into 32
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One seat's memory from its last DEAL. One HTTP server may play several seats and
// tables at once, so seats are kept by match_id, table_id and player_id.
const seats = new Map();

function seatKey(message) {
  return JSON.stringify([message.match_id, message.table_id, message.player_id]);
}

// DEAL: remember the rules (e.g. rules.loose_wings) and start this seat's random
// choices from its seed.
function onDeal(message) {
  const seed = Number.isInteger(message.seed) ? message.seed : Date.now();
  seats.set(seatKey(message), { rules: message.rules || {}, random: seededRandom(seed) });
}

// The seat's memory; a request with no DEAL before it (a program started mid-round gets
// the DEAL again first, so only a hand-typed test) gets defaults and an unseeded start.
function seatOf(request) {
  if (!seats.has(seatKey(request))) onDeal({ ...request, rules: null, seed: null });
  return seats.get(seatKey(request));
}

// MATCH_END: forget the match's seats (MATCH_END names no player: all of them).
function onMatchEnd(message) {
  const prefix = JSON.stringify([message.match_id, message.table_id]).slice(0, -1) + ",";
  for (const key of seats.keys()) if (key.startsWith(prefix)) seats.delete(key);
}

// ---- decisions: each takes the request (an object) and returns the reply ----

// BID_REQUEST: bid the lowest bid offered with a strong hand, else pass (0); a hand just
// short of strong bids on a coin toss (from the seat's seeded generator). When 0 is not
// offered (the "fixed_landlord" mode: you are the landlord), the lowest bid offered is
// the only safe answer anyway.
function decideBid(request) {
  const offered = request.available_bids;
  const positive = offered.filter((bid) => bid > 0);
  const score = strength(request.hand || []);
  const bold = score >= 6 || (score === 5 && seatOf(request).random() < 0.5);
  let bid;
  if (positive.length > 0 && bold) bid = Math.min(...positive);
  else if (offered.includes(0)) bid = 0;
  else bid = Math.min(...offered);
  return { type: "BID_RESPONSE", bid };
}

// DOUBLE_REQUEST: double (or redouble) only with a strong hand, a stronger one when the
// rules make a farmer's double count for both farmers.
function decideDouble(request) {
  const alone = seatOf(request).rules.per_defender_doubling !== false;
  return { type: "DOUBLE_RESPONSE", double: strength(request.hand) >= (alone ? 8 : 9) };
}

// PLAY_REQUEST: lead the lowest rank, or beat a single/pair/triple, or pass. It plays
// singles, pairs, triples, bombs and the rocket only: legal under every rule variant. A
// move generator that makes airplanes with wings or fours with two reads
// seatOf(request).rules ("loose_wings", "four_with_pair"; docs/rules.md, Variants), or
// lets the arena list the moves (options.legal_moves = true in the config puts them in
// request.legal_moves).
function decidePlay(request) {
  const groups = groupsByRank(request.hand);
  if (request.is_free_play) return lead(groups);
  const last = request.last_play;
  const size = { SINGLE: 1, PAIR: 2, TRIPLE: 3 }[last.type];
  if (size !== undefined) {
    for (const value of sortedValues(groups)) {
      const cards = groups.get(value);
      // never break a bomb or the rocket to beat a small play
      if (value > last.main_rank && cards.length >= size && !isBombPart(groups, value)) {
        return play(cards.slice(0, size), SHAPE_NAMES[size]);
      }
    }
  }
  return { type: "PLAY_RESPONSE", action: "PASS", cards: [] };
}

// Lead all the cards of the lowest rank that is not part of a bomb. With only bombs (or
// the rocket) left, play the lowest of them: a bomb is always a legal lead.
function lead(groups) {
  const values = sortedValues(groups);
  for (const value of values) {
    if (!isBombPart(groups, value)) {
      const cards = groups.get(value);
      return play(cards, SHAPE_NAMES[cards.length]);
    }
  }
  if (values[0] >= 16) return play([...groups.get(16), ...groups.get(17)], "ROCKET");
  return play(groups.get(values[0]), "BOMB");
}

// A PLAY_RESPONSE; hand_type is optional, and helps the reader of a replay.
function play(cards, handType) {
  return { type: "PLAY_RESPONSE", action: "PLAY", cards, hand_type: handType };
}

// ---- Tractor (升级 / 拖拉机): docs/protocol-tractor.md ----
//
// A Tractor card is an id: deck, suit letter, rank ("D1_H_10": deck 1, ♥10) or a joker
// ("D2_SJ" small, "D1_BJ" big). The two copies of a card (D1_ and D2_) are the same
// face: two of them are a pair. The level cards (the round's `level` rank, every suit),
// the jokers and the `trump_suit`'s cards are all trumps: one suit group, "TRUMP".

const TRACTOR_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const TRUMP = "TRUMP";

// [suit, rank]: ["H", "10"] for "D1_H_10"; [null, "SJ"] or [null, "BJ"] for a joker.
function splitCard(card) {
  const parts = card.split("_");
  return parts.length === 2 ? [null, parts[1]] : [parts[1], parts[2]];
}

// What the two copies of a card share: "H_10" for "D1_H_10" and "D2_H_10".
function face(card) {
  return card.slice(card.indexOf("_") + 1);
}

// Every 5 is worth 5 points, every 10 and K 10.
function points(card) {
  const rank = splitCard(card)[1];
  return rank === "5" ? 5 : rank === "10" || rank === "K" ? 10 : 0;
}

// The round's level and trump suit (null: no trump), as every request tells them.
class Trump {
  constructor(request) {
    this.level = request.level;
    this.suit = request.trump_suit;
    // a tractor's pairs are consecutive in 2..A with the level rank left out
    this.chain = TRACTOR_RANKS.filter((rank) => rank !== this.level);
  }

  // The card's suit group: "TRUMP", or its suit letter.
  group(card) {
    const [suit, rank] = splitCard(card);
    if (suit === null || rank === this.level || suit === this.suit) return TRUMP;
    return suit;
  }

  // Higher beats lower within a suit group (equal level cards are equal).
  power(card) {
    const [suit, rank] = splitCard(card);
    if (suit === null) return rank === "BJ" ? 30 : 29;
    if (rank === this.level) return suit === this.suit ? 28 : 27;
    return TRACTOR_RANKS.indexOf(rank);
  }

  // Where a pair of this card sits in a tractor's run, null if it never does (jokers
  // and level cards are never part of a tractor).
  chainPlace(card) {
    const [suit, rank] = splitCard(card);
    if (suit === null || rank === this.level) return null;
    return this.chain.indexOf(rank);
  }

  // Compare two cards in the order to give them away in: plain suits first, low first,
  // points last.
  cheaper(a, b) {
    const key = (card) => [this.group(card) === TRUMP ? 1 : 0, this.power(card), points(card)];
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return 0;
  }
}

// DECLARE_REQUEST: declare with an option offered when its suit is a quarter of the hand
// or more (the suit becomes trump: long trumps win tricks); never no trump.
function decideDeclare(request) {
  const hand = request.hand;
  let best = null;
  let longest = 0;
  for (const option of request.options) {
    const held = hand.filter((card) => splitCard(card)[0] === option.suit).length;
    if (option.suit !== null && held > longest) [best, longest] = [option, held];
  }
  if (best !== null && 4 * longest >= hand.length) {
    return { type: "DECLARE_RESPONSE", action: "DECLARE", cards: best.cards };
  }
  return { type: "DECLARE_RESPONSE", action: "PASS", cards: [] };
}

// BURY_REQUEST: bury `count` cards, the cheapest: plain suits, low cards.
function decideBury(request) {
  const trump = new Trump(request);
  const cards = [...request.hand].sort((a, b) => trump.cheaper(a, b)).slice(0, request.count);
  return { type: "BURY_RESPONSE", cards };
}

// PLAY_REQUEST: lead the cheapest single, or follow as `follow` says.
function decideTractorPlay(request) {
  const trump = new Trump(request);
  const hand = [...request.hand].sort((a, b) => trump.cheaper(a, b));
  // any single card is a legal lead
  const cards = request.leading ? hand.slice(0, 1) : followCards(hand, request.follow, trump);
  return { type: "PLAY_RESPONSE", cards };
}

// A follow of the shape asked (docs/protocol-tractor.md, "The follow shape"): `count`
// cards; all of the suit group first when `short`; otherwise only cards of the group,
// with tractors of the lengths `tractors` names and at least `pairs` pairs (those in the
// tractors counted). `hand` is sorted cheapest first.
function followCards(hand, follow, trump) {
  const count = follow.count;
  const mine = hand.filter((card) => trump.group(card) === follow.suit_group);
  const others = hand.filter((card) => !mine.includes(card));
  if (follow.short) return [...mine, ...others.slice(0, count - mine.length)]; // `void` too
  const pairs = pairsOf(mine);
  const chosen = [];
  for (const length of follow.tractors) {
    for (const pair of longestRun(pairs, trump).slice(0, length)) {
      pairs.splice(pairs.indexOf(pair), 1); // from the run's low end
      chosen.push(...pair);
    }
  }
  for (const pair of pairs.slice(0, follow.pairs - chosen.length / 2)) chosen.push(...pair);
  const rest = mine.filter((card) => !chosen.includes(card));
  return [...chosen, ...rest.slice(0, count - chosen.length)];
}

// The pairs among some cards (both copies of one face), in the cards' order.
function pairsOf(cards) {
  const seen = new Map();
  const pairs = [];
  for (const card of cards) {
    if (seen.has(face(card))) pairs.push([seen.get(face(card)), card]);
    else seen.set(face(card), card);
  }
  return pairs;
}

// The longest run of pairs at consecutive chain places (lowest first), [] if none.
function longestRun(pairs, trump) {
  const placed = new Map();
  for (const pair of pairs) {
    const place = trump.chainPlace(pair[0]);
    if (place !== null) placed.set(place, pair);
  }
  let best = [];
  for (const place of [...placed.keys()].sort((a, b) => a - b)) {
    if (placed.has(place - 1)) continue; // not the low end of a run
    const run = [];
    while (placed.has(place + run.length)) run.push(placed.get(place + run.length));
    if (run.length > best.length) best = run;
  }
  return best;
}

const DECIDERS = {
  BID_REQUEST: decideBid,
  DOUBLE_REQUEST: decideDouble,
  PLAY_REQUEST: decidePlay,
  // Tractor's requests (its PLAY_REQUEST is told apart in handle)
  DECLARE_REQUEST: decideDeclare,
  BURY_REQUEST: decideBury,
};

// The reply to one message from the arena, or null for a notification.
function handle(message) {
  let decide = DECIDERS[message.type];
  // Tractor's PLAY_REQUEST has `leading`, Dou Dizhu's `is_free_play`
  if (message.type === "PLAY_REQUEST" && "leading" in message) decide = decideTractorPlay;
  if (decide === undefined) {
    // DEAL, BOTTOM_CARDS, REPLY_REJECTED, ROUND_RESULT, MATCH_END, and Tractor's
    // TRUMP_CANDIDATE, TRUMP_LOCKED, THROW_PUNISHED, TRICK_WON, GAME_OVER: nothing to answer.
    if (message.type === "DEAL") onDeal(message);
    else if (message.type === "MATCH_END") onMatchEnd(message);
    else if (message.type === "REPLY_REJECTED") {
      log("rejected:", message.reason, "-", message.detail);
    }
    return null;
  }
  const reply = decide(message);
  reply.player_id = message.player_id; // always: the seat the request was sent to
  reply.request_id = message.request_id; // echo it, so a late reply is known as late
  return reply;
}

// ---- transport 1: JSON lines on stdin/stdout ----

function serveStdio() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    let reply;
    try {
      reply = handle(JSON.parse(line));
    } catch (error) {
      // a bug here must not kill the agent: log it and go on
      log("could not answer:", line.slice(0, 200), error);
      return;
    }
    // One line per reply. Node sends it at once: there is no buffer to flush.
    if (reply !== null) process.stdout.write(JSON.stringify(reply) + "\n");
  });
  // When stdin closes (the match is over), Node exits by itself.
}

// ---- transport 2: HTTP ----

function serveHttp(port) {
  const token = process.env.AGENT_TOKEN; // optional: require the arena's bearer token
  const server = http.createServer((req, res) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      let reply;
      try {
        reply = handle(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        log("could not answer:", error);
        res.writeHead(500).end();
        return;
      }
      if (reply === null) {
        res.writeHead(204).end(); // a notification: no body
        return;
      }
      const body = Buffer.from(JSON.stringify(reply), "utf8");
      res.writeHead(200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": body.length,
      });
      res.end(body);
    });
  });
  // The arena keeps its connection open between messages, and other seats may think for
  // a while: keep idle connections longer than Node's default of 5 seconds.
  server.keepAliveTimeout = 120000;
  server.listen(port, "127.0.0.1", () => {
    log(`listening on http://127.0.0.1:${server.address().port}/`);
  });
  process.on("SIGTERM", () => process.exit(0)); // Ctrl-C (SIGINT) stops it too
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf("--http");
  if (at === -1) {
    serveStdio();
    return;
  }
  const port = Number(args[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    log("usage: node agent.js [--http PORT]");
    process.exit(2);
  }
  serveHttp(port);
}

main();
