// The board editor's model of each game: read the position text into a plain state, change it
// with a palette tool clicked on a cell (the board renderers mark cells with data-cell), and
// write it back as text the way the game module writes it.  Whether the rules allow the
// position is not decided here: the page asks the server, which answers in tbdb's own words.
//
// An editor: parse(text) -> state (throws on text it cannot read), format(state) -> text,
// tools(state) -> [{tool, label, title}], apply(state, cell, tool) -> state, clear(state),
// sides(state) -> [{side, label}] with side(state) / setSide(state, side), and optionally
// extras(state) -> [{name, label, choices: [[value, label]], value}] with setExtra(state, name,
// value), startOptions(state) -> the options of the start position the server writes
// (/api/GAME/start; a game without one has hasStart false); and, for dragging a piece from
// one cell to another or off the board, get(state, cell) -> what is there ("" for nothing)
// and put(state, cell, what) -> state; actions(state) -> [{name, label}] buttons with act(state, name) -> state; solo(state): one
// player alone (no side to play against the tablebase); players(state) -> [the side to move,
// the other] as "play as ..." names them, where the sides have no control of their own.
import { label as cdcLabel, NAMES as CDC_NAMES } from "./boards/cdc.js";
import { GLYPHS as CHESS_GLYPHS, NAMES as CHESS_NAMES } from "./boards/chess.js";
import { KANJI } from "./boards/shogi.js";
import { hasCJK } from "./boards/glyphs.js";

const copy = x => JSON.parse(JSON.stringify(x));
const ERASE = { tool: "erase", label: "✕", title: "empty the square" };

// ---------------------------------------------------------------- Chinese Dark Chess
const cdc = {
  parse(text) {
    const [ranks, side] = text.trim().split(/\s+/);
    const rows = (ranks || "").split("/");
    if (rows.length !== 4 || !/^[rb]$/.test(side || "")) throw new Error("not a CDC position");
    const board = rows.map(row => {
      const out = [];
      for (const ch of row) {
        if (/[1-8]/.test(ch)) for (let k = 0; k < Number(ch); k++) out.push("");
        else out.push(ch);
      }
      if (out.length !== 8) throw new Error("a rank of 8 squares");
      return out;
    });
    return { board, side };
  },
  format(state) {
    const ranks = state.board.map(row => {
      let out = "", empty = 0;
      for (const ch of row) {
        if (!ch) { empty++; continue; }
        if (empty) { out += empty; empty = 0; }
        out += ch;
      }
      return out + (empty ? empty : "");
    });
    return `${ranks.join("/")} ${state.side}`;
  },
  tools(view) {
    return [..."KGMRNCPkgmrncp"].map(ch => ({
      tool: ch, label: cdcLabel(ch, view),
      title: `${ch === ch.toUpperCase() ? "red" : "black"} ${CDC_NAMES[ch.toUpperCase()]} (${ch})`,
      colour: ch === ch.toUpperCase() ? "red" : "black" })).concat([ERASE]);
  },
  apply(state, cell, tool) {
    const m = /^([a-h])([1-4])$/.exec(cell);
    if (!m) return state;
    const s = copy(state), f = m[1].charCodeAt(0) - 97, r = 4 - Number(m[2]);
    s.board[r][f] = tool === "erase" || s.board[r][f] === tool ? "" : tool;
    return s;
  },
  get(state, cell) {
    const m = /^([a-h])([1-4])$/.exec(cell);
    return m ? state.board[4 - Number(m[2])][m[1].charCodeAt(0) - 97] : "";
  },
  put(state, cell, what) {
    const m = /^([a-h])([1-4])$/.exec(cell);
    if (!m) return state;
    const s = copy(state);
    s.board[4 - Number(m[2])][m[1].charCodeAt(0) - 97] = what;
    return s;
  },
  clear(state) { return { board: [0, 1, 2, 3].map(() => Array(8).fill("")), side: state.side }; },
  hasStart: false,  // endgames only
  sides: () => [{ side: "r", label: "red" }, { side: "b", label: "black" }],
  side: s => s.side,
  setSide: (s, side) => ({ ...copy(s), side }),
};

