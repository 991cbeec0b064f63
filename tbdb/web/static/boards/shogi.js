// Shogi: SFEN ("board side hands move-number").  The board as USI writes it: rank a at the top,
// files 9 to 1 from left to right.  Pieces are kanji (where the browser has a font for them) or
// letters on a five-sided piece pointing at the opponent: black's (sente, upper case) point up,
// white's (gote, lower case) are turned 180 degrees; promoted pieces are red (letters: with a
// '+').  White's hand is drawn at the top left, black's at the bottom right, each piece kind
// with its count.  Moves are coloured by outcome and play when
// clicked: a board move is an arrow (a promotion dashed); a drop is a disc with the piece's
// letter on the empty square (a hand of a few kinds has dozens of drops, too many arrows), and
// the best move, when it is a drop, also gets an arrow from the mover's hand.
import { COLOURS, esc } from "../values.js";
import { hasCJK } from "./glyphs.js";

const S = 50;                  // a square
const HAND_W = 64;             // each hand's column
const X0 = HAND_W + 16;        // the board's left edge
const Y0 = 26;                 // below the file numbers
const HAND_ORDER = "RBGSNLP";
const NAMES = { K: "king", R: "rook", B: "bishop", G: "gold", S: "silver", N: "knight", L: "lance",
  P: "pawn", "+R": "dragon", "+B": "horse", "+S": "promoted silver", "+N": "promoted knight",
  "+L": "promoted lance", "+P": "tokin" };

// one-character kanji, used unless view.letters asks for letters or no font draws them
export const KANJI = { K: "玉", R: "飛", B: "角", G: "金", S: "銀", N: "桂", L: "香", P: "歩",
  "+R": "龍", "+B": "馬", "+S": "全", "+N": "圭", "+L": "杏", "+P": "と" };
let FLIP = false;   // the view of the render under way: white's side below
let LETTERS = false;

// the centre of a USI square ("7g": file 7, rank g)
function square(name) {
  let file = Number(name[0]), rank = name.charCodeAt(1) - 97;
  if (FLIP) { file = 10 - file; rank = 8 - rank; }
  return [X0 + (9 - file) * S + S / 2, Y0 + rank * S + S / 2];
}

// where each side's hand draws a piece kind: white's column from the top, black's from the bottom
function handSlot(black, kind) {
  const i = HAND_ORDER.indexOf(kind);
  return black !== FLIP ? [X0 + 9 * S + 24 + HAND_W / 2, Y0 + 9 * S - S / 2 - i * (S + 4)]
               : [HAND_W / 2 + 4, Y0 + S / 2 + i * (S + 4)];
}

function parseBoard(ranks) {
  const out = [];   // [square name, piece text ("+R", "k"), black?]
  ranks.split("/").forEach((row, r) => {
    let file = 9;
    for (let i = 0; i < row.length; i++) {
      const ch = row[i];
      if (/[1-9]/.test(ch)) { file -= Number(ch); continue; }
      let piece = ch;
      if (ch === "+") piece += row[++i];
      out.push([`${file}${String.fromCharCode(97 + r)}`, piece, piece === piece.toUpperCase()]);
      file--;
    }
  });
  return out;
}

function parseHands(text) {
  const hands = { black: new Map(), white: new Map() };
  if (!text || text === "-") return hands;
  for (const [, count, letter] of text.matchAll(/(\d*)([A-Za-z])/g)) {
    const black = letter === letter.toUpperCase();
    hands[black ? "black" : "white"].set(letter.toUpperCase(), Number(count || 1));
  }
  return hands;
}

