#!/usr/bin/env node
// node native/wasm/probe.mjs DIR GAME POSITION [PLIES_LEFT] [--json]
// The WebAssembly build answering like native/tbprobe: DIR is a directory of probe files
// (tbdb export); POSITION "-" reads "POSITION" lines (or "GAME<TAB>POSITION") from standard
// input and answers each with one JSON line.  Bad text: one line on stderr, exit status 2.
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTbprobe } from "./tbprobe.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const fail = (msg) => { console.error(`tbprobe: error: ${msg}`); process.exit(2); };
// the arguments as native/tbprobe checks them: no position of any game starts with "--"
const unknown = process.argv.slice(2).find((a) => a.startsWith("--") && a !== "--json");
if (unknown !== undefined) fail(`unknown option '${unknown}'`);
const args = process.argv.slice(2).filter((a) => a !== "--json");
const json = process.argv.includes("--json");
if (args.length < 3 || args.length > 4) {
  console.error("usage: probe.mjs DIR GAME POSITION [PLIES_LEFT] [--json]");
  process.exit(2);
}
const [dir, game, position, plies] = args;
const GAMES = ["cdc", "oware", "shogi", "chinese-checkers", "uttt", "tictactoe", "chess"];
if (!GAMES.includes(game)) fail(`unknown game '${game}'`);
if (plies !== undefined) {
  if (!/^[0-9]+$/.test(plies) || Number(plies) < 1 || Number(plies) > 200) {
    fail(`plies left must be an integer from 1 to 200, not '${plies}'`);
  }
  if (game !== "oware" && position !== "-") fail(`plies left '${plies}' is for oware positions only, not ${game}`);
}
let manifest;
try {
  manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
} catch (e) {
  fail(`'${dir}' is not a directory of probe files: no manifest.json`);
}
const tbprobe = await loadTbprobe(readFileSync(join(here, "tbprobe.wasm")));
let base;
try {
  base = tbprobe.open(manifest.files.map((f) => ({ name: f.path, data: readFileSync(join(dir, f.path)) })));
} catch (e) {
  fail(e.message);
}

function answer(g, text) {
  const r = base.probe(g, text, plies === undefined ? -1 : Number(plies));
  if (r.status !== "ok" && r.status !== "over") {
    throw new Error(`${g} position '${text.trim()}' ${r.status === "missing" ? "is in no table of these probe files" : "cannot be probed: " + r.status}`);
  }
  const out = { game: g, position: text.trim(), outcome: r.outcome, distance: r.distance,
    best_move: r.best_move };
  if (g === "oware") { out.score = r.score; out.turns_left = plies === undefined ? 200 : Number(plies); }
  return out;
}

const show = (o) => {
  // the spacing of Python's json.dumps, as tbdb lookup --json and native/tbprobe print
  if (json || position === "-") {
    console.log("{" + Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ") + "}");
  }
  else for (const [k, v] of Object.entries(o)) console.log(`${k}: ${v}`);
};

if (position === "-") {
  const lines = readFileSync(0, "utf8").split("\n").filter((l) => l.length);
  for (const line of lines) {
    const [g, text] = line.includes("\t") ? line.split("\t") : [game, line];
    try { show(answer(g, text)); } catch (e) { console.log(`{"error": ${JSON.stringify(e.message)}}`); }
  }
} else {
  try { show(answer(game, position)); } catch (e) { fail(e.message); }
}
base.close();