// ---------------------------------------------------------------- Chess
// A FEN's six fields; castling is always "-" (tables have none).  An edit drops the en passant
// square (the last move was no longer a double step) and keeps the move counters.
function chessSquare(cell) {
  const m = /^([a-h])([1-8])$/.exec(cell);
  return m ? [8 - Number(m[2]), m[1].charCodeAt(0) - 97] : null;
}
const chess = {
  parse(text) {
    const [ranks, side, castling, ep, half = "0", full = "1", ...rest] = text.trim().split(/\s+/);
    const rows = (ranks || "").split("/");
    if (rows.length !== 8 || !/^[wb]$/.test(side || "") || !castling || !ep || rest.length)
      throw new Error("not a FEN");
    const board = rows.map(row => {
      const out = [];
      for (const ch of row) {
        if (/[1-8]/.test(ch)) for (let k = 0; k < Number(ch); k++) out.push("");
        else if (/^[KQRBNPkqrbnp]$/.test(ch)) out.push(ch);
        else throw new Error(`no piece ${ch}`);
      }
      if (out.length !== 8) throw new Error("a rank of 8 squares");
      return out;
    });
    return { board, side, ep, half, full };
  },
  format(state) {
    const ranks = state.board.map(row => {
      let out = "", empty = 0;
      for (const ch of row) {
        if (!ch) { empty++; continue; }
        if (empty) { out += empty; empty = 0; }
        out += ch;
      }
      return out + (empty ? empty : "");
    });
    return `${ranks.join("/")} ${state.side} - ${state.ep} ${state.half} ${state.full}`;
  },
  tools() {
    return [..."KQRBNPkqrbnp"].map(ch => ({
      tool: ch, label: CHESS_GLYPHS[ch.toUpperCase()],
      title: `${ch === ch.toUpperCase() ? "white" : "black"} ${CHESS_NAMES[ch.toUpperCase()]} (${ch})`,
      colour: ch === ch.toUpperCase() ? "chess-white" : "chess-black" })).concat([ERASE]);
  },
  apply(state, cell, tool) {
    const at = chessSquare(cell);
    if (!at) return state;
    const s = copy(state), [r, f] = at;
    s.board[r][f] = tool === "erase" || s.board[r][f] === tool ? "" : tool;
    s.ep = "-";
    return s;
  },
  get(state, cell) {
    const at = chessSquare(cell);
    return at ? state.board[at[0]][at[1]] : "";
  },
  put(state, cell, what) {
    const at = chessSquare(cell);
    if (!at) return state;
    const s = copy(state);
    s.board[at[0]][at[1]] = what;
    s.ep = "-";
    return s;
  },
  clear(state) {
    return { board: [...Array(8).keys()].map(() => Array(8).fill("")), side: state.side, ep: "-",
      half: state.half, full: state.full };
  },
  hasStart: false,  // endgames only
  sides: () => [{ side: "w", label: "white" }, { side: "b", label: "black" }],
  side: s => s.side,
  setSide: (s, side) => ({ ...copy(s), side, ep: "-" }),
};

