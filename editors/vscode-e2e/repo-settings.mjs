// A repository's .vscode/settings.json cannot choose wavehooks' server, wave home or trust, in a real VS Code
// (code-server 4.100.3, VS Code 1.100.3) with VS Code's own workspace trust given. The workspace sets
// wavehooks.serverPath to a program of its own, wavehooks.waveHome to a directory of its own and
// wavehooks.trustWorkspaceHooks to true, and ships a hook of its own; none of the three may take effect.
// Usage: node repo-settings.mjs --vsix wavehooks-linux-x64.vsix --agent test-agent.vsix --chromium /usr/bin/chromium
// Prints one "ok"/"not ok" line per check and then "N passed, N failed"; exits 1 when a check failed. See README.md.
import { spawn, execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    vsix: { type: 'string' },
    agent: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
  },
});
if (!args.vsix || !args.agent) {
  console.error('usage: node repo-settings.mjs --vsix FILE --agent FILE [--chromium FILE]');
  process.exit(2);
}
const codeServer = join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const STEP_TIMEOUT = 90_000; // 2 cores, shared with other test runs
const AGENT_TIMEOUT = 30_000;

// --- a fresh user, extensions dir, the user's wave home, and the repository -----------------------------------
const tmp = mkdtempSync(join(tmpdir(), 'wavehooks-vscode-e2e-repo-'));
const dirs = {
  home: join(tmp, 'home'),
  userData: join(tmp, 'user-data'),
  extensions: join(tmp, 'extensions'),
  waveHome: join(tmp, 'wave-home'),
  workspace: join(tmp, 'workspace'),
  markers: join(tmp, 'markers'),
  run: join(tmp, 'run'),
  tmp: join(tmp, 'tmp'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const configFile = join(tmp, 'code-server.yaml');
writeFileSync(configFile, 'auth: none\ndisable-telemetry: true\ndisable-update-check: true\n');
mkdirSync(join(dirs.userData, 'User'), { recursive: true });
// The user's settings: their wave home; no serverPath (the package's own server runs); no trust.
writeFileSync(
  join(dirs.userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      'wavehooks.waveHome': dirs.waveHome,
      'security.workspace.trust.enabled': false, // VS Code's own workspace trust: given
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

const marker = (name) => join(dirs.markers, name);
/** A PreToolUse hook (real sh reading its stdin with jq) that records the command it saw in a marker. */
const recorder = (name, answer) =>
  `#!/bin/sh\njq -r '.tool_input.command // empty' > '${marker(name)}'\n${answer}\n`;
function hooksFile(file, script) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: script }] }] } }, null, 2),
  );
}
function executable(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o755 });
  return file;
}

// The user's own hook: denies with a reason of its own.
hooksFile(
  join(dirs.waveHome, 'settings.json'),
  executable(join(dirs.waveHome, 'hooks', 'user-guard.sh'), recorder('user-hook', 'echo "denied by the user\'s own hook" >&2; exit 2')),
);
// The repository: its own hook, its own "wave home" with an allowing hook, its own "server", and the three settings.
const ws = dirs.workspace;
hooksFile(join(ws, '.wave', 'settings.json'), executable(join(ws, '.wave', 'hook.sh'), recorder('project-hook', 'exit 0')));
const repoHome = join(ws, 'tools', 'wave-home');
hooksFile(join(repoHome, 'settings.json'), executable(join(repoHome, 'allow.sh'), recorder('repo-wave-home-hook', 'exit 0')));
const repoServer = executable(join(ws, 'tools', 'wavehooks'), `#!/bin/sh\ntouch '${marker('repo-server')}'\nexit 1\n`);
mkdirSync(join(ws, '.vscode'));
writeFileSync(
  join(ws, '.vscode', 'settings.json'),
  JSON.stringify({ 'wavehooks.serverPath': repoServer, 'wavehooks.waveHome': repoHome, 'wavehooks.trustWorkspaceHooks': true }, null, 2),
);
writeFileSync(join(ws, 'README.md'), '# a repository whose .vscode/settings.json tries to choose wavehooks\' server, wave home and trust\n');

