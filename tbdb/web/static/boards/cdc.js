// Chinese Dark Chess endgames: a 4x8 board, ranks 4 (top) to 1, files a-h; upper-case letters
// are red pieces, lower-case black; a move is "a1-a2" or "b1xd1", drawn as an arrow coloured by
// its outcome (clicking the arrow plays it).
import { COLOURS, esc } from "../values.js";

const S = 60;

function square(name) {
  const file = name.charCodeAt(0) - 97, rank = Number(name.slice(1));
  return [file * S + S / 2 + 10, (4 - rank) * S + S / 2 + 10];
}

export function render(position, result) {
  const [ranks, side] = position.trim().split(/\s+/);
  let svg = `<svg data-board="cdc" viewBox="0 0 ${8 * S + 20} ${4 * S + 50}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<defs>${Object.entries(COLOURS).map(([k, c]) => `<marker id="head-${k}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`).join("")}</defs>`;
  ranks.split("/").forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) {
        for (let k = 0; k < Number(ch); k++, f++) svg += cell(f, r);
        continue;
      }
      svg += cell(f, r);
      const red = ch === ch.toUpperCase();
      const cx = f * S + S / 2 + 10, cy = r * S + S / 2 + 10;
      svg += `<circle cx="${cx}" cy="${cy}" r="${S * 0.4}" fill="#fff7e6" stroke="${red ? "#c00" : "#111"}" stroke-width="3"/>`;
      svg += `<text x="${cx}" y="${cy + 8}" text-anchor="middle" font-size="24" font-weight="bold" fill="${red ? "#c00" : "#111"}" font-family="sans-serif">${esc(ch.toUpperCase())}</text>`;
      f++;
    }
  });
  for (let f = 0; f < 8; f++) svg += `<text x="${f * S + S / 2 + 10}" y="${4 * S + 28}" text-anchor="middle" font-size="13" fill="#555">${"abcdefgh"[f]}</text>`;
  svg += `<text x="10" y="${4 * S + 45}" font-size="13" fill="#555">${side === "r" ? "red" : "black"} to move</text>`;
  // arrows, worst first so the best is drawn on top
  const moves = ((result && result.moves) || []).slice().reverse();
  for (const m of moves) {
    const parts = m.move.split(/[-x]/);
    if (parts.length !== 2) continue;
    const [x1, y1] = square(parts[0]), [x2, y2] = square(parts[1]);
    svg += `<line data-move="${esc(m.move)}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${COLOURS[m.outcome]}" stroke-width="7" stroke-opacity="0.75" marker-end="url(#head-${m.outcome})"/>`;
  }
  return svg + "</svg>";
}

function cell(f, r) {
  return `<rect x="${f * S + 10}" y="${r * S + 10}" width="${S}" height="${S}" fill="${(f + r) % 2 ? "#e8d5a9" : "#f3e6c4"}" stroke="#a08850"/>`;
}