// ---------------------------------------------------------------- Shogi
const HAND_KINDS = "RBGSNLP";
const PROMOTES = "RBSNLP";
const shogi = {
  parse(text) {
    const [ranks, side, hands] = text.trim().split(/\s+/);
    const rows = (ranks || "").split("/");
    if (rows.length !== 9 || !/^[bw]$/.test(side || "")) throw new Error("not an SFEN");
    const board = rows.map(row => {
      const out = [];
      for (let i = 0; i < row.length; i++) {
        const ch = row[i];
        if (/[1-9]/.test(ch)) { for (let k = 0; k < Number(ch); k++) out.push(""); continue; }
        out.push(ch === "+" ? "+" + row[++i] : ch);
      }
      if (out.length !== 9) throw new Error("a rank of 9 squares");
      return out;
    });
    const held = { b: {}, w: {} };
    for (const [, n, letter] of (hands && hands !== "-" ? hands : "").matchAll(/(\d*)([A-Za-z])/g)) {
      const who = letter === letter.toUpperCase() ? "b" : "w";
      held[who][letter.toUpperCase()] = Number(n || 1);
    }
    return { board, side, held };
  },
  format(state) {
    const ranks = state.board.map(row => {
      let out = "", empty = 0;
      for (const p of row) {
        if (!p) { empty++; continue; }
        if (empty) { out += empty; empty = 0; }
        out += p;
      }
      return out + (empty ? empty : "");
    });
    let hands = "";
    for (const who of ["b", "w"]) {
      for (const k of HAND_KINDS) {
        const n = state.held[who][k] || 0;
        if (n) hands += (n > 1 ? n : "") + (who === "b" ? k : k.toLowerCase());
      }
    }
    return `${ranks.join("/")} ${state.side} ${hands || "-"} 1`;
  },
  tools(view) {
    const out = [];
    for (const black of [true, false]) {
      for (const k of ["K", ...HAND_KINDS, ...[...PROMOTES].map(p => "+" + p)]) {
        const piece = black ? k : k.toLowerCase();
        out.push({ tool: piece, label: view.letters || !hasCJK() ? k : KANJI[k], colour: black ? "black" : "white",
          title: `${black ? "black (sente)" : "white (gote)"} ${k}` });
      }
    }
    return out.concat([{ tool: "promote", label: view.letters || !hasCJK() ? "+/-" : "成", title: "promote or unpromote the piece clicked" },
      { tool: "erase", label: "✕", title: "empty the square; in a hand: one piece less" }]);
  },
  apply(state, cell, tool) {
    const s = copy(state);
    const hand = /^hand-([bw])-([RBGSNLP])$/.exec(cell);
    if (hand) {   // a click on a hand: one more of that kind (the erase tool: one less)
      const [, who, k] = hand, n = s.held[who][k] || 0;
      s.held[who][k] = Math.max(0, n + (tool === "erase" ? -1 : 1));
      return s;
    }
    const m = /^([1-9])([a-i])$/.exec(cell);
    if (!m) return state;
    const f = 9 - Number(m[1]), r = m[2].charCodeAt(0) - 97, here = s.board[r][f];
    if (tool === "promote") {
      if (!here) return state;
      const base = here.replace("+", "");
      if (here.startsWith("+")) s.board[r][f] = base;
      else if (PROMOTES.includes(base.toUpperCase())) s.board[r][f] = "+" + base;
      return s;
    }
    s.board[r][f] = tool === "erase" || here === tool ? "" : tool;
    return s;
  },
  get(state, cell) {
    const m = /^([1-9])([a-i])$/.exec(cell);
    return m ? state.board[m[2].charCodeAt(0) - 97][9 - Number(m[1])] : "";
  },
  put(state, cell, what) {
    const m = /^([1-9])([a-i])$/.exec(cell);
    if (!m) return state;
    const s = copy(state);
    s.board[m[2].charCodeAt(0) - 97][9 - Number(m[1])] = what;
    return s;
  },
  clear(state) { return { board: Array.from({ length: 9 }, () => Array(9).fill("")), side: state.side, held: { b: {}, w: {} } }; },
  sides: () => [{ side: "b", label: "black (sente)" }, { side: "w", label: "white (gote)" }],
  side: s => s.side,
  setSide: (s, side) => ({ ...copy(s), side }),
};

// ---------------------------------------------------------------- Oware
const oware = {
  parse(text) {
    const houses = text.trim().split(/\s+/).map(Number);
    if (houses.length !== 12 || houses.some(n => !Number.isInteger(n) || n < 0)) throw new Error("twelve counts");
    return { houses };
  },
  format: s => s.houses.join(" "),
  tools: () => [{ tool: "plus", label: "+", title: "one seed more in the house clicked" },
    { tool: "minus", label: "−", title: "one seed less" }, { tool: "erase", label: "0", title: "empty the house" }],
  apply(state, cell, tool) {
    const m = /^h(\d+)$/.exec(cell);
    if (!m) return state;
    const s = copy(state), i = Number(m[1]);
    s.houses[i] = tool === "erase" ? 0 : Math.max(0, s.houses[i] + (tool === "minus" ? -1 : 1));
    return s;
  },
  clear: () => ({ houses: Array(12).fill(0) }),
  // the text is always from the mover's view (bottom row, houses 0-5): the other player to
  // move is the rows swapped
  sides: () => [],
  actions: () => [{ name: "swap", label: "Swap the rows (the other player to move)" }],
  act: s => ({ houses: [...s.houses.slice(6), ...s.houses.slice(0, 6)] }),
  players: () => ["the player to move (bottom row)", "the other player (top row)"],
};

// ---------------------------------------------------------------- Tic-tac-toe
const MARKS = [{ tool: "x", label: "x", title: "an x" }, { tool: "o", label: "o", title: "an o" }];
const tictactoe = {
  parse(text) {
    const cells = text.trim();
    if (!/^[xo.]{9}$/.test(cells)) throw new Error("nine cells");
    return { cells: [...cells] };
  },
  format: s => s.cells.join(""),
  tools: () => [...MARKS, ERASE],
  apply(state, cell, tool) {
    if (!/^[0-8]$/.test(cell)) return state;
    const s = copy(state), i = Number(cell);
    s.cells[i] = tool === "erase" || s.cells[i] === tool ? "." : tool;
    return s;
  },
  get: (state, cell) => /^[0-8]$/.test(cell) && state.cells[Number(cell)] !== "." ? state.cells[Number(cell)] : "",
  put(state, cell, what) {
    if (!/^[0-8]$/.test(cell)) return state;
    const s = copy(state);
    s.cells[Number(cell)] = what || ".";
    return s;
  },
  clear: () => ({ cells: Array(9).fill(".") }),
  // x moves first: the side to move follows from the marks
  sides: () => [],
  players: s => s.cells.filter(c => c === "x").length > s.cells.filter(c => c === "o").length
    ? ["o", "x"] : ["x", "o"],
};