const env = {
  ...process.env,
  HOME: dirs.home,
  XDG_CONFIG_HOME: join(dirs.home, '.config'),
  XDG_DATA_HOME: join(dirs.home, '.local/share'),
  XDG_RUNTIME_DIR: dirs.run,
  TMPDIR: dirs.tmp,
};
delete env.WAVE_HOME;
const hasServer = (dir) => {
  try {
    accessSync(join(dir, 'wavehooks'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
env.PATH = (env.PATH ?? '').split(delimiter).filter((d) => d && !hasServer(d)).join(delimiter);
const common = ['--config', configFile, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];

// --- checks ---------------------------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
async function check(name, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    passed++;
    console.log(`ok - ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
    return true;
  } catch (err) {
    failed++;
    console.log(`not ok - ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${String(err?.message ?? err).split('\n').slice(0, 6).join('\n    ')}`);
    return false;
  }
}
class Stop extends Error {}
const flat = (s) => s.replace(/\s+/g, ' ').trim();
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
/** The "Wave Hooks Server" channel's log file, once it has a line matching re (VS Code writes logs in batches). */
async function serverLogWith(re) {
  let text = '';
  for (const deadline = Date.now() + STEP_TIMEOUT; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const file = walk(join(dirs.userData, 'logs')).find((f) => f.endsWith('Wave Hooks Server.log'));
    text = file ? readFileSync(file, 'utf8') : '';
    if (re.test(text)) return text;
  }
  throw new Error(`the Wave Hooks Server log has no line matching ${re}:\n${text}`);
}

setTimeout(() => {
  console.log('not ok - the run took longer than 10 minutes');
  if (server?.pid) try { process.kill(-server.pid, 'SIGKILL'); } catch {}
  process.exit(1);
}, 600_000).unref();

let server;
let serverLog = '';
let browser;
let page;
try {
  const installed = await check('code-server installs wavehooks-linux-x64.vsix and the test agent', async () => {
    execFileSync(process.execPath, [codeServer, ...common, '--install-extension', args.vsix, '--install-extension', args.agent], {
      env,
      encoding: 'utf8',
      timeout: STEP_TIMEOUT,
    });
    const list = execFileSync(process.execPath, [codeServer, ...common, '--list-extensions'], { env, encoding: 'utf8', timeout: STEP_TIMEOUT });
    for (const id of ['wavehooks.wavehooks', 'wavehooks-e2e.test-agent']) {
      if (!list.split('\n').includes(id)) throw new Error(`${id} is not in --list-extensions:\n${list}`);
    }
  });
  if (!installed) throw new Stop();

  const port = await new Promise((resolve, reject) => {
    server = spawn(process.execPath, [codeServer, ...common, '--bind-addr', '127.0.0.1:0', '--disable-workspace-trust', '--ignore-last-opened', ws], {
      env,
      detached: true,
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
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);

  const waveItem = page.locator('.statusbar-item', { hasText: /^\s*Wave\b/ });
  const statusBarDump = async () =>
    JSON.stringify(await page.locator('.statusbar-item').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))));
  const toastsDump = async () =>
    JSON.stringify(
      await page
        .locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item')
        .evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim())),
    );

  const started = await check('the workbench opens the repository and the extension\'s server runs (the "Wave" item with the zap icon)', async () => {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).waitFor();
    await waveItem
      .filter({ has: page.locator('.codicon-zap') })
      .first()
      .waitFor()
      .catch(async (err) => {
        throw new Error(`${err.message.split('\n')[0]}; the status bar has: ${await statusBarDump()}`);
      });
    return `"${flat(await waveItem.first().innerText())}"`;
  });
  if (!started) throw new Stop();

  await check('wavehooks.serverPath from .vscode/settings.json is not used: the server the package carries runs, the repository\'s program never starts', async () => {
    const log = await serverLogWith(/starting the server \S+ \((bundled with the extension|from wavehooks\.serverPath|from PATH)\)/);
    const m = /starting the server (\S+) \(([^)]*)\)/.exec(log);
    if (m[2] !== 'bundled with the extension' || !m[1].startsWith(join(dirs.extensions, 'wavehooks.wavehooks-'))) {
      throw new Error(`the server that started: ${m[0]}`);
    }
    if (existsSync(marker('repo-server'))) throw new Error(`the repository's ${repoServer} ran`);
    // VS Code 1.100 drops a workspace value of a "machine" setting before the extension can see it; an older VS
    // Code that passed it on would make the extension log an "ignored" line: reported, not required.
    const ignored = log.split('\n').filter((l) => /is set in .* ignored, only your user settings choose it/.test(l)).length;
    return `${m[0].slice(m[0].indexOf('server/') - 1)}; ${ignored} "ignored" line(s) in the server log`;
  });

  /**
   * A notification whose text matches re: a toast, or (toasts that are not errors hide by themselves after some
   * seconds) an entry of the notification center, where the user then looks. Returns its text and buttons.
   */
  async function notification(re) {
    const items = '.notifications-toasts .notification-list-item, .notifications-center .notification-list-item';
    const item = page.locator(items).filter({ hasText: re }).first();
    let opened = false;
    try {
      await item.waitFor({ timeout: 10_000 });
    } catch {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input[type="text"]');
      await input.waitFor();
      await input.fill('>Notifications: Show Notifications');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Notifications: Show Notifications' }).first().waitFor();
      await page.keyboard.press('Enter');
      opened = true;
    }
    await item.waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${err.message.split('\n')[0]}; the notifications: ${await toastsDump()}`);
    });
    const text = flat(await item.locator('.notification-list-item-message').innerText());
    const buttons = await item.locator('.monaco-button').allInnerTexts();
    if (opened) {
      await page.keyboard.press('Escape');
      await page.locator('.notifications-center').waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    }
    return { text, buttons };
  }

  await check('wavehooks.trustWorkspaceHooks from .vscode/settings.json is not used: the trust prompt asks, and the status bar shows the lock', async () => {
    const prompt = await notification(/take effect only once you trust it/);
    if (!prompt.buttons.includes('Trust') || !prompt.buttons.includes('Not now')) throw new Error(`the prompt's buttons: ${JSON.stringify(prompt.buttons)}`);
    await waveItem.filter({ has: page.locator('.codicon-lock') }).first().waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${err.message.split('\n')[0]}; the status bar has: ${await statusBarDump()}`);
    });
    const log = await serverLogWith(/workspaceTrusted=(true|false)/);
    if (!/workspaceTrusted=false/.test(log)) throw new Error(`the server says: ${/wavehooks ready.*/.exec(log)?.[0]}`);
    return `"${prompt.text.slice(0, 100)}…" ${JSON.stringify(prompt.buttons)}`;
  });

  await check('wavehooks.waveHome from .vscode/settings.json is not used: a tool call meets the user\'s own hook, not the repository\'s, and the untrusted project hook does not run', async () => {
    const agentItem = page.locator('.statusbar-item', { hasText: /Test Agent: API ok/ });
    await agentItem.first().waitFor({ timeout: AGENT_TIMEOUT });
    const input = page.locator('.quick-input-widget input[type="text"]');
    await page.keyboard.press('F1');
    await input.waitFor();
    await input.fill('>Test Agent: Run Tool');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Test Agent: Run Tool' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-title', { hasText: 'Test Agent: the tool call the model makes' }).waitFor({ timeout: AGENT_TIMEOUT });
    await input.fill('Bash {"command":"make deploy"}');
    await page.keyboard.press('Enter');
    const { text } = await notification(/agent (result|error) #1:/);
    const m = /agent result #1: (\{.*\})/.exec(text);
    if (!m) throw new Error(`the agent says: ${text}`);
    const r = JSON.parse(m[1]);
    if (r.permission !== 'deny' || !/denied by the user's own hook/.test(r.reason)) throw new Error(`the agent got ${m[1]}`);
    const ran = (name) => (existsSync(marker(name)) ? readFileSync(marker(name), 'utf8').trim() : undefined);
    if (ran('user-hook') !== 'make deploy') throw new Error(`the user's hook saw ${JSON.stringify(ran('user-hook'))}`);
    for (const name of ['repo-wave-home-hook', 'project-hook']) {
      if (ran(name) !== undefined) throw new Error(`${name} ran and saw ${JSON.stringify(ran(name))}`);
    }
    const log = await serverLogWith(/wavehooks ready .*waveHome=\S+/);
    const home = /wavehooks ready .*waveHome=(\S+)/.exec(log)[1];
    if (home !== dirs.waveHome) throw new Error(`the server's wave home is ${home}, want ${dirs.waveHome}`);
    return `${m[0]}; waveHome=${home.slice(tmp.length + 1)}`;
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
    const keep = join(here, '.work', 'last-failure-repo-settings');
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
