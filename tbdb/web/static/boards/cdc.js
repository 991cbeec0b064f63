// Chinese Dark Chess endgames: a 4x8 board, ranks 4 (top) to 1, files a-h; upper-case letters
// are red pieces, lower-case black; a move is "a1-a2" or "b1xd1", drawn as an arrow coloured by
// its outcome (clicking the arrow plays it).  Pieces are the Chinese characters players read
// (帥仕相俥傌炮兵 red, 將士象車馬包卒 black) or, with view.letters (or without a font that
// draws them), the notation's letters.  view.flip turns the board round (black's side below).
// Every square carries data-cell (its name) for the board editor.
import { COLOURS, esc } from "../values.js";
import { hasCJK } from "./glyphs.js";

const S = 60;
export const CHARS = { K: "帥", G: "仕", M: "相", R: "俥", N: "傌", C: "炮", P: "兵",
  k: "將", g: "士", m: "象", r: "車", n: "馬", c: "包", p: "卒" };
export const NAMES = { K: "general", G: "advisor", M: "elephant", R: "chariot", N: "horse",
  C: "cannon", P: "soldier" };

// the top-left corner of the square at file f (0 = a), row r (0 = rank 4) as drawn
function corner(f, r, flip) {
  return flip ? [(7 - f) * S + 10, (3 - r) * S + 10] : [f * S + 10, r * S + 10];
}

function centre(name, flip) {
  const f = name.charCodeAt(0) - 97, r = 4 - Number(name.slice(1));
  const [x, y] = corner(f, r, flip);
  return [x + S / 2, y + S / 2];
}

export function label(ch, view = {}) {
  return !view.letters && hasCJK() ? CHARS[ch] : ch.toUpperCase();
}

export function pieceSvg(cx, cy, ch, view = {}, size = S) {
  const red = ch === ch.toUpperCase(), colour = red ? "#c00" : "#111";
  return `<g class="piece" pointer-events="none"><title>${red ? "red" : "black"} ${NAMES[ch.toUpperCase()] || ch}</title>` +
    `<circle cx="${cx}" cy="${cy}" r="${size * 0.4}" fill="#fff7e6" stroke="${colour}" stroke-width="3"/>` +
    `<text x="${cx}" y="${cy + size * 0.14}" text-anchor="middle" font-size="${size * 0.42}" font-weight="bold" fill="${colour}" font-family="sans-serif">${esc(label(ch, view))}</text></g>`;
}

export function render(position, result, diagram, view = {}) {
  const [ranks = "", side] = position.trim().split(/\s+/);
  const flip = !!view.flip;
  let svg = `<svg data-board="cdc" viewBox="0 0 ${8 * S + 20} ${4 * S + 50}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<defs>${Object.entries(COLOURS).map(([k, c]) => `<marker id="head-${k}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`).join("")}</defs>`;
  const pieces = [];
  for (let r = 0; r < 4; r++) for (let f = 0; f < 8; f++) svg += cell(f, r, flip);
  ranks.split("/").slice(0, 4).forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) { f += Number(ch); continue; }
      if (f < 8 && CHARS[ch]) {
        const [x, y] = corner(f, r, flip);
        pieces.push(pieceSvg(x + S / 2, y + S / 2, ch, view));
      }
      f++;
    }
  });
  svg += pieces.join("");
  for (let f = 0; f < 8; f++) {
    const [x] = corner(f, 0, flip);
    svg += `<text x="${x + S / 2}" y="${4 * S + 28}" text-anchor="middle" font-size="13" fill="#555">${"abcdefgh"[f]}</text>`;
  }
  svg += `<text x="10" y="${4 * S + 45}" font-size="13" fill="#555">${side === "b" ? "black" : "red"} to move</text>`;
  // arrows, worst first so the best is drawn on top
  const moves = ((result && result.moves) || []).slice().reverse();
  for (const m of moves) {
    const parts = m.move.split(/[-x]/);
    if (parts.length !== 2) continue;
    const [x1, y1] = centre(parts[0], flip), [x2, y2] = centre(parts[1], flip);
    svg += `<line data-move="${esc(m.move)}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${COLOURS[m.outcome]}" stroke-width="7" stroke-opacity="0.75" marker-end="url(#head-${m.outcome})"/>`;
  }
  return svg + "</svg>";
}

function cell(f, r, flip) {
  const [x, y] = corner(f, r, flip);
  return `<rect data-cell="${"abcdefgh"[f]}${4 - r}" x="${x}" y="${y}" width="${S}" height="${S}" fill="${(f + r) % 2 ? "#e8d5a9" : "#f3e6c4"}" stroke="#a08850"/>`;
}
