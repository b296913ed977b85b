// The page of play.py --web: draws the state the server sends and sends the person's moves.
// The server keeps the game (by an id this tab holds in sessionStorage) and checks every
// move; the page only offers the legal ones and shows the bots' moves one by one.
"use strict";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "koikoi-game-id";
const params = new URLSearchParams(location.search);
let CARDS = [], BACK_PICTURE = "", KINDS = [], YAKU_NAMES = {}, OPTIONS = null;
let game = null;  // the latest state from the server
let frame = 0;  // a replay's position

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function delaySeconds() {
  // ?delay=SECONDS overrides the server's --bot-delay (0: no pause between moves).
  const asked = parseFloat(params.get("delay"));
  return Number.isFinite(asked) && asked >= 0 ? asked : OPTIONS.bot_delay;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function setState(state) { $("board").dataset.state = state; }

function showError(error) { $("error").textContent = error ? String(error.message || error) : ""; }

function cardEl(id, action) {
  const div = document.createElement("div");
  div.className = "card";
  // The server's picture of the card (card_art.py); its full name shows on hover.
  const picture = document.createElement("img");
  picture.src = id === null ? BACK_PICTURE : CARDS[id].picture;
  picture.alt = div.title = id === null ? "a hidden card" : CARDS[id].title;
  picture.draggable = false;
  div.append(picture);
  div.dataset.card = id === null ? "back" : String(id);
  if (action !== undefined && action !== null) {
    div.classList.add("legal");
    div.dataset.action = String(action);
    div.tabIndex = 0;
    div.addEventListener("click", () => move(action));
    div.addEventListener("keydown", (e) => { if (e.key === "Enter") move(action); });
  }
  return div;
}

function seatName(state, seat) {
  return state.names[seat] + (state.human === null ? "" : ` (player_${seat})`);
}

function yakuName(id) { return YAKU_NAMES[id] || id; }

function yakuText(yaku) {
  const parts = Object.entries(yaku).map(([name, points]) => `${yakuName(name)} ${points}`);
  return parts.length ? parts.join(", ") : "none";
}

function drawSeat(area, state, board, seat, legal) {
  const info = board.seats[seat];
  const label = area.querySelector(".seat-label");
  label.innerHTML = "";
  const name = document.createElement("span");
  name.textContent = seatName(state, seat);
  label.append(name);
  const notes = [];
  if (board.dealer === seat) notes.push("dealer");
  if (info.koikoi_calls) notes.push(`koi-koi ×${info.koikoi_calls}`);
  if (notes.length) label.append(` · ${notes.join(" · ")}`);
  if (board.mover === seat) {
    const mark = document.createElement("span");
    mark.className = "to-move";
    mark.textContent = " · to move";
    label.append(mark);
  }
  const hand = area.querySelector(".hand");
  hand.innerHTML = "";
  hand.dataset.seat = String(seat);
  if (info.hand === null) {
    for (let k = 0; k < info.hand_count; k++) hand.append(cardEl(null));
  } else {
    for (const card of info.hand) {
      const el = cardEl(card, legal.get(card));
      if (legal.size && !legal.has(card)) el.classList.add("disabled");
      hand.append(el);
    }
  }
  const pile = area.querySelector(".pile");
  pile.innerHTML = "";
  pile.dataset.seat = String(seat);
  for (const kind of KINDS) {
    const cards = info.pile[kind];
    if (!cards.length) continue;
    const group = document.createElement("div");
    group.className = "group";
    group.dataset.kind = kind;
    const head = document.createElement("div");
    head.className = "kind";
    head.textContent = `${kind} ${cards.length}`;
    const stack = document.createElement("div");
    stack.className = "stack";
    for (const card of cards) stack.append(cardEl(card));
    group.append(head, stack);
    pile.append(group);
  }
  const yaku = document.createElement("div");
  yaku.className = "yaku-line";
  yaku.textContent = `yaku: ${yakuText(info.yaku)} (total ${info.yaku_total})`;
  pile.append(yaku);
}

function drawBoard(state, board, legalMoves) {
  // legalMoves: [{action, name}] of the person; cards to play (0-47), field cards (48-95)
  const play = new Map(), take = new Map();
  for (const { action } of legalMoves) {
    if (action < 48) play.set(action, action);
    else if (action < 96) take.set(action - 48, action);
  }
  const near = state.human === null ? 0 : state.human;
  drawSeat($("far"), state, board, 1 - near, new Map());
  drawSeat($("near"), state, board, near, play);
  const field = $("field");
  field.innerHTML = "";
  for (const card of board.field) {
    const el = cardEl(card, take.get(card));
    if (take.size && !take.has(card)) el.classList.add("disabled");
    field.append(el);
  }
  const stock = $("stock");
  stock.innerHTML = "";
  if (board.stock) stock.append(cardEl(null));
  const count = document.createElement("div");
  count.className = "count";
  count.id = "stock-count";
  count.textContent = `${board.stock} left`;
  stock.append(count);
  $("pending").innerHTML = "";
  $("pending-area").hidden = board.pending === null;
  if (board.pending !== null) $("pending").append(cardEl(board.pending));
  const score = board.score.map((points, seat) => `${state.names[seat]} ${points}`).join(" : ");
  const round = board.phase === "match-over" ? "match over" :
    `round ${board.round}/${board.rounds}${board.phase === "round-over" ? " over" : ""}`;
  $("status").textContent = `${state.rules} · ${round} · score ${score} · stock ${board.stock}`;
}

function log(text) {
  const item = document.createElement("li");
  item.textContent = text;
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

function textEl(tag, text, id) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (id) el.id = id;
  return el;
}

function resultNodes(state, row) {
  // Nodes with text, never HTML: the names come from a request or a game record.
  const name = row.winner < 0 ? "Nobody" : state.names[row.winner];
  const who = name.charAt(0).toUpperCase() + name.slice(1);
  const head = textEl("h3", `Round ${row.round}: ${who} ${row.winner < 0 ? "wins" : "won"} `);
  head.append(textEl("span", String(row.points), "result-points"),
    ` point${row.points === 1 ? "" : "s"}`);
  const nodes = [head, textEl("p", `how it ended: ${row.reason}`)];
  if (row.yaku.length) {
    const table = textEl("table", "", "result-yaku");
    for (const y of row.yaku) {
      const line = table.insertRow();
      line.insertCell().textContent = yakuName(y.name);
      line.insertCell().textContent = String(y.points);
    }
    nodes.push(table);
  } else {
    nodes.push(textEl("p", "no yaku"));
  }
  const calls = row.koikoi_calls.map((n, seat) => `${state.names[seat]} ${n}`).join(", ");
  nodes.push(textEl("p", `base ${row.base} × multiplier ${row.multiplier} = ${row.points}`),
    textEl("p", `koi-koi calls: ${calls}`));
  return nodes;
}

function drawResult(state, row, board) {
  const box = $("result");
  box.hidden = !row;
  if (!row) return;
  box.replaceChildren(...resultNodes(state, row));
  const score = board.score.map((points, seat) => `${state.names[seat]} ${points}`).join(" : ");
  const line = document.createElement("p");
  line.textContent = `match score: ${score}`;
  box.append(line);
  if (state.kind === "replay") return;
  if (board.phase === "match-over") {
    const [a, b] = state.match.scores;
    const winner = state.names[state.match.winner];
    const verdict = state.match.winner < 0 ? "A draw." :
      winner === "you" ? "You win the match!" :
        `${winner.charAt(0).toUpperCase()}${winner.slice(1)} wins the match.`;
    const rounds = `${state.match.rounds} round${state.match.rounds === 1 ? "" : "s"}`;
    const end = document.createElement("p");
    end.id = "match-over";
    end.textContent = `Match over after ${rounds} (${a} : ${b}). ${verdict}`;
    box.append(end);
  } else {
    const next = document.createElement("button");
    next.id = "next-round";
    next.textContent = "Next round";
    next.addEventListener("click", nextRound);
    box.append(next);
  }
}

function drawGame(state) {
  const board = state.board;
  drawBoard(state, board, state.legal);
  const over = board.phase === "round-over" || board.phase === "match-over";
  drawResult(state, over ? state.rounds[state.rounds.length - 1] : null, board);
  $("decide").hidden = state.prompt !== "decide";
  const prompts = {
    play: "Your turn: click a highlighted card in your hand to play it.",
    choose: "Your card matches two field cards: click the one to take.",
    decide: "Koi-koi or stop?",
  };
  $("prompt").textContent = prompts[state.prompt] || (over ? "" : "The bot is thinking…");
  $("prompt").dataset.prompt = state.prompt || "";
  setState(over ? board.phase : state.prompt === "play" ? "move" : state.prompt || "busy");
}

async function show(state, animate) {
  game = state;
  $("setup").hidden = true;
  $("game").hidden = false;
  $("replay-controls").hidden = state.kind !== "replay";
  if (state.kind === "replay") {
    $("decide").hidden = true;
    $("prompt").textContent = "";
    drawFrame();
    return;
  }
  if (animate) {
    setState("busy");
    $("result").hidden = true;
    $("decide").hidden = true;
    const delay = delaySeconds() * 1000;
    for (const event of state.events) {
      if (event.seat !== null && event.seat !== state.human && delay > 0) {
        $("prompt").textContent = `${state.names[event.seat]} moves…`;
        await sleep(delay);
      }
      drawBoard(state, event.board, []);
      log(event.text);
    }
  } else {
    $("log").innerHTML = "";
  }
  drawGame(state);
}

async function request(method, path, body) {
  if ($("board").dataset.state === "busy") return;
  setState("busy");
  showError(null);
  try {
    await show(await api(method, path, body), true);
  } catch (error) {
    if (error.status === 404) return lost(error);
    showError(error);
    if (game) drawGame(game);
  }
}

function move(action) { return request("POST", `/api/games/${game.id}/move`, { action }); }

function nextRound() { return request("POST", `/api/games/${game.id}/next`, {}); }

function lost(error) {
  sessionStorage.removeItem(STORE_KEY);
  game = null;
  $("game").hidden = true;
  $("setup").hidden = false;
  $("setup-error").textContent = error.message;
}

function drawFrame() {
  const frames = game.frames;
  const current = frames[frame];
  drawBoard(game, current.board, []);
  drawResult(game, current.result, current.board);
  $("frame-info").textContent = `position ${frame + 1} of ${frames.length}: ${current.text}`;
  $("first").disabled = $("back").disabled = frame === 0;
  $("last").disabled = $("forward").disabled = frame === frames.length - 1;
  $("log").innerHTML = "";
  frames.slice(Math.max(0, frame - 30), frame + 1).forEach((f) => log(f.text));
  setState("replay");
}

function goTo(position) {
  frame = Math.max(0, Math.min(game.frames.length - 1, position));
  drawFrame();
}

function setupMode() {
  const mode = $("mode").value;
  for (const el of document.querySelectorAll("#setup-form label[class]")) {
    el.hidden = !el.classList.contains(`for-${mode}`);
  }
}

function numberOrNull(input) { return input.value === "" ? null : Number(input.value); }

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  $("log").innerHTML = "";
  const mode = $("mode").value;
  try {
    let state;
    if (mode === "replay") {
      const file = $("record-file").files[0];
      if (!file) throw new Error("choose a record file first");
      let record;
      try { record = JSON.parse(await file.text()); } catch (e) { throw new Error(`${file.name} is not JSON: ${e.message}`); }
      state = await api("POST", "/api/replays", { record });
      frame = 0;
    } else {
      const body = { mode, rules: $("rules").value, rounds: numberOrNull($("rounds")),
                     seed: numberOrNull($("seed")) };
      if (mode === "play") Object.assign(body, { bot: $("bot").value, seat: Number($("seat").value) });
      else body.bots = [$("bot0").value, $("bot1").value];
      state = await api("POST", "/api/games", body);
    }
    sessionStorage.setItem(STORE_KEY, state.id);
    await show(state, true);
  } catch (error) {
    $("setup-error").textContent = error.message;
  }
}