// ---------------------------------------------------------------- Ultimate Tic-Tac-Toe
const uttt = {
  parse(text) {
    const [cells, side, constraint] = text.trim().split(/\s+/);
    if (!/^[xoXOD.]{81}$/.test(cells || "") || !/^[xo]$/.test(side || "") || !/^[-0-8]$/.test(constraint || "")) {
      throw new Error("not a UTTT position");
    }
    return { cells: [...cells], side, constraint };
  },
  format: s => `${s.cells.join("")} ${s.side} ${s.constraint}`,
  tools: () => [...MARKS, ERASE, { tool: "target", label: "▣", title: "the small board to play in (again: any board)" }],
  apply(state, cell, tool) {
    const m = /^([0-8]):([0-8])$/.exec(cell);
    if (!m) return state;
    const s = copy(state), b = Number(m[1]), i = 9 * b + Number(m[2]);
    if (tool === "target") {
      s.constraint = s.constraint === String(b) ? "-" : String(b);
      return s;
    }
    // a board written by its status alone (XXXXXXXXX) is opened up cell by cell first
    if (/[XOD]/.test(s.cells[i])) for (let k = 9 * b; k < 9 * b + 9; k++) s.cells[k] = ".";
    s.cells[i] = tool === "erase" || s.cells[i] === tool ? "." : tool;
    return s;
  },
  get(state, cell) {
    const m = /^([0-8]):([0-8])$/.exec(cell);
    const ch = m ? state.cells[9 * Number(m[1]) + Number(m[2])] : ".";
    return ch === "x" || ch === "o" ? ch : "";
  },
  put(state, cell, what) {
    const m = /^([0-8]):([0-8])$/.exec(cell);
    if (!m) return state;
    const s = copy(state), b = Number(m[1]), i = 9 * b + Number(m[2]);
    if (/[XOD]/.test(s.cells[i])) for (let k = 9 * b; k < 9 * b + 9; k++) s.cells[k] = ".";
    s.cells[i] = what || ".";
    return s;
  },
  clear: s => ({ cells: Array(81).fill("."), side: s.side, constraint: "-" }),
  sides: () => [{ side: "x", label: "x" }, { side: "o", label: "o" }],
  side: s => s.side,
  setSide: (s, side) => ({ ...copy(s), side }),
  extras: s => [{ name: "constraint", label: "play in", value: s.constraint,
    choices: [["-", "any open board"], ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map(b => [String(b), `board ${b}`])] }],
  setExtra: (s, name, value) => ({ ...copy(s), constraint: value }),
};

// ---------------------------------------------------------------- Chinese Checkers
const STAR_ROWS = [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1];
function rhombusRows(m) { return [...Array(2 * m - 1).keys()].map(r => r < m ? r + 1 : 2 * m - 1 - r); }
// a small star of size k (13, 37, 73 holes): its top point's rows, the hexagon's with the side
// points, the bottom point's
function smallStarRows(k) {
  const top = [...Array(k).keys()].map(r => r + 1);
  const middle = [...Array(2 * k + 1).keys()].map(r => 2 * k + 1 + Math.abs(k - r));
  return [...top, ...middle, ...top.slice().reverse()];
}
const SMALL_STAR = /^star(13|37|73)-(\d)$/;  // kind "star37-3": the 37-hole star, 3 players
function rowsOf(kind) {
  const small = SMALL_STAR.exec(kind);
  if (small) return smallStarRows({ 13: 1, 37: 2, 73: 3 }[small[1]]);
  return kind.startsWith("star") ? STAR_ROWS : rhombusRows(Number(kind.slice(8)));
}
const playersOf = kind => kind === "star-distance" ? 1 : SMALL_STAR.test(kind)
  ? Number(SMALL_STAR.exec(kind)[2]) : kind.startsWith("star-") ? Number(kind.slice(5)) : 2;
