// The real desktop window: the production build under Xvfb, found with
// xdotool and photographed with ImageMagick's import. It fails when the window
// never appears or shows only its background (the frontend did not render).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { binary, ensureArtifacts, startGroup, startXvfb, stopAll, tempHome, waitFor } from './harness.mjs';

after(stopAll);

function pixel(png, x, y) {
  const out = execFileSync('convert', [png, '-format', `%[fx:int(255*p{${x},${y}}.r)],%[fx:int(255*p{${x},${y}}.g)],%[fx:int(255*p{${x},${y}}.b)]`, 'info:']).toString();
  return out.trim().split(',').map(Number);
}

test('the production window opens and renders the app', async () => {
  const bin = binary('build/bin/spillscope', 'make build');
  const { display } = await startXvfb();
  const home = tempHome();
  const env = {
    ...process.env,
    DISPLAY: display,
    HOME: join(home, 'home'),
    SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
    SPILLSCOPE_DATA_DIR: join(home, 'data'),
    SPILLSCOPE_ROOTS: join(home, 'roots', 'present'),
  };
  const app = startGroup(bin, [], { env });
  const xenv = { ...process.env, DISPLAY: display };
  const wid = await waitFor(() => {
    try {
      return execFileSync('xdotool', ['search', '--onlyvisible', '--name', '^Spillscope$'], { env: xenv }).toString().trim().split('\n')[0];
    } catch {
      return '';
    }
  }, 'the Spillscope window\napp log:\n' + app.log(), 45000, 300);
  const geometry = execFileSync('xdotool', ['getwindowgeometry', wid], { env: xenv }).toString();
  const shot = join(ensureArtifacts(), 'window.png');
  // The webview paints after the window maps; poll until the sidebar colour shows.
  let last = [];
  await waitFor(() => {
    execFileSync('import', ['-window', wid, shot], { env: xenv });
    last = pixel(shot, 100, 400);
    const [r, g, b] = last;
    return Math.abs(r - 31) < 12 && Math.abs(g - 58) < 12 && Math.abs(b - 95) < 12;
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
