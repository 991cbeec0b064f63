// Ultimate Tic-Tac-Toe: 81 characters board-major (character 9*b + c is cell c of small board b,
// both numbered row by row from the top left), the side to move and the constraint (the small
// board the mover must play in, or '-').  A closed small board (won or full; tbdb may write one
// as XXXXXXXXX, OOOOOOOOO or DDDDDDDDD) is shaded with its status; the constraint board is
// outlined.  A move "b:c" colours its empty cell by outcome and plays when clicked.
import { COLOURS, esc, outcomes } from "../values.js";

const C = 34;                 // a cell
const GAP = 14;               // between small boards
const B = 3 * C + GAP;        // a small board's pitch
const M = 10;                 // outer margin
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const MARK = { x: "#1a4f9c", o: "#9c1a1a" };

// "x" / "o" (won by), "draw" (full, no line) or null (open)
export function status(cells) {
  if (/^X{9}$/.test(cells)) return "x";
  if (/^O{9}$/.test(cells)) return "o";
  if (/^D{9}$/.test(cells)) return "draw";
  for (const p of "xo") if (LINES.some(l => l.every(i => cells[i] === p))) return p;
  return cells.includes(".") ? null : "draw";
}

export function render(position, result, diagram, view = {}) {
  const [cells = "", side = "x", constraint = "-"] = position.trim().split(/\s+/);
  const moves = outcomes(result);
  const size = 2 * M + 3 * B - GAP;
  let svg = `<svg data-board="uttt" viewBox="0 0 ${size} ${size + 30}" xmlns="http://www.w3.org/2000/svg">`;
  for (let b = 0; b < 9; b++) {
    const small = cells.slice(9 * b, 9 * b + 9);
    const bAt = view.flip ? 8 - b : b;  // turned round
    const bx = M + (bAt % 3) * B, by = M + Math.floor(bAt / 3) * B;
    const closed = status(small);
    const target = String(b) === constraint;
    svg += `<rect data-small-board="${b}" data-status="${closed || (target ? "target" : "open")}" x="${bx - 4}" y="${by - 4}" width="${3 * C + 8}" height="${3 * C + 8}" rx="4" ` +
      `fill="${closed === "x" ? "#dbe6f7" : closed === "o" ? "#f5dede" : closed === "draw" ? "#e4e4e4" : target ? "#fff6c2" : "#fff"}" ` +
      `stroke="${target ? "#e0a000" : "#999"}" stroke-width="${target ? 4 : 1}"/>`;
    const byStatus = /^[XOD]{9}$/.test(small);
    for (let c = 0; c < 9; c++) {
      const cAt = view.flip ? 8 - c : c;
      const x = bx + (cAt % 3) * C, y = by + Math.floor(cAt / 3) * C, ch = small[c];
      const move = `${b}:${c}`, outcome = moves.get(move);
      svg += `<rect data-cell="${move}" x="${x}" y="${y}" width="${C}" height="${C}" fill="transparent"/>`;
      if (outcome) {
        svg += `<rect data-move="${move}" x="${x + 2}" y="${y + 2}" width="${C - 4}" height="${C - 4}" fill="${COLOURS[outcome]}" fill-opacity="0.55" stroke="${COLOURS[outcome]}"><title>${esc(move)}</title></rect>`;
      } else if (!byStatus) {
        svg += `<rect x="${x + 2}" y="${y + 2}" width="${C - 4}" height="${C - 4}" fill="none" stroke="#ccc"/>`;
      }
      if (!byStatus && (ch === "x" || ch === "o")) {
        svg += `<text x="${x + C / 2}" y="${y + C * 0.72}" text-anchor="middle" font-size="${C * 0.7}" font-family="sans-serif" fill="${MARK[ch]}" fill-opacity="${closed ? 0.45 : 1}" pointer-events="none">${ch}</text>`;
      }
    }
    // a closed board's status over it: a big mark for a win, a word for a draw
    if (closed === "x" || closed === "o") {
      svg += `<text x="${bx + 1.5 * C}" y="${by + 2.45 * C}" text-anchor="middle" font-size="${3.2 * C}" font-family="sans-serif" fill="${MARK[closed]}" fill-opacity="0.55" pointer-events="none">${closed}</text>`;
    } else if (closed === "draw") {
      svg += `<text x="${bx + 1.5 * C}" y="${by + 1.65 * C}" text-anchor="middle" font-size="${0.6 * C}" font-family="sans-serif" fill="#666" pointer-events="none">drawn</text>`;
    }
  }
  const where = /^[0-8]$/.test(constraint) ? `must play in board ${constraint}` : "may play in any open board";
  svg += `<text x="${M}" y="${size + 16}" font-size="13" fill="#555">${side === "o" ? "o" : "x"} to move, ${esc(where)}</text>`;
  return svg + "</svg>";
}