function piece(cx, cy, text, black, size = S) {
  const upper = text.toUpperCase(), promoted = upper.startsWith("+");
  const w = size * 0.4, top = size * 0.44, shoulder = size * 0.24, bottom = size * 0.42;
  const outline = `M${cx},${cy - top} L${cx + w * 0.8},${cy - shoulder} L${cx + w},${cy + bottom} ` +
                  `L${cx - w},${cy + bottom} L${cx - w * 0.8},${cy - shoulder} Z`;
  const turn = black !== FLIP ? "" : ` transform="rotate(180 ${cx} ${cy})"`;
  const label = !LETTERS && hasCJK() ? KANJI[upper] || upper : promoted ? upper : upper[0];
  const fontSize = size * (label.length > 1 ? 0.36 : 0.46);
  return `<g class="piece" data-piece="${esc(black ? upper : upper.toLowerCase())}" pointer-events="none"${turn}><title>${black ? "black" : "white"} ${NAMES[upper] || upper}</title>` +
    `<path d="${outline}" fill="#f6dfa5" stroke="#6b4f1d" stroke-width="1.5"/>` +
    `<text x="${cx}" y="${cy + size * 0.17}" text-anchor="middle" font-size="${fontSize}" font-weight="bold" ` +
    `font-family="sans-serif" fill="${promoted ? "#c00" : "#111"}" pointer-events="none">${esc(label)}</text></g>`;
}

export function render(position, result, diagram, view = {}) {
  FLIP = !!view.flip;
  LETTERS = !!view.letters;
  const [ranks = "", side = "b", handText = "-"] = position.trim().split(/\s+/);
  const width = X0 + 9 * S + 24 + HAND_W + 8, height = Y0 + 9 * S + 40;
  let svg = `<svg data-board="shogi" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<defs>${Object.entries(COLOURS).map(([k, c]) => `<marker id="shogi-head-${k}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`).join("")}</defs>`;
  svg += `<rect x="${X0}" y="${Y0}" width="${9 * S}" height="${9 * S}" fill="#e9c77b" stroke="#6b4f1d" stroke-width="2"/>`;
  for (let k = 1; k < 9; k++) {
    svg += `<line x1="${X0 + k * S}" y1="${Y0}" x2="${X0 + k * S}" y2="${Y0 + 9 * S}" stroke="#6b4f1d"/>`;
    svg += `<line x1="${X0}" y1="${Y0 + k * S}" x2="${X0 + 9 * S}" y2="${Y0 + k * S}" stroke="#6b4f1d"/>`;
  }
  for (let k = 0; k < 9; k++) {
    const file = FLIP ? k + 1 : 9 - k, rank = "abcdefghi"[FLIP ? 8 - k : k];
    svg += `<text x="${X0 + k * S + S / 2}" y="${Y0 - 8}" text-anchor="middle" font-size="14" fill="#555">${file}</text>`;
    svg += `<text x="${X0 + 9 * S + 8}" y="${Y0 + k * S + S / 2 + 5}" font-size="14" fill="#555">${rank}</text>`;
  }
  for (let file = 1; file <= 9; file++) {
    for (let r = 0; r < 9; r++) {
      const name = `${file}${"abcdefghi"[r]}`, [cx, cy] = square(name);
      svg += `<rect data-cell="${name}" x="${cx - S / 2}" y="${cy - S / 2}" width="${S}" height="${S}" fill="transparent"/>`;
    }
  }
  for (const [name, text, black] of parseBoard(ranks)) {
    const [cx, cy] = square(name);
    svg += piece(cx, cy, text, black);
  }
  // the hands: a tray per side with each kind held and its count
  const hands = parseHands(handText);
  for (const black of [false, true]) {
    const [tx, ty] = handSlot(black, black !== FLIP ? "P" : "R");
    const trayTop = ty - S / 2 - 4;
    svg += `<rect x="${tx - HAND_W / 2 + 2}" y="${trayTop}" width="${HAND_W - 4}" height="${7 * (S + 4) + 4}" rx="6" fill="#f1e3c0" stroke="#b89a5a"><title>${black ? "black" : "white"}'s hand</title></rect>`;
    svg += `<text x="${tx}" y="${black !== FLIP ? trayTop - 6 : trayTop + 7 * (S + 4) + 20}" text-anchor="middle" font-size="12" fill="#555">${black ? "black" : "white"}</text>`;
    const held = hands[black ? "black" : "white"];
    // the editor shows every kind (the ones not held faded) so a click adds one
    for (const kind of HAND_ORDER) {
      const count = held.get(kind) || 0;
      if (!count && !view.edit) continue;
      const [cx, cy] = handSlot(black, kind);
      if (view.edit) svg += `<rect data-cell="hand-${black ? "b" : "w"}-${kind}" x="${cx - HAND_W / 2 + 4}" y="${cy - S / 2}" width="${HAND_W - 8}" height="${S}" fill="transparent"/>`;
      svg += `<g opacity="${count ? 1 : 0.3}" pointer-events="none">${piece(cx - 9, cy, kind, black, S * 0.85)}</g>`;
      svg += `<text data-hand="${black ? "b" : "w"}${kind}" x="${cx + 28}" y="${cy + 16}" text-anchor="end" font-size="14" font-weight="bold" fill="#333" pointer-events="none">${count > 1 ? "×" + count : ""}</text>`;
    }
  }
  svg += `<text x="${X0}" y="${Y0 + 9 * S + 26}" font-size="13" fill="#555">${side === "w" ? "white (gote)" : "black (sente)"} to move</text>`;
  // worst first so the best is drawn on top
  const moves = ((result && result.moves) || []).slice().reverse();
  const black = side !== "w";
  const kinds = [...new Set(moves.map(m => /^([RBGSNLP])\*/.exec(m.move)).filter(Boolean).map(d => d[1]))]
    .sort((a, b) => HAND_ORDER.indexOf(a) - HAND_ORDER.indexOf(b));
  for (const m of moves) svg += /\*/.test(m.move) ? dropMarker(m, kinds) : arrow(m, black);
  if (result && result.best_move && /\*/.test(result.best_move)) {
    svg += arrow(result.moves.find(m => m.move === result.best_move), black);
  }
  return svg + "</svg>";
}

