// Shared by the page and the board renderers: how a value reads and which colour it has.
export const COLOURS = { win: "#2e9a2e", draw: "#e09a1a", loss: "#c83232" };

export function plies(n) { return n === 1 ? "1 ply" : `${n} plies`; }

// the value of a position or a move, as tbdb lookup prints it
export function valueText(v) {
  if (v.score !== undefined && v.score !== null) return (v.score > 0 ? "+" : "") + v.score;
  if (v.outcome === "draw" || v.distance === null || v.distance === undefined) return v.outcome;
  if (v.distance === 0) return `${v.outcome} (game over)`;
  return `${v.outcome} in ${plies(v.distance)}`;
}

// the best-first moves as a map move -> outcome, for renderers that colour squares or houses
export function outcomes(result) {
  const out = new Map();
  for (const m of (result && result.moves) || []) out.set(m.move, m.outcome);
  return out;
}

export function esc(text) {
  return String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}