function newGame() {
  sessionStorage.removeItem(STORE_KEY);
  game = null;
  showError(null);
  $("game").hidden = true;
  $("setup").hidden = false;
  $("status").textContent = "";
}

function fill(select, values, chosen) {
  select.innerHTML = "";
  for (const value of values) {
    const option = document.createElement("option");
    option.value = option.textContent = value;
    option.selected = value === chosen;
    select.append(option);
  }
}

async function main() {
  let table;
  [OPTIONS, table] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/cards")]);
  ({ cards: CARDS, back_picture: BACK_PICTURE, kinds: KINDS, yaku_names: YAKU_NAMES } = table);
  for (const card of CARDS) new Image().src = card.picture;  // fetched once, before a board
  for (const id of ["bot", "bot0", "bot1"]) fill($(id), OPTIONS.bots, OPTIONS.bot);
  fill($("rules"), OPTIONS.rules, OPTIONS.default_rules);
  $("seat").value = String(OPTIONS.seat);
  if (OPTIONS.rounds !== null) $("rounds").value = OPTIONS.rounds;
  if (OPTIONS.seed !== null) $("seed").value = OPTIONS.seed;
  $("rounds").max = OPTIONS.max_rounds;
  $("mode").addEventListener("change", setupMode);
  $("setup-form").addEventListener("submit", start);
  $("koikoi").addEventListener("click", () => move(game.decision_ids.koikoi));
  $("stop").addEventListener("click", () => move(game.decision_ids.stop));
  $("new-game").addEventListener("click", newGame);
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => goTo(frame - 1));
  $("forward").addEventListener("click", () => goTo(frame + 1));
  $("last").addEventListener("click", () => goTo(game.frames.length - 1));
  setupMode();
  const id = sessionStorage.getItem(STORE_KEY);
  if (id) {
    try { await show(await api("GET", `/api/games/${id}`), false); } catch (error) { lost(error); }
  }
  document.body.dataset.ready = "1";
}

main();
