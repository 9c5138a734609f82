/* Streamer's control page: talks to /control/api/* with a Bearer token.
 *
 * The page holds no secret: the token is typed in, or comes in the URL's fragment
 * (/control#token=..., the link `arena serve` prints with a token made for the run: a
 * fragment is never sent to the server), and is kept in sessionStorage (gone when the tab
 * closes); a fragment's token is taken off the address bar and the tab's history at once.
 * Every answer is shown with textContent, never as markup. The test gift's effects and
 * seats are the featured table's game's (the state's `effects` and `seats`); the names
 * of a game's own effects come from its overlay renderer (the state's `game.script`,
 * loaded here only for its `effectNames`).
 */
"use strict";

(function () {
  const TOKEN_KEY = "arena-control-token";
  const $ = (id) => document.getElementById(id);
  let refreshTimer = null;
  let lastState = null;

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  }

  /** A token given as #token=... becomes the tab's token; the address bar (and this
   * history entry) keep the page's URL without it, so it is not bookmarked or shared. */
  function takeTokenFromFragment() {
    if (!location.hash) return;
    const given = new URLSearchParams(location.hash.slice(1)).get("token");
    history.replaceState(null, "", location.pathname + location.search);
    if (given && given.trim()) sessionStorage.setItem(TOKEN_KEY, given.trim());
  }

  function setAuth(state, text) {
    const box = $("auth-status");
    box.dataset.state = state;
    box.textContent = text;
  }

  function showResult(text, isError) {
    const box = $("result");
    box.textContent = text;
    box.classList.toggle("error", !!isError);
  }

  /** Call the API; resolves to {status, body} (body parsed JSON or null). */
  async function api(method, path, body) {
    const headers = { Authorization: `Bearer ${token()}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const resp = await fetch(`/control/api/${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    let data = null;
    try { data = await resp.json(); } catch (err) { data = null; }
    return { status: resp.status, body: data };
  }

  /** A 401/403 means the token is wrong (or the server has none): stop polling. */
  function refused(res) {
    if (res.status !== 401 && res.status !== 403) return false;
    const why = res.body && res.body.error ? ` (${res.body.error})` : "";
    const text = res.status === 403
      ? `令牌被拒绝：服务器未设置令牌 / Token refused: the server has no token set${why}`
      : `令牌被拒绝 / Token refused${why}`;
    setAuth("refused", text);
    stopRefresh();
    return true;
  }

  // ---------- state ----------

  function fillSelect(select, values, current, labelOf) {
    const keep = select.value;
    select.replaceChildren(...values.map((v) => {
      const opt = document.createElement("option");
      opt.value = v;
      opt.textContent = labelOf ? labelOf(v) : v;
      return opt;
    }));
    const want = current !== undefined && current !== null ? current : keep;
    if (values.includes(want)) select.value = want;
    else if (values.includes(keep)) select.value = keep;
  }

  /** The gift effects every game may offer; a game's own are named by its renderer. */
  const EFFECT_LABELS = {
    CHEER: "加油 Cheer", EMOTE: "表情 Emote", PEEK: "偷看 Peek", SWAP: "换牌 Swap",
    ADD: "加牌 Add", EFFECT: "特效 Effect", RESHUFFLE: "重新洗牌 Reshuffle",
  };

  // A game's overlay renderer registers itself; this page reads only its effectNames.
  const renderers = {};
  const asked = new Set();
  window.ArenaOverlay = { register(name, renderer) { renderers[name] = renderer; } };

  /** Load the renderer of the featured table's game once; relabel when it is in. */
  function useGame(game) {
    if (!game || !game.script || asked.has(game.name)) return;
    asked.add(game.name);
    const script = document.createElement("script");
    script.src = game.script;
    script.onload = () => { if (lastState) fillEffects(lastState); };
    document.head.appendChild(script);
  }

  function effectLabel(effect, st) {
    if (EFFECT_LABELS[effect]) return EFFECT_LABELS[effect];
    const renderer = st && st.game ? renderers[st.game.name] : null;
    const names = renderer && renderer.effectNames ? renderer.effectNames : {};
    const label = [names.zh && names.zh[effect], names.en && names.en[effect]].filter(Boolean).join(" ");
    return label || effect;
  }

  function fillEffects(st) {
    fillSelect($("gift-effect"), st.effects || [], undefined, (e) => effectLabel(e, st));
  }

  /** No target, or one of the featured table's seats, by its player's name (the value,
   *  what the API takes, stays the seat's number). */
  function fillTargets(seats, players) {
    const names = Array.isArray(players) ? players : [];
    const count = typeof seats === "number" ? seats : names.length;
    const values = ["", ...Array.from({ length: count }, (_, i) => String(i))];
    fillSelect($("gift-target"), values, undefined, (v) => {
      if (v === "") return "无 None";
      const name = names[Number(v)];
      // as text (an <option>'s textContent): a name is whatever the agent calls itself
      return typeof name === "string" && name ? `${name} (座位 Seat ${Number(v) + 1})` : `座位 Seat ${Number(v) + 1}`;
    });
  }

  /** The preview: the overlay itself (same origin), in a frame scaled to the page's
   *  width; it follows the featured table as any overlay does. */
  function setPreview() {
    const frame = $("preview");
    const layout = $("preview-layout").value === "portrait" ? "portrait" : "landscape";
    // silent: the streamer hears the stream's own overlay, not a second one here
    // preview=1: the preview is no overlay coming up, so it starts no match (--wait-for-start)
    const src = `/overlay?${layout === "portrait" ? "layout=portrait&" : ""}sound=0&preview=1`;
    frame.closest(".preview-box").dataset.layout = layout;
    if (frame.getAttribute("src") !== src) frame.setAttribute("src", src);
  }

  function showState(st) {
    const first = lastState === null;
    lastState = st;
    const lines = [
      `模式 mode: ${st.mode}`,
      `比赛 match: ${st.match}`,
      `暂停 paused: ${st.paused}${st.pause_requested ? " (本局后暂停 pause requested)" : ""}`,
      `主桌 featured: ${st.featured === null ? "–" : st.featured}`,
      `桌 tables: ${(st.tables || []).join(", ") || "–"}`,
      `礼物 gifts: ${st.gifts ? "开 on" : "关 off"}`,
      `可开始 can start: ${st.can_start}`,
    ];
    if (st.last_error) lines.push(`上一场未能开始 last match could not start: ${st.last_error}`);
    // the sinks that keep failing (the overlay, the board, the MQTT feed): still fed;
    // a feed that cannot deliver (its worker gone, its broker away) says why
    (st.degraded || []).forEach((d) => lines.push(`信号异常 degraded: ${d.sink}: ` + (
      d.during === "deliver"
        ? d.last_error
        : `${d.failures} × ${d.last_error} (${d.during})`)));
    $("control-state").textContent = lines.join("\n");
    // Keep the featured pick the user is editing; set it from the server the first time.
    fillSelect($("featured"), st.tables || [], first ? st.featured : undefined);
    useGame(st.game);
    fillEffects(st);
    fillTargets(st.seats, st.players);
    // Buttons stay enabled: the server says why an action does not apply right now.
    $("start").classList.toggle("dim", st.can_start === false);
  }

  async function refresh() {
    try {
      const res = await api("GET", "state");
      if (refused(res)) return false;
      if (res.status !== 200 || !res.body) {
        const why = res.body && res.body.error ? res.body.error : `HTTP ${res.status}`;
        setAuth("error", `错误 Error: ${why}`);
        return false;
      }
      setAuth("ok", "已登录 Logged in ✓");
      showState(res.body);
      return true;
    } catch (err) {
      setAuth("error", `无法连接服务器 / Cannot reach the server: ${err.message}`);
      return false;
    }
  }

  function startRefresh() {
    stopRefresh();
    refreshTimer = setInterval(refresh, 2000);
  }

  function stopRefresh() {
    if (refreshTimer !== null) clearInterval(refreshTimer);
    refreshTimer = null;
  }

  // ---------- actions ----------

  async function post(path, body) {
    if (!token()) {
      showResult("请先登录 / Log in first", true);
      return;
    }
    try {
      const res = await api("POST", path, body === undefined ? {} : body);
      if (refused(res)) {
        showResult($("auth-status").textContent, true);
        return;
      }
      if (res.status >= 200 && res.status < 300 && res.body && res.body.ok) {
        showResult(`✓ ${res.body.said || "ok"}`, false);
      } else {
        const why = res.body && res.body.error ? res.body.error : `HTTP ${res.status}`;
        showResult(`✗ ${why}`, true);
      }
    } catch (err) {
      showResult(`✗ 无法连接服务器 / Cannot reach the server: ${err.message}`, true);
    }
    refresh();
  }

  function giftBody() {
    const target = $("gift-target").value;
    const viewer = $("gift-viewer").value.trim();
    const message = $("gift-message").value.trim();
    return {
      effect: $("gift-effect").value,
      // The test gift goes to the table on stream now (null: the server picks the featured one).
      table: (lastState && lastState.featured) || null,
      target: target === "" ? null : Number(target),
      viewer: viewer || null,
      message: message || null,
    };
  }

  async function login(ev) {
    if (ev) ev.preventDefault();
    const value = $("token").value.trim();
    if (!value) {
      setAuth("error", "请输入令牌 / Enter the token");
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, value);
    if (await refresh()) startRefresh();
  }

  function logout() {
    sessionStorage.removeItem(TOKEN_KEY);
    $("token").value = "";
    stopRefresh();
    lastState = null;
    setAuth("none", "未登录 Not logged in");
    $("control-state").textContent = "";
  }

  function init() {
    $("login-form").addEventListener("submit", login);
    $("logout").addEventListener("click", logout);
    $("start").addEventListener("click", () => post("start"));
    $("pause").addEventListener("click", () => post("pause"));
    $("resume").addEventListener("click", () => post("resume"));
    $("feature").addEventListener("click", () => post("feature", { table: $("featured").value || null }));
    $("gift-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      post("gift", giftBody());
    });
    $("preview-layout").addEventListener("change", setPreview);
    setPreview();
    takeTokenFromFragment();
    // A token from the link, or from earlier in this tab: log straight in.
    $("token").value = token();
    if (token()) refresh().then((ok) => { if (ok) startRefresh(); });
  }

  init();
})();
