/* 斗地主's part of the stream overlay: what a Dou Dizhu table shows beyond the shell.
 *
 * The shell (arena/server/static/overlay.js) loads this script when a snapshot names
 * the game "ddz", and draws the seats, names, turns, bubbles and gifts itself; this
 * renderer adds the call score, the multiplier and the bottom cards to the top bar, the
 * landlord's badge, each seat's last play (or pass) and its bid or double while they
 * are made, and the full-screen bomb, rocket and spring. Its hooks are described in
 * docs/overlay.md. Like the shell, it puts text on the page with textContent only.
 */
"use strict";

(function () {
  const LABELS = {
    zh: {
      call: "叫分", mult: "倍数", bottom: "底牌", landlord: "地主", farmer: "农民",
      pass: "不出", bid0: "不叫", bid: (n) => `${n} 分`, grab: "抢地主", nograb: "不抢",
      call1: "叫地主", double: "加倍", nodouble: "不加倍", redouble: "再加倍", noredouble: "不再加倍",
      bomb: "炸弹!", rocket: "王炸!", spring: "春天!", reverse_spring: "反春!",
      rsLandlordWon: (n) => `地主 ${n} 胜`, rsFarmersWon: "农民胜", rsCall: "叫分",
      rsGrab: "抢地主", rsBomb: "炸弹", rsRocket: "王炸", rsSpring: "春天", rsReverse: "反春",
      rsDoubled: (n) => `${n} 加倍`, rsRedoubled: "地主再加倍", rsGift: "礼物翻倍",
      rsStakes: "总倍数", rsForced: "强制地主",
      hands: {
        SINGLE: "单张", PAIR: "对子", TRIPLE: "三张", TRIPLE_WITH_SINGLE: "三带一",
        TRIPLE_WITH_PAIR: "三带二", STRAIGHT: "顺子", STRAIGHT_PAIR: "连对", AIRPLANE: "飞机",
        AIRPLANE_WITH_SINGLES: "飞机带翅膀", AIRPLANE_WITH_PAIRS: "飞机带对",
        FOUR_WITH_TWO_SINGLES: "四带二", FOUR_WITH_TWO_PAIRS: "四带两对", BOMB: "炸弹", ROCKET: "王炸",
      },
    },
    en: {
      call: "Call", mult: "Mult", bottom: "Bottom", landlord: "Landlord", farmer: "Farmer",
      pass: "Pass", bid0: "No bid", bid: (n) => `Bid ${n}`, grab: "Grab", nograb: "No grab",
      call1: "Call", double: "Double", nodouble: "No double", redouble: "Redouble", noredouble: "No redouble",
      bomb: "BOMB!", rocket: "ROCKET!", spring: "SPRING!", reverse_spring: "REVERSE SPRING!",
      rsLandlordWon: (n) => `Landlord ${n} wins`, rsFarmersWon: "The farmers win", rsCall: "Call",
      rsGrab: "Grab", rsBomb: "Bomb", rsRocket: "Rocket", rsSpring: "Spring", rsReverse: "Reverse spring",
      rsDoubled: (n) => `${n} doubles`, rsRedoubled: "Landlord redoubles", rsGift: "Gift double",
      rsStakes: "Stakes", rsForced: "Forced landlord",
      hands: {
        SINGLE: "Single", PAIR: "Pair", TRIPLE: "Triple", TRIPLE_WITH_SINGLE: "Triple + 1",
        TRIPLE_WITH_PAIR: "Triple + pair", STRAIGHT: "Straight", STRAIGHT_PAIR: "Pair straight",
        AIRPLANE: "Airplane", AIRPLANE_WITH_SINGLES: "Airplane + wings", AIRPLANE_WITH_PAIRS: "Airplane + pairs",
        FOUR_WITH_TWO_SINGLES: "Four + 2", FOUR_WITH_TWO_PAIRS: "Four + 2 pairs", BOMB: "Bomb", ROCKET: "Rocket",
      },
    },
  };

  /** An item of the top bar: its label (set by the shell in the page's language), then
   *  its value. */
  function infoItem(api, key, value, cls) {
    const item = api.el("span", `info-item${cls ? " " + cls : ""}`);
    const label = api.el("span", "info-label");
    label.dataset.i18n = key;
    item.append(label, document.createTextNode(" "), value);
    return item;
  }

  function bidText(bid, t) {
    if (!bid) return "";
    const n = Number(bid.bid) || 0;
    if (bid.mode === "grab") {
      if (bid.grab) return n ? t("grab") : t("nograb");
      return n ? t("call1") : t("bid0");
    }
    return n ? t("bid", n) : t("bid0");
  }

  function doubleText(d, t) {
    if (!d) return "";
    if (d.kind === "redouble") return d.double ? t("redouble") : t("noredouble");
    return d.double ? t("double") : t("nodouble");
  }

  function renderBadge(row, isLandlord, api) {
    let badge = api.$(".badge-landlord", row);
    if (isLandlord && !badge) {
      badge = api.el("span", "badge-landlord");
      row.insertBefore(badge, row.firstChild);
    } else if (!isLandlord && badge) {
      badge.remove();
      badge = null;
    }
    if (badge) badge.textContent = `♛ ${api.t("landlord")}`;
  }

  function renderAction(node, seat, state, api) {
    const { $, t } = api;
    const play = $(".seat-play", node);
    const pass = $(".seat-pass", node);
    const bidBox = $(".seat-bid", node);
    const action = seat.action;
    const isPlay = action && action.type === "play";
    api.setCards(play, isPlay ? action.cards : []);
    play.hidden = !isPlay;
    play.dataset.handType = isPlay && action.hand_type ? action.hand_type : "";
    const isPass = !!(action && action.type === "pass");
    pass.textContent = isPass ? t("pass") : "";
    pass.hidden = !isPass;
    // Bids and doubles matter while the round is being set up.
    let bidStr = "";
    if (state.phase === "bidding" || state.phase === "doubling") {
      bidStr = [bidText(seat.bid, t), doubleText(seat.double, t)].filter(Boolean).join(" · ");
    }
    bidBox.textContent = bidStr;
    bidBox.hidden = !bidStr;
  }

  /** What made a round's stakes (the result card): the call, then each doubling (a
   *  grab, a bomb, a rocket, a spring, a farmer's double, the redouble, a viewer's
   *  翻倍 gift), then the multiplier each farmer played for, and who won. */
  function roundStory(data, api) {
    const { t } = api;
    const r = data.result || {};
    const players = Array.isArray(data.players) ? data.players : [];
    const name = (seat) => players[seat] || `#${Number(seat) + 1}`;
    const x2 = (n) => `×${2 ** n}`;
    const items = [{ label: t("rsCall"), value: String(r.call_score || "–"), kind: "call" }];
    if (r.forced_landlord) items.push({ label: t("rsForced"), value: "✓", kind: "forced" });
    if (r.grabs) items.push({ label: t("rsGrab"), value: x2(r.grabs), kind: "grab" });
    for (let i = 0; i < (r.bombs || 0); i++) items.push({ label: t("rsBomb"), value: "×2", kind: "bomb" });
    for (let i = 0; i < (r.rockets || 0); i++) items.push({ label: t("rsRocket"), value: "×2", kind: "rocket" });
    if (r.spring) {
      items.push({ label: t(r.spring === "reverse_spring" ? "rsReverse" : "rsSpring"), value: "×2", kind: "spring" });
    }
    if (r.gift_doubles) items.push({ label: t("rsGift"), value: x2(r.gift_doubles), kind: "gift" });
    Object.keys(r.doubled || {}).sort().forEach((seat) => {
      if (r.doubled[seat]) items.push({ label: t("rsDoubled", name(seat)), value: "×2", kind: "farmer" });
    });
    if (r.redoubled) items.push({ label: t("rsRedoubled"), value: "×2", kind: "redouble" });
    // each farmer's multiplier (the same for both unless a double counted for one)
    const exps = Object.values(r.exponents || {});
    const mults = [...new Set(exps.map((e) => 2 ** e))].sort((a, b) => a - b);
    const call = r.call_score || 1;
    const stake = mults.length
      ? mults.map((m) => `${call}×${m}=${call * m}`).join(" / ")
      : `${call}×${2 ** (r.common_exponent || 0)}`;
    items.push({ label: t("rsStakes"), value: stake, kind: "total" });
    const headline = r.winner_side === "landlord" ? t("rsLandlordWon", name(r.landlord))
      : r.winner_side === "farmer" ? t("rsFarmersWon") : "";
    return { headline, items };
  }

  window.ArenaOverlay.register("ddz", {
    labels: LABELS,
    effectNames: {
      zh: { DOUBLE: "翻倍", ROLE_SWAP: "角色互换" },
      en: { DOUBLE: "Double", ROLE_SWAP: "Role swap" },
    },
    sounds: {
      bomb: [[110, 0.0, 0.5, "sawtooth"], [70, 0.05, 0.6, "square"]],
      rocket: [[300, 0.0, 0.15, "square"], [600, 0.12, 0.15, "square"], [1200, 0.24, 0.25, "square"]],
      spring: [[523, 0.0, 0.15, "sine"], [659, 0.12, 0.15, "sine"], [784, 0.24, 0.3, "sine"]],
    },

    /** The call score, the multiplier and the bottom cards, in the top bar. */
    buildTopbar(box, api) {
      box.append(
        infoItem(api, "call", api.el("span", null, "–")),
        infoItem(api, "mult", api.el("span", null, "×1")),
        infoItem(api, "bottom", api.el("span", "cards small"), "bottom-wrap"),
      );
      const [call, mult, bottom] = box.querySelectorAll(".info-item > :last-child");
      call.id = "call-score";
      mult.id = "multiplier";
      bottom.id = "bottom-cards";
    },

    /** A seat's play (as cards), its pass, its bid or double. */
    buildSeat(node, api) {
      api.$(".seat-action", node).append(
        api.el("div", "seat-play cards"), api.el("div", "seat-pass"), api.el("div", "seat-bid"),
      );
    },

    render(state, api) {
      const { $ } = api;
      $("#call-score").textContent = state.call_score ? String(state.call_score) : "–";
      const common = state.multiplier && state.multiplier.common ? state.multiplier.common : 1;
      $("#multiplier").textContent = `×${common}`;
      api.setCards($("#bottom-cards"), state.bottom_cards || []);
      $(".bottom-wrap").hidden = !(state.bottom_cards && state.bottom_cards.length);
    },

    renderSeat(node, seat, state, api) {
      const isLandlord = state.landlord === seat.seat;
      node.classList.toggle("landlord", isLandlord);
      node.classList.toggle("warn", seat.cards_left !== null && seat.cards_left <= 2 && seat.cards_left > 0);
      renderBadge(api.$(".seat-name-row", node), isLandlord, api);
      renderAction(node, seat, state, api);
    },

    roundStory,

    /** The centre trick: a play's hand type, in words (a single needs none). */
    trickLabel(action, api) {
      const names = api.t("hands");
      const type = action && action.hand_type;
      if (!type || type === "SINGLE" || !names || typeof names !== "object") return "";
      return names[type] || "";
    },

    /** The move history: a bid or a double, in words (plays and passes are the shell's). */
    moveText(action, api) {
      if (action.type === "bid") return bidText(action, api.t);
      if (action.type === "double") return doubleText(action, api.t);
      return "";
    },

    /** A seat's role beside its name on the result card. */
    roundSeatTag(data, seat, api) {
      const r = data.result || {};
      if (typeof r.landlord !== "number") return "";
      return api.t(seat === r.landlord ? "landlord" : "farmer");
    },

    /** A bomb, a rocket, a spring: full screen, and their sound. */
    onEvent(ev, api) {
      const d = ev.data || {};
      if (ev.type === "play" && d.hand_type === "BOMB") { api.fullScreen("bomb", api.t("bomb")); api.beep("bomb"); }
      if (ev.type === "play" && d.hand_type === "ROCKET") { api.fullScreen("rocket", api.t("rocket")); api.beep("rocket"); }
      // the centre trick shakes as a bomb or a rocket lands (overlay.css; none with reduced motion)
      const trick = document.getElementById("trick");
      if (trick && ev.type === "play" && (d.hand_type === "BOMB" || d.hand_type === "ROCKET")) {
        trick.classList.remove("boom");
        void trick.offsetWidth; // (restarts the shake for a second bomb)
        trick.classList.add("boom");
        setTimeout(() => trick.classList.remove("boom"), 900);
      }
      if (ev.type === "round_result" && d.result && d.result.spring) {
        api.fullScreen("spring", api.t(d.result.spring === "reverse_spring" ? "reverse_spring" : "spring"));
        api.beep("spring");
      }
    },
  });
})();
