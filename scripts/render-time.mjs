// Time to first render of an HTML file in headless Chromium, measured by the browser itself over the DevTools
// protocol: first-contentful-paint and DOMContentLoaded, from navigation start, median of several loads.
//   node --experimental-websocket scripts/render-time.mjs FILE.html [LOADS]
// Prints: "fcp_ms=… dcl_ms=… load_ms=… (median of N)". Chromium listens on loopback only, on a port of its choosing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const file = resolve(process.argv[2] ?? '');
const loads = Number(process.argv[3] ?? 3);
if (!existsSync(file)) { console.error(`render-time: no such file: ${file}`); process.exit(2); }
const browser = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
if (!browser) { console.error('render-time: chromium not installed'); process.exit(2); }

const profile = mkdtempSync(join(tmpdir(), 'driftfix-render-'));
const chrome = spawn(browser, ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-address=127.0.0.1',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: 'ignore' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function devtoolsPort() {
  for (let i = 0; i < 200; i++) {
    try { return Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]); } catch { await sleep(50); }
  }
  throw new Error('chromium did not open its DevTools port');
}

try {
  const port = await devtoolsPort();
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((t) => t.type === 'page');
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((ok, fail) => { socket.onopen = ok; socket.onerror = fail; });
  let id = 0;
  const pending = new Map();
  const events = [];
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.id && pending.has(data.id)) { pending.get(data.id)(data.result); pending.delete(data.id); } else events.push(data.method);
  };
  const send = (method, params = {}) => new Promise((ok) => { id += 1; pending.set(id, ok); socket.send(JSON.stringify({ id, method, params })); });
  await send('Page.enable');
  const results = [];
  for (let i = 0; i < loads; i++) {
    events.length = 0;
    await send('Page.navigate', { url: 'file://' + file });
    for (let t = 0; t < 600 && !events.includes('Page.loadEventFired'); t++) await sleep(50);
    await sleep(300);  // let the first paint entries settle
    const value = await send('Runtime.evaluate', { returnByValue: true, expression: `(() => {
      const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
      const nav = performance.getEntriesByType('navigation')[0];
      return { fcp: paint ? paint.startTime : null, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd };
    })()` });
    results.push(value.result.value);
  }
  const median = (key) => {
    const values = results.map((r) => r[key]).filter((v) => v !== null).sort((a, b) => a - b);
    return values.length ? values[values.length >> 1].toFixed(0) : 'n/a';
  };
  console.log(`fcp_ms=${median('fcp')} dcl_ms=${median('dcl')} load_ms=${median('load')} (median of ${loads})`);
  socket.close();
} finally {
  chrome.kill('SIGKILL');
  await sleep(200);
  rmSync(profile, { recursive: true, force: true });
}
