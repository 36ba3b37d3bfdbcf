// The real desktop window: the production build under Xvfb, found with
// xdotool and photographed with ImageMagick's import. It fails when the window
// never appears or shows only its background (the frontend did not render).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binary, ensureArtifacts, noCJKFonts, startGroup, startXvfb, stopAll, tempHome, waitFor } from './harness.mjs';

after(stopAll);

function pixel(png, x, y) {
  const out = execFileSync('convert', [png, '-format', `%[fx:int(255*p{${x},${y}}.r)],%[fx:int(255*p{${x},${y}}.g)],%[fx:int(255*p{${x},${y}}.b)]`, 'info:']).toString();
  return out.trim().split(',').map(Number);
}

/**
 * openWindow starts the production build under its own Xvfb with a fresh
 * home (before(home) may write into it first; extraEnv is added) and waits
 * for its window; it returns the window id, the app and the X environment.
 */
async function openWindow({ before = () => {}, extraEnv = {} } = {}) {
  const bin = binary('build/bin/spillscope', 'make build');
  const { display } = await startXvfb();
  const home = tempHome();
  before(home);
  // LANG=C, as on a fresh server or a CI runner: WebKitGTK then reports
  // navigator.language "C", which Intl rejects (lib/locale.ts); the window
  // must paint all the same.
  const env = {
    ...process.env,
    LANG: 'C',
    ...extraEnv,
    DISPLAY: display,
    HOME: join(home, 'home'),
    SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
    SPILLSCOPE_DATA_DIR: join(home, 'data'),
    SPILLSCOPE_ROOTS: join(home, 'roots', 'present'),
  };
  delete env.LC_ALL;
  delete env.LANGUAGE;
  const app = startGroup(bin, [], { env });
  const xenv = { ...process.env, DISPLAY: display };
  const wid = await waitFor(() => {
    try {
      return execFileSync('xdotool', ['search', '--onlyvisible', '--name', '^Spillscope$'], { env: xenv }).toString().trim().split('\n')[0];
    } catch {
      return '';
    }
  }, 'the Spillscope window\napp log:\n' + app.log(), 45000, 300);
  return { wid, app, xenv };
}

/** sidebarPainted: the webview has painted the sidebar's colour. */
function sidebarPainted(shot) {
  const [r, g, b] = pixel(shot, 100, 400);
  return Math.abs(r - 31) < 12 && Math.abs(g - 58) < 12 && Math.abs(b - 95) < 12;
}

test('the production window opens and renders the app', async () => {
  const { wid, app, xenv } = await openWindow();
  const geometry = execFileSync('xdotool', ['getwindowgeometry', wid], { env: xenv }).toString();
  const shot = join(ensureArtifacts(), 'window.png');
  // The webview paints after the window maps; poll until the sidebar colour shows.
  let last = [];
  await waitFor(() => {
    execFileSync('import', ['-window', wid, shot], { env: xenv });
    last = pixel(shot, 100, 400);
    return sidebarPainted(shot);
  }, `the sidebar to paint (last pixel ${last}, ${geometry})\napp log:\n${app.log()}`, 45000, 700);
  const colours = Number(execFileSync('convert', [shot, '-format', '%k', 'info:']).toString());
  assert.ok(colours > 50, `window looks blank: only ${colours} colours in ${shot}`);
  const size = execFileSync('identify', ['-format', '%w %h', shot]).toString().split(' ').map(Number);
  assert.ok(size[0] >= 900 && size[1] >= 560, `window too small: ${size}`);
  console.log(`window ${wid}: ${colours} colours, screenshot at ${shot}`);
});

test('a subcommand runs headless: no display, no GTK', () => {
  const bin = binary('build/bin/spillscope', 'make build');
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const out = execFileSync(bin, ['version'], { env }).toString().trim();
  assert.match(out, /^\d+\.\d+\.\d+/);
  const help = execFileSync(bin, ['-h'], { env }).toString();
  assert.match(help, /retain/);
});

/**
 * shootChinese opens the production window with Chinese saved as the
 * language and photographs it once the sidebar has painted and the picture
 * holds still; extraEnv can take fonts away.
 */
async function shootChinese(name, extraEnv = {}) {
  const { wid, app, xenv } = await openWindow({
    extraEnv,
    before: (home) => {
      mkdirSync(join(home, 'config'), { recursive: true });
      writeFileSync(join(home, 'config', 'settings.json'), JSON.stringify({ language: 'zh' }));
    },
  });
  const shot = join(ensureArtifacts(), `window-zh-${name}.png`);
  const nav = join(ensureArtifacts(), `window-zh-${name}-nav.png`);
  let before = '';
  await waitFor(() => {
    execFileSync('import', ['-window', wid, shot], { env: xenv });
    if (!sidebarPainted(shot)) return false;
    // The sidebar's labels (the nav list), once they stop changing.
    execFileSync('convert', [shot, '-crop', '190x230+12+92', '+repage', nav]);
    const now = execFileSync('identify', ['-format', '%#', nav]).toString();
    const still = now === before;
    before = now;
    return still;
  }, `the Chinese window to paint and hold still\napp log:\n${app.log()}`, 45000, 900);
  process.kill(-app.child.pid, 'SIGTERM');
  return nav;
}

// Chinese must be drawn with a CJK font in the real WebKitGTK window. The
// same window photographed where fontconfig offers no CJK font draws boxes;
// the two pictures of the sidebar's Chinese labels must differ, which they
// cannot if the machine itself has no CJK font (both would be boxes).
test('the production window draws Chinese with a CJK font, not boxes', async () => {
  const real = await shootChinese('fonts');
  const boxes = await shootChinese('no-cjk-font', { FONTCONFIG_FILE: noCJKFonts() });
  const r = spawnSync('compare', ['-metric', 'AE', real, boxes, 'null:'], { encoding: 'utf8' });
  const differing = Number((r.stderr || '').trim().split(/\s/)[0]);
  assert.ok(Number.isFinite(differing), `compare failed: ${r.stderr}`);
  assert.ok(differing > 500, `the Chinese labels look the same with and without a CJK font (${differing} pixels differ): boxes; see ${real} and ${boxes}`);
  const colours = Number(execFileSync('convert', [real, '-format', '%k', 'info:']).toString());
  assert.ok(colours > 8, `the labels' area is nearly uniform (${colours} colours): ${real}`);
  console.log(`Chinese labels: ${differing} pixels differ from the no-CJK-font render`);
});