const chineseCheckers = {
  // kind: "rhombus-M", "star-N" (N players), "starH-N" (a small star of H holes) or
  // "star-distance" (one player and its goal point)
  parse(text) {
    const [head, rows, last] = text.trim().split(/\s+/);
    let kind, players;
    let m;
    if ((m = /^(\d+)x\d+-\d+$/.exec(head || ""))) { kind = `rhombus-${m[1]}`; players = 2; }
    else if (/^star-distance-\d+$/.test(head || "")) { kind = "star-distance"; players = 1; }
    else if ((m = /^star-(\d)$/.exec(head || ""))) { kind = `star-${m[1]}`; players = Number(m[1]); }
    else if (SMALL_STAR.test(head || "")) { kind = head; players = playersOf(head); }
    else throw new Error("not a Chinese Checkers position");
    const cells = [...(rows || "").replaceAll("/", "")];
    if (cells.length !== rowsOf(kind).reduce((a, b) => a + b, 0)) throw new Error("wrong shape");
    return { kind, players, cells, last: last || "1" };
  },
  format(s) {
    const ones = s.cells.filter(c => c === "1").length;
    const head = s.kind.startsWith("rhombus") ? `${s.kind.slice(8)}x${s.kind.slice(8)}-${ones}`
      : s.kind === "star-distance" ? `star-distance-${ones}` : s.kind;
    let at = 0;
    const rows = rowsOf(s.kind).map(n => s.cells.slice(at, at += n).join(""));
    return `${head} ${rows.join("/")} ${s.last}`;
  },
  tools(view, s) {
    const out = [];
    for (let p = 1; p <= (s ? s.players : 2); p++) out.push({ tool: String(p), label: String(p), title: `a piece of player ${p}`, colour: `p${p}` });
    return out.concat([ERASE]);
  },
  apply(state, cell, tool) {
    if (!/^\d+$/.test(cell)) return state;
    const s = copy(state), i = Number(cell);
    s.cells[i] = tool === "erase" || s.cells[i] === tool ? "." : tool;
    return s;
  },
  get: (state, cell) => /^\d+$/.test(cell) && state.cells[Number(cell)] !== "." ? state.cells[Number(cell)] || "" : "",
  put(state, cell, what) {
    if (!/^\d+$/.test(cell) || Number(cell) >= state.cells.length) return state;
    const s = copy(state);
    s.cells[Number(cell)] = what || ".";
    return s;
  },
  clear: s => ({ ...copy(s), cells: s.cells.map(() => ".") }),
  sides(s) {
    if (s.kind === "star-distance") return [0, 1, 2, 3, 4, 5].map(g => ({ side: String(g), label: `goal ${g}` }));
    return [...Array(s.players).keys()].map(p => ({ side: String(p + 1), label: `player ${p + 1}` }));
  },
  side: s => s.last,
  setSide: (s, side) => ({ ...copy(s), last: side }),
  solo: s => s.kind === "star-distance",
  extras: s => [{ name: "kind", label: "board", value: s.kind, choices: [
    ...[3, 4, 5, 6, 7, 8, 9].map(m => [`rhombus-${m}`, `rhombus ${m}x${m}`]),
    ...[2, 3, 4, 6].map(n => [`star-${n}`, `star, ${n} players`]),
    ...[13, 37].flatMap(h => [2, 3, 4, 6].map(n => [`star${h}-${n}`, `${h}-hole star, ${n} players`])),
    ["star-distance", "star, one player (distance)"]] }],
  setExtra(s, name, kind) {
    const players = playersOf(kind);
    const size = rowsOf(kind).reduce((a, b) => a + b, 0);
    return { kind, players, cells: Array(size).fill("."), last: kind === "star-distance" ? "3" : "1" };
  },
  // the start of the board shown: the rhombus with as many pieces a side as player 1 has now
  startOptions: s => s.kind.startsWith("rhombus")
    ? { board: s.kind.slice(8), pieces: String(Math.min(6, Math.max(1, s.cells.filter(c => c === "1").length))) }
    : SMALL_STAR.test(s.kind) ? { board: s.kind.split("-")[0], players: String(s.players) }
    : { board: "star", players: s.kind === "star-distance" ? "2" : s.kind.slice(5) },
};

// a piece dragged from cell ``from`` to cell ``to`` (null: off the board, which removes it)
export function drag(ed, state, from, to) {
  if (!ed.get || !ed.put) return state;
  const what = ed.get(state, from);
  if (!what || from === to) return state;
  const lifted = ed.put(state, from, "");
  return to === null ? lifted : ed.put(lifted, to, what);
}

export const EDITORS = { cdc, chess, shogi, oware, tictactoe, uttt, "chinese-checkers": chineseCheckers };
