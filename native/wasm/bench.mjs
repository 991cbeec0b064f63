// node native/wasm/bench.mjs DIR TEXTS [ROUNDS [FLAGS]]: the WebAssembly build's probe rate, as
// native/tests/bench.c measures the C one (TEXTS: "GAME<TAB>TEXT" lines; FLAGS 1: tb_index).  Prints one JSON
// line: back-to-back probes per second in the array form (positions parsed once, kept in the
// module's memory) and from text.  Driven by benchmarks/native.py.
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const [dir, textsPath, roundsArg, flagsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 3);
const stubs = { fd_close: () => 52, fd_seek: () => 52, fd_write: () => 52 };
const { instance } = await WebAssembly.instantiate(readFileSync(join(here, "tbprobe.wasm")),
  { wasi_snapshot_preview1: stubs });
const x = instance.exports;
if (x._initialize) x._initialize();
const enc = new TextEncoder();
const cstr = (s) => {
  const b = enc.encode(s);
  const p = x.tbw_alloc(b.length + 1);
  const m = new Uint8Array(x.memory.buffer);
  m.set(b, p);
  m[p + b.length] = 0;
  return p;
};
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const base = x.tbw_new();
for (const f of manifest.files) {
  const data = readFileSync(join(dir, f.path));
  const p = x.tbw_alloc(data.length);
  new Uint8Array(x.memory.buffer).set(data, p);
  if (x.tbw_add(base, p, data.length, cstr(f.path)) !== 0) throw new Error(`cannot add ${f.path}`);
}
if (Number(flagsArg || 0) & 1 && x.tbw_index(base) !== 0) throw new Error("tb_index failed");
const lines = readFileSync(textsPath, "utf8").split("\n").filter((l) => l.includes("\t"));
const games = {}, texts = [], positions = [];
for (const line of lines) {
  const [g, t] = line.split("\t");
  games[g] ??= cstr(g);
  const tp = cstr(t);
  texts.push([games[g], tp]);
  positions.push(x.tbw_parse(games[g], tp));
}
let errors = 0;
for (const p of positions) errors += x.tbw_probe_position(base, p, -1) < 0;   // warm
let t0 = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (const p of positions) x.tbw_probe_position(base, p, -1);
const arrayNs = Number(process.hrtime.bigint() - t0) / (rounds * positions.length);
// each probe timed on its own, as bench.c times C's: a median is not moved by the process being
// descheduled on a busy machine, a mean is
const each = [];
for (let r = 0; r < rounds; r++) {
  for (const p of positions) {
    const a = process.hrtime.bigint();
    x.tbw_probe_position(base, p, -1);
    each.push(Number(process.hrtime.bigint() - a));
  }
}
each.sort((a, b) => a - b);
const arrayMedianNs = each[each.length >> 1];
const table = x.tbw_alloc(4 * positions.length);
new Uint32Array(x.memory.buffer, table, positions.length).set(positions);
t0 = process.hrtime.bigint();
x.tbw_probe_loop(base, table, positions.length, rounds);
const loopNs = Number(process.hrtime.bigint() - t0) / (rounds * positions.length);
t0 = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (const [g, t] of texts) x.tbw_probe_text(base, g, t, -1);
const textNs = Number(process.hrtime.bigint() - t0) / (rounds * texts.length);
console.log(JSON.stringify({ positions: positions.length, errors, array_mean_ns: arrayNs,
  array_median_ns: arrayMedianNs,
  loop_mean_ns: loopNs,
  text_mean_ns: textNs, rate_per_s: 1e9 / arrayNs }));
