// Watches a band of the X server's screen from outside the app: Xvfb with
// -fbdir keeps its framebuffer in a file (XWD), so a worker can read the
// band's pixels every millisecond without asking the server, and note on
// CLOCK_MONOTONIC (process.hrtime, the clock of the app's trace) each moment
// the band changes. The start-up trace checks the window's own "painted"
// mark against it.
import { Worker } from 'node:worker_threads';

const worker = `
const { workerData, parentPort } = require('node:worker_threads');
const { openSync, readSync, existsSync } = require('node:fs');
const { file, band, every } = workerData;
const flag = new Int32Array(workerData.flag);
// live[0]: the last change, in ms on process.hrtime; live[1]: 1 while the band is uniform.
const live = new Float64Array(workerData.live);
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(file) && Atomics.load(flag, 0) === 0) Atomics.wait(nap, 0, 0, 1);
const fd = openSync(file, 'r');
const head = Buffer.alloc(100);
readSync(fd, head, 0, 100, 0);
// XWD's header is 25 32-bit fields, in the byte order the server wrote.
const big = head.readUInt32BE(0) < 0x10000;
const field = (i) => (big ? head.readUInt32BE(4 * i) : head.readUInt32LE(4 * i));
const headerSize = field(0), bitsPerPixel = field(11), bytesPerLine = field(12), ncolors = field(19);
if (bitsPerPixel !== 32) throw new Error('screenwatch: ' + bitsPerPixel + ' bits per pixel, want 32');
const pixels = headerSize + 12 * ncolors;
const width = band.w * 4;
const buf = Buffer.alloc(width * band.h);
const samples = [];
let last = -1;
while (Atomics.load(flag, 0) === 0) {
  const t = process.hrtime.bigint();
  for (let y = 0; y < band.h; y++) readSync(fd, buf, y * width, width, pixels + (band.y + y) * bytesPerLine + band.x * 4);
  // FNV-1a over the band's 32-bit pixels; uniform: nothing drawn on the background.
  let h = 0x811c9dc5;
  let uniform = true;
  const first = buf.readUInt32LE(0);
  for (let i = 0; i < buf.length; i += 4) {
    const px = buf.readUInt32LE(i) & 0xffffff;
    if (px !== (first & 0xffffff)) uniform = false;
    h = Math.imul(h ^ px, 16777619) >>> 0;
  }
  if (h !== last) {
    samples.push({ mono: t.toString(), hash: h, uniform });
    last = h;
    live[0] = Number(t) / 1e6;
    live[1] = uniform ? 1 : 0;
  }
  Atomics.wait(nap, 0, 0, every);
}
parentPort.postMessage(samples);
`;

/**
 * watchBand starts watching band ({x, y, w, h} in screen pixels) of the
 * framebuffer file fbFile (it may not exist yet); stillFor(ms) says whether
 * the band shows something and has held still that long; stop() ends it
 * and resolves to the band's changes: [{mono (ns, BigInt), hash, uniform}].
 */
export function watchBand(fbFile, band, every = 1) {
  const flag = new SharedArrayBuffer(4);
  const live = new SharedArrayBuffer(16);
  const now = new Float64Array(live);
  now[1] = 1;
  const w = new Worker(worker, { eval: true, workerData: { file: fbFile, band, every, flag, live } });
  const done = new Promise((res, rej) => {
    w.once('message', (samples) => res(samples.map((s) => ({ ...s, mono: BigInt(s.mono) }))));
    w.once('error', rej);
  });
  return {
    /** stillFor is true once something is drawn in the band and it has not changed for ms. */
    stillFor(ms) {
      return now[1] === 0 && Number(process.hrtime.bigint()) / 1e6 - now[0] >= ms;
    },
    async stop() {
      Atomics.store(new Int32Array(flag), 0, 1);
      try {
        return await done;
      } finally {
        await w.terminate();
      }
    },
  };
}

/**
 * settledAt is the first change after which the band showed what it shows
 * at the end (the rows as they stay), and the change before it: the pixels
 * arrived between the two.
 */
export function settledAt(samples) {
  if (!samples.length) return null;
  const end = samples[samples.length - 1].hash;
  const i = samples.findIndex((s) => s.hash === end && !s.uniform);
  if (i < 0) return null;
  return { at: samples[i].mono, before: i > 0 ? samples[i - 1].mono : null, changes: samples.length };
}