// a drop: a disc with the dropped piece's letter, side by side when the hand has several kinds
function dropMarker(m, kinds) {
  const drop = /^([RBGSNLP])\*([1-9][a-i])$/.exec(m.move);
  if (!drop) return "";
  const [cx, cy] = square(drop[2]);
  const n = kinds.length, r = n > 1 ? Math.min(9, S / (2 * n + 1)) : 11;
  const x = cx + (kinds.indexOf(drop[1]) - (n - 1) / 2) * (2 * r + 2);
  return `<g data-move="${esc(m.move)}"><title>${esc(m.move)}</title><circle cx="${x}" cy="${cy}" r="${r}" fill="${COLOURS[m.outcome] || "#555"}" fill-opacity="0.8"/>` +
    `<text x="${x}" y="${cy + r * 0.4}" text-anchor="middle" font-size="${r * 1.1}" font-weight="bold" font-family="sans-serif" fill="#fff" pointer-events="none">${drop[1]}</text></g>`;
}

// "7g7f", "8h2b+" (dashed: a promotion, shifted a little off its non-promoting twin) or "G*5b"
function arrow(m, black) {
  const colour = COLOURS[m.outcome] || "#555";
  const drop = /^([RBGSNLP])\*([1-9][a-i])$/.exec(m.move);
  const step = /^([1-9][a-i])([1-9][a-i])(\+?)$/.exec(m.move);
  let x1, y1, x2, y2, dash = "";
  if (drop) {
    [x1, y1] = handSlot(black, drop[1]);
    [x2, y2] = square(drop[2]);
  } else if (step) {
    [x1, y1] = square(step[1]);
    [x2, y2] = square(step[2]);
    if (step[3]) {
      const len = Math.hypot(x2 - x1, y2 - y1) || 1, off = 5;
      const dx = -(y2 - y1) / len * off, dy = (x2 - x1) / len * off;
      x1 += dx; y1 += dy; x2 += dx; y2 += dy;
      dash = ` stroke-dasharray="10 5"`;
    }
  } else {
    return "";
  }
  // stop short of the centre so the head does not cover the letter underneath
  const len = Math.hypot(x2 - x1, y2 - y1) || 1, cut = Math.min(12, len / 3);
  x2 -= (x2 - x1) / len * cut; y2 -= (y2 - y1) / len * cut;
  return `<line data-move="${esc(m.move)}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${colour}" stroke-width="6" stroke-opacity="0.75" stroke-linecap="round"${dash} marker-end="url(#shogi-head-${m.outcome})"><title>${esc(m.move)}</title></line>`;
}
