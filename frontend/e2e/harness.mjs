// Process harness for the end-to-end tests: starts Xvfb and the dev-tagged
// app in their own process groups and always stops them by group, also when
// a test fails or the runner is interrupted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const frontendDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(frontendDir, '..');
export const artifactsDir = join(repoDir, 'test-artifacts');

const groups = new Set();

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/** stopAll kills every process group this harness started. */
export async function stopAll() {
  for (const pid of groups) killGroup(pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  for (const pid of groups) killGroup(pid, 'SIGKILL');
  groups.clear();
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of groups) killGroup(pid, 'SIGKILL');
    process.exit(130);
  });
}
process.on('exit', () => {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
});

/** startGroup spawns a command as the leader of a new process group. */
export function startGroup(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  groups.add(child.pid);
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  child.on('exit', () => groups.delete(child.pid));
  return { child, log: () => log };
}

/** freePort asks the kernel for an unused loopback port. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * startXvfb starts a private X server on a display it picks itself; with
 * fbdir, its screen is also the file fbdir/Xvfb_screen0 (XWD), which a
 * test can read while the server draws.
 */
export async function startXvfb({ fbdir = '' } = {}) {
  const args = ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp', ...(fbdir ? ['-fbdir', fbdir] : [])];
  const xvfb = spawn('Xvfb', args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  groups.add(xvfb.pid);
  xvfb.on('exit', () => groups.delete(xvfb.pid));
  const display = await new Promise((res, rej) => {
    let buf = '';
    const timer = setTimeout(() => rej(new Error('Xvfb did not report a display within 15s')), 15000);
    xvfb.stdio[3].on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) {
        clearTimeout(timer);
        res(':' + buf.trim());
      }
    });
    xvfb.on('exit', (code) => rej(new Error('Xvfb exited with ' + code)));
  });
  return { display, pid: xvfb.pid };
}

/** tempHome makes isolated config, data and session folders for one run. */
export function tempHome() {
  const dir = mkdtempSync(join(tmpdir(), 'spillscope-e2e-'));
  for (const d of ['home', 'config', 'data', 'roots/present']) mkdirSync(join(dir, d), { recursive: true });
  return dir;
}

/** waitFor polls fn until it returns a truthy value or the deadline passes. */
export async function waitFor(fn, what, ms = 30000, every = 200) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
}

/** binary returns a built binary's path or throws with how to build it. */
export function binary(rel, how) {
  const p = join(repoDir, rel);
  if (!existsSync(p)) throw new Error(`${p} is missing; build it with: ${how}`);
  return p;
}

/**
 * harnessRoots asks the command line (`spillscope harnesses`, the same
 * registry the window reads) for each harness's usual session folders under
 * env, in the registry's order: [{harness, path, exists}].
 */
export function harnessRoots(env) {
  const cli = binary('build/bin/spillscope', 'make build/bin/spillscope');
  const r = spawnSync(cli, ['harnesses'], { encoding: 'utf8', env, timeout: 30000 });
  if (r.status !== 0) throw new Error(`"spillscope harnesses" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`);
  return JSON.parse(r.stdout).harnesses.flatMap((h) => h.roots.map((root) => ({ harness: h.name, path: root.path, exists: root.exists })));
}

export function readJSON(p) {
  return JSON.parse(readFileSync(p, 'utf8'));
}

export function ensureArtifacts() {
  mkdirSync(artifactsDir, { recursive: true });
  return artifactsDir;
}

/** chromiumArgs are the flags this closed network needs (no background traffic). */
export const chromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * openApp starts the dev-tagged app under its own Xvfb with env (DISPLAY is
 * added), serving the built frontend, and opens it in headless Chromium.
 * waitBindings waits until Go answers through window.go.
 */
export async function openApp(env, { viewport = { width: 1440, height: 900 }, waitBindings = true } = {}) {
  const bin = binary('app-dev', 'make app-dev');
  const { display } = await startXvfb();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const app = startGroup(bin, ['-devserver', `localhost:${port}`, '-assetdir', join(repoDir, 'frontend', 'dist')], {
    cwd: repoDir,
    env: { ...env, DISPLAY: display },
  });
  await waitFor(async () => (await fetch(base + '/')).ok, 'the dev server to answer', 60000).catch((e) => {
    throw new Error(e.message + '\napp log:\n' + app.log());
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(base + '/');
  // The bindings arrive after the page script; wait until Go answers.
  if (waitBindings) await waitFor(() => page.evaluate(() => !!window.go?.app?.Sessions), 'the Go bindings', 30000);
  return { app, base, browser, page };
}

/**
 * noCJKFonts writes a fontconfig file that offers DejaVu alone (no CJK font),
 * for control runs that must see Chinese drawn as boxes: set FONTCONFIG_FILE
 * to the path it returns.
 */
export function noCJKFonts() {
  const dir = mkdtempSync(join(tmpdir(), 'spillscope-fonts-'));
  const file = join(dir, 'fonts.conf');
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>/usr/share/fonts/truetype/dejavu</dir>\n  <cachedir>${dir}/cache</cachedir>\n</fontconfig>\n`,
  );
  return file;
}

/**
 * generateSample writes the bundled sample corpus to dir with the built CLI;
 * it returns "" or why it could not (for a suite's skip reason).
 */
export function generateSample(dir) {
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) return `${cli} is missing (build it with: make build/bin/spillscope)`;
  const r = spawnSync(cli, ['sample', '--out', dir], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) return `"spillscope sample" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
  return '';
}

/**
 * homeEnv is the app's environment in a temporary home (from tempHome): its
 * HOME, config and data folders there, reading the session folders roots.
 */
export function homeEnv(home, roots) {
  return {
    ...process.env,
    HOME: join(home, 'home'),
    SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
    SPILLSCOPE_DATA_DIR: join(home, 'data'),
    SPILLSCOPE_ROOTS: roots.join(':'),
  };
}

/**
 * indexNow indexes through the window's "Index now" and waits until the
 * index has finished (ms: how long that may take).
 */
export async function indexNow(page, ms) {
  await page.getByTestId('nav-sessions').click();
  await page.getByTestId('index-start').click();
  await page.getByTestId('session-row').first().waitFor({ timeout: 60000 });
  await waitFor(async () => (await page.getByTestId('index-panel').getAttribute('data-running')) === 'false', 'indexing to finish', ms);
}
