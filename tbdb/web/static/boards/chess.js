// Chess endgames: the 8x8 board from a FEN (rank 8 at the top, white below unless view.flip);
// pieces are the chess figurines (♔♕♖♗♘♙ drawn white, the same shapes drawn black for black)
// with their FEN letter as a title; a move is UCI ("e2e4", "e7e8q"), drawn as an arrow
// coloured by its outcome (clicking the arrow plays it; of a promotion's four arrows the best
// is on top).  Every square carries data-cell (its name) for the board editor.
import { COLOURS, esc } from "../values.js";

const S = 60;
export const GLYPHS = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟" };
export const NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

// the top-left corner of the square at file f (0 = a), row r (0 = rank 8) as drawn
function corner(f, r, flip) {
  return flip ? [(7 - f) * S + 10, (7 - r) * S + 10] : [f * S + 10, r * S + 10];
}

function centre(name, flip) {
  const f = name.charCodeAt(0) - 97, r = 8 - Number(name[1]);
  const [x, y] = corner(f, r, flip);
  return [x + S / 2, y + S / 2];
}

// one piece: a figurine filled in the side's colour, outlined in the other
export function pieceSvg(cx, cy, ch, size = S) {
  const white = ch === ch.toUpperCase(), kind = ch.toUpperCase();
  return `<g class="piece" pointer-events="none"><title>${white ? "white" : "black"} ${NAMES[kind] || esc(ch)} (${esc(ch)})</title>` +
    `<text x="${cx}" y="${cy + size * 0.3}" text-anchor="middle" font-size="${size * 0.82}" ` +
    `fill="${white ? "#fff" : "#111"}" stroke="${white ? "#111" : "#fff"}" stroke-width="${white ? 1.6 : 0.8}" ` +
    `font-family="'DejaVu Sans', 'Segoe UI Symbol', 'Noto Sans Symbols2', sans-serif">${GLYPHS[kind] || esc(ch)}</text></g>`;
}

export function render(position, result, diagram, view = {}) {
  const [ranks = "", side] = position.trim().split(/\s+/);
  const flip = !!view.flip;
  let svg = `<svg data-board="chess" viewBox="0 0 ${8 * S + 20} ${8 * S + 50}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<defs>${Object.entries(COLOURS).map(([k, c]) => `<marker id="head-${k}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`).join("")}</defs>`;
  for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++) svg += cell(f, r, flip);
  ranks.split("/").slice(0, 8).forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) { f += Number(ch); continue; }
      if (f < 8 && GLYPHS[ch.toUpperCase()]) {
        const [x, y] = corner(f, r, flip);
        svg += pieceSvg(x + S / 2, y + S / 2, ch);
      }
      f++;
    }
  });
  for (let f = 0; f < 8; f++) {
    const [x] = corner(f, 7, flip);
    svg += `<text x="${x + S / 2}" y="${8 * S + 28}" text-anchor="middle" font-size="13" fill="#555">${"abcdefgh"[f]}</text>`;
  }
  svg += `<text data-caption="" x="10" y="${8 * S + 45}" font-size="13" fill="#555">${side === "b" ? "black" : "white"} to move</text>`;
  // arrows, worst first so the best is drawn on top (a promotion's pieces share one arrow's
  // place: the best of them on top)
  const moves = ((result && result.moves) || []).slice().reverse();
  for (const m of moves) {
    const parts = /^([a-h][1-8])([a-h][1-8])[qrbn]?$/.exec(m.move);
    if (!parts) continue;
    const [x1, y1] = centre(parts[1], flip), [x2, y2] = centre(parts[2], flip);
    svg += `<line data-move="${esc(m.move)}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${COLOURS[m.outcome]}" stroke-width="7" stroke-opacity="0.75" marker-end="url(#head-${m.outcome})"/>`;
  }
  return svg + "</svg>";
}

function cell(f, r, flip) {
  const [x, y] = corner(f, r, flip);
  return `<rect data-cell="${"abcdefgh"[f]}${8 - r}" x="${x}" y="${y}" width="${S}" height="${S}" fill="${(f + r) % 2 ? "#b58863" : "#f0d9b5"}" stroke="#8b6b4a" stroke-width="0.5"/>`;
}
