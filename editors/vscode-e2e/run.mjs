// The Wave Hooks extension in code-server, checked through the web UI as a user would see it.
// Usage: node run.mjs --vsix wavehooks.vsix --server /path/to/wavehooks --chromium /usr/bin/chromium
// Prints one "ok"/"not ok" line per check and then "N passed, N failed"; exits 1 when a check failed.
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    vsix: { type: 'string' },
    server: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    screenshot: { type: 'string', default: join(here, '.work', 'code-server.png') },
  },
});
if (!args.vsix || !args.server) {
  console.error('usage: node run.mjs --vsix FILE --server FILE [--chromium FILE] [--screenshot FILE]');
  process.exit(2);
}

const codeServer = join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const STEP_TIMEOUT = 90_000; // generous: 2 cores, shared with other test runs

// --- a fresh user, extensions dir, wave home and workspace --------------------------------------------------
const tmp = mkdtempSync(join(tmpdir(), 'wavehooks-vscode-e2e-'));
const dirs = {
  home: join(tmp, 'home'),
  userData: join(tmp, 'user-data'),
  extensions: join(tmp, 'extensions'),
  waveHome: join(tmp, 'wave-home'),
  workspace: join(tmp, 'workspace'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const configFile = join(tmp, 'code-server.yaml');
writeFileSync(configFile, 'auth: none\ndisable-telemetry: true\ndisable-update-check: true\n');
mkdirSync(join(dirs.userData, 'User'), { recursive: true });
writeFileSync(
  join(dirs.userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      'wavehooks.serverPath': args.server,
      'wavehooks.waveHome': dirs.waveHome,
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'update.mode': 'none',
      'git.enabled': false,
    },
    null,
    2,
  ),
);
mkdirSync(join(dirs.workspace, '.wave'));
const brokenFile = join(dirs.workspace, '.wave', 'settings.local.json');
writeFileSync(brokenFile, '{ "hooks": ');
writeFileSync(join(dirs.workspace, 'README.md'), '# a project with a broken .wave/settings.local.json\n');

const env = { ...process.env, HOME: dirs.home, XDG_CONFIG_HOME: join(dirs.home, '.config'), XDG_DATA_HOME: join(dirs.home, '.local/share') };
delete env.WAVE_HOME;
const common = ['--config', configFile, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];

// --- checks ---------------------------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
async function check(name, fn, { todo } = {}) {
  const t0 = Date.now();
  const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  try {
    const detail = await fn();
    passed++;
    const note = todo ? ' # TODO passes now: make it a normal check' : '';
    console.log(`ok - ${name} (${secs()})${detail ? `: ${detail}` : ''}${note}`);
    return true;
  } catch (err) {
    const msg = String(err?.message ?? err).split('\n').slice(0, 6).join('\n    ');
    if (todo) {
      console.log(`not ok - ${name} # TODO known bug: ${todo} (${secs()}): ${msg}`);
      return true;
    }
    failed++;
    console.log(`not ok - ${name} (${secs()}): ${msg}`);
    return false;
  }
}
class Stop extends Error {} // a check failed that the later checks need

// Never hang: the whole run ends after 15 minutes (a normal run takes well under a minute).
setTimeout(() => {
  console.log('not ok - the run took longer than 15 minutes');
  if (server?.pid) try { process.kill(-server.pid, 'SIGKILL'); } catch {}
  process.exit(1);
}, 900_000).unref();

let server;
let serverLog = '';
let browser;
let page;
try {
  const installed = await check('code-server installs the packaged wavehooks.vsix', async () => {
    const out = execFileSync(process.execPath, [codeServer, ...common, '--install-extension', args.vsix], { env, encoding: 'utf8', timeout: STEP_TIMEOUT });
    const list = execFileSync(process.execPath, [codeServer, ...common, '--list-extensions', '--show-versions'], { env, encoding: 'utf8', timeout: STEP_TIMEOUT });
    if (!/^wavehooks\.wavehooks@\d/m.test(list)) throw new Error(`not in --list-extensions:\n${out}\n${list}`);
    return list.trim().split('\n').find((l) => l.startsWith('wavehooks.'));
  });
  if (!installed) throw new Stop();

  const port = await new Promise((resolve, reject) => {
    server = spawn(process.execPath, [codeServer, ...common, '--bind-addr', '127.0.0.1:0', '--disable-workspace-trust', '--ignore-last-opened', dirs.workspace], {
      env,
      detached: true, // its own process group: the extension host and wavehooks serve end with it
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${serverLog}`)), STEP_TIMEOUT);
    const onData = (chunk) => {
      serverLog += chunk;
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(serverLog);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`code-server exited with ${code}:\n${serverLog}`)));
  });

  browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: ['--no-sandbox'], env });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(STEP_TIMEOUT);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);

  const opened = await check('the workbench opens the workspace', async () => {
    await page.locator('.monaco-workbench .part.statusbar').waitFor();
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).waitFor();
  });
  if (!opened) throw new Stop();

  // The extension's status bar item: "$(zap) Wave…" once the server runs ("$(sync~spin) Wave" while it starts,
  // "$(error) Wave" when it cannot start).
  const waveItem = page.locator('.statusbar-item', { hasText: /^\s*Wave\b/ });
  const statusText = async () => (await waveItem.first().innerText()).replace(/\s+/g, ' ').trim();
  const statusBarDump = async () =>
    JSON.stringify(await page.locator('.statusbar-item').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))));
  const problems = page.locator('.markers-panel');
  const problemRow = problems.locator('.monaco-tl-row', { hasText: 'invalid JSON' });

  const activated = await check('the extension activates: a status bar item "Wave" with the running (zap) icon', async () => {
    await waveItem
      .filter({ has: page.locator('.codicon-zap') })
      .first()
      .waitFor()
      .catch(async (err) => {
        throw new Error(`${err.message.split('\n')[0]}; the status bar has: ${await statusBarDump()}`);
      });
    const text = await statusText();
    if (!text.startsWith('Wave')) throw new Error(`status bar item reads "${text}"`);
    return `"${text}", aria-label "${await waveItem.first().locator('a').first().getAttribute('aria-label')}"`;
  });
  if (!activated) throw new Stop();

  await check('the Problems panel shows the "invalid JSON" error of .wave/settings.local.json', async () => {
    await page.locator('#status\\.problems').click();
    await problems.waitFor();
    await problems.locator('.monaco-tl-row', { hasText: 'settings.local.json' }).first().waitFor();
    await problemRow.first().waitFor();
    if ((await problemRow.first().locator('.codicon-error').count()) === 0) throw new Error('the diagnostic is not shown as an error');
    return (await problemRow.first().innerText()).replace(/\s+/g, ' ').trim();
  });

  // The README promises "⚡ Wave: 7 hooks … with ⚠ n when the settings have problems" from the start: the
  // server announces its hooks (wave/hooksChanged) once initialized. The diagnostic is already in the
  // Problems panel, and the announcement is sent with it, so 10 s is plenty.
  await check(
    'at startup the status bar item counts the hooks and the problems ("Wave: N hooks" with a warning)',
    async () => {
      await waveItem
        .filter({ hasText: /Wave:\s\d+\shooks?/, has: page.locator('.codicon-warning') })
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async () => {
          throw new Error(`the status bar item reads "${await statusText()}"`);
        });
      return `"${await statusText()}"`;
    },
  );

  await check('the command palette lists the Wave Hooks commands', async () => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input[type="text"]');
    await input.waitFor();
    await input.fill('>Wave Hooks:');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const want = [
      'Wave Hooks: Trust Workspace Hooks',
      'Wave Hooks: List Pending Permissions',
      'Wave Hooks: Run a Hook with Sample Input',
      'Wave Hooks: Show Hook Runs',
      'Wave Hooks: Restart Server',
      'Wave Hooks: Show Server Log',
    ];
    for (const title of want) await rows.filter({ hasText: title }).first().waitFor();
    const labels = await rows.evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? e.textContent).split(',')[0]));
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
    return labels.join('; ');
  });

  await check('"Wave Hooks: Show Server Log" shows the server\'s log in the "Wave Hooks Server" output', async () => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input[type="text"]');
    await input.waitFor();
    await input.fill('>Wave Hooks: Show Server Log');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Wave Hooks: Show Server Log' }).first().waitFor();
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
    const panel = page.locator('.part.panel');
    await panel.locator('.monaco-select-box, .monaco-action-bar', { hasText: 'Wave Hooks Server' }).first().waitFor();
    const line = panel.locator('.view-line', { hasText: 'wavehooks ready' }).first();
    await line.waitFor();
    return (await line.innerText()).replace(/\s+/g, ' ').slice(0, 140);
  });

  await check('a change on disk that leaves the file broken: status bar "Wave: N hooks" with a warning, the error stays', async () => {
    writeFileSync(brokenFile, '{ "hooks": { "PreToolUse": [ }\n');
    await waveItem
      .filter({ hasText: /Wave:\s\d+\shooks?/, has: page.locator('.codicon-warning') })
      .first()
      .waitFor()
      .catch(async (err) => {
        throw new Error(`${err.message.split('\n')[0]}; the status bar item reads "${await statusText()}"`);
      });
    await page.locator('#status\\.problems').click();
    await problems.waitFor();
    await problemRow.first().waitFor();
    return `"${await statusText()}"; ${(await problemRow.first().innerText()).replace(/\s+/g, ' ').trim()}`;
  });

  await page.screenshot({ path: args.screenshot });
  console.log(`# screenshot: ${args.screenshot}`);

  await check('fixing the file on disk clears the error (Problems panel) and the warning (status bar)', async () => {
    writeFileSync(brokenFile, '{ "hooks": {} }\n');
    await problems.getByText('No problems have been detected in the workspace.').waitFor();
    await waveItem
      .filter({ hasText: /Wave:\s\d+\shooks?/, hasNot: page.locator('.codicon-warning') })
      .first()
      .waitFor();
    return `"${await statusText()}"`;
  });
} catch (err) {
  if (err instanceof Stop) {
    console.log('# the remaining checks need the failed one: not run');
  } else {
    failed++;
    console.log(`not ok - the test harness: ${err?.stack ?? err}`);
  }
} finally {
  if (failed > 0) {
    const keep = join(here, '.work', 'last-failure');
    rmSync(keep, { recursive: true, force: true });
    mkdirSync(keep, { recursive: true });
    if (page) await page.screenshot({ path: join(keep, 'failure.png') }).catch(() => {});
    writeFileSync(join(keep, 'code-server.log'), serverLog);
    cpSync(join(dirs.userData, 'logs'), join(keep, 'logs'), { recursive: true, force: true });
    console.log(`# the failure's screenshot, code-server's log and VS Code's logs are in ${keep}`);
    for (const f of walk(join(keep, 'logs')).filter((f) => /exthost|wavehooks|Wave/i.test(f))) {
      console.log(`# --- ${f.slice(keep.length + 1)} (end)\n${readFileSync(f, 'utf8').split('\n').slice(-15).join('\n')}`);
    }
  }
  await browser?.close().catch(() => {});
  if (server?.pid && server.exitCode === null && server.signalCode === null) {
    // code-server, its extension host and wavehooks serve share the process group started above.
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {}
    const timer = setTimeout(() => {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {}
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);

function walk(dir) {
  try {
    return readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
  } catch {
    return [];
  }
}
