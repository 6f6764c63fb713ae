// The Wave Hooks extension in code-server, checked through the web UI as a user would see it.
// Usage: node run.mjs --vsix wavehooks-linux-x64.vsix --agent test-agent.vsix --chromium /usr/bin/chromium
// The vsix is the platform-specific package `make dist` builds: it carries the server, and this test makes sure
// that is the one that runs (no wavehooks on PATH, no wavehooks.serverPath).
// Prints one "ok"/"not ok" line per check and then "N passed, N failed"; exits 1 when a check failed.
import { spawn, execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    vsix: { type: 'string' },
    agent: { type: 'string' }, // the test agent extension (agent/, packaged by run.sh)
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    screenshot: { type: 'string', default: join(here, '.work', 'code-server.png') },
  },
});
if (!args.vsix || !args.agent) {
  console.error('usage: node run.mjs --vsix FILE --agent FILE [--chromium FILE] [--screenshot FILE]');
  process.exit(2);
}

const codeServer = join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const STEP_TIMEOUT = 90_000; // generous: 2 cores, shared with other test runs
const AGENT_TIMEOUT = 30_000; // the agent's checks: the workbench and the server already run

// --- a fresh user, extensions dir, wave home and workspace --------------------------------------------------
const tmp = mkdtempSync(join(tmpdir(), 'wavehooks-vscode-e2e-'));
const dirs = {
  home: join(tmp, 'home'),
  userData: join(tmp, 'user-data'),
  extensions: join(tmp, 'extensions'),
  waveHome: join(tmp, 'wave-home'),
  workspace: join(tmp, 'workspace'),
  // code-server's IPC sockets (vscode-ipc-*.sock) go to $XDG_RUNTIME_DIR, else the temp dir: both in here, so
  // that the run leaves nothing in /tmp.
  run: join(tmp, 'run'),
  tmp: join(tmp, 'tmp'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const configFile = join(tmp, 'code-server.yaml');
writeFileSync(configFile, 'auth: none\ndisable-telemetry: true\ndisable-update-check: true\n');
mkdirSync(join(dirs.userData, 'User'), { recursive: true });
const userSettingsFile = join(dirs.userData, 'User', 'settings.json');
// No wavehooks.serverPath: the extension must find the server its package carries.
const userSettings = {
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
};
writeFileSync(userSettingsFile, JSON.stringify(userSettings, null, 2));

// The user's hooks ($WAVE_HOME/settings.json): real sh scripts that read their stdin with jq. A PreToolUse hook
// denies `rm -rf` (exit 2, the reason on stderr); another asks the user before every Write (JSON "ask").
const hooksDir = join(dirs.waveHome, 'hooks');
mkdirSync(hooksDir);
const denyRm = join(hooksDir, 'deny-rm.sh');
writeFileSync(
  denyRm,
  `#!/bin/sh
# PreToolUse (Bash): denies recursive deletes (exit 2, the reason on stderr).
cmd=$(jq -r '.tool_input.command // empty')
case "$cmd" in
  *"rm -rf"*) echo "Refusing to run '$cmd': recursive delete is blocked by policy" >&2; exit 2 ;;
esac
exit 0
`,
  { mode: 0o755 },
);
const askWrite = join(hooksDir, 'ask-write.sh');
writeFileSync(
  askWrite,
  `#!/bin/sh
# PreToolUse (Write): asks the user first (JSON permissionDecision "ask").
path=$(jq -r '.tool_input.file_path // empty')
jq -n --arg p "$path" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask",
  permissionDecisionReason: ("the agent wants to write " + $p)}}'
`,
  { mode: 0o755 },
);
writeFileSync(
  join(dirs.waveHome, 'settings.json'),
  JSON.stringify(
    {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: denyRm }] },
          { matcher: 'Write', hooks: [{ type: 'command', command: askWrite }] },
          // A prompt hook: the test agent's stand-in model evaluates it (wave.onEvaluateHook).
          { matcher: 'Read', hooks: [{ type: 'prompt', prompt: 'May the agent read this file? $ARGUMENTS' }] },
        ],
      },
    },
    null,
    2,
  ),
);

mkdirSync(join(dirs.workspace, '.wave'));
const brokenFile = join(dirs.workspace, '.wave', 'settings.local.json');
writeFileSync(brokenFile, '{ "hooks": ');
writeFileSync(join(dirs.workspace, 'README.md'), '# a project with a broken .wave/settings.local.json\n');

const env = {
  ...process.env,
  HOME: dirs.home,
  XDG_CONFIG_HOME: join(dirs.home, '.config'),
  XDG_DATA_HOME: join(dirs.home, '.local/share'),
  XDG_RUNTIME_DIR: dirs.run,
  TMPDIR: dirs.tmp,
};
delete env.WAVE_HOME;
// Nor any wavehooks on PATH: directories that hold one are left out of code-server's PATH.
const hasServer = (dir) => {
  try {
    accessSync(join(dir, 'wavehooks'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const leftOut = (env.PATH ?? '').split(delimiter).filter((d) => d && hasServer(d));
env.PATH = (env.PATH ?? '').split(delimiter).filter((d) => d && !hasServer(d)).join(delimiter);
if (leftOut.length) console.log(`# left out of PATH (they hold a wavehooks): ${leftOut.join(', ')}`);
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
  const installed = await check('code-server installs the linux-x64 package wavehooks-linux-x64.vsix (it carries the server) and the test agent beside it', async () => {
    const out = execFileSync(process.execPath, [codeServer, ...common, '--install-extension', args.vsix, '--install-extension', args.agent], {
      env,
      encoding: 'utf8',
      timeout: STEP_TIMEOUT,
    });
    const list = execFileSync(process.execPath, [codeServer, ...common, '--list-extensions', '--show-versions'], { env, encoding: 'utf8', timeout: STEP_TIMEOUT });
    for (const id of ['wavehooks.wavehooks', 'wavehooks-e2e.test-agent']) {
      if (!new RegExp(`^${id.replace('.', '\\.')}@\\d`, 'm').test(list)) throw new Error(`${id} is not in --list-extensions:\n${out}\n${list}`);
    }
    // The package carries its server; whether the install kept its executable bit is reported (the extension
    // restores a lost one, so either way the server must start below).
    const dir = readdirSync(dirs.extensions).find((d) => d.startsWith('wavehooks.wavehooks-'));
    const bundled = dir && join(dirs.extensions, dir, 'server', 'wavehooks');
    let mode;
    try {
      mode = (statSync(bundled).mode & 0o777).toString(8);
    } catch {
      throw new Error(`the installed extension (${dir}) has no server/wavehooks`);
    }
    return `${list.trim().split('\n').join(', ')}; ${dir}/server/wavehooks installed with mode ${mode}`;
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

  await check('"Wave Hooks: Show Server Log" shows the server\'s log in the "Wave Hooks Server" output: the bundled server runs', async () => {
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
    // The server that runs is the one the package carries: nothing else is on PATH or in the settings. The
    // output view wraps the long line, so its full text is read from the channel's log file.
    await panel.locator('.view-line', { hasText: 'bundled with the extension' }).first().waitFor();
    // (VS Code writes log files in batches: wait for the line to get there.)
    let logFile, logText, bundled;
    for (const deadline = Date.now() + STEP_TIMEOUT; ; await new Promise((r) => setTimeout(r, 200))) {
      logFile = walk(join(dirs.userData, 'logs')).find((f) => f.endsWith('Wave Hooks Server.log'));
      logText = logFile ? readFileSync(logFile, 'utf8') : '';
      bundled = /starting the server (\S+) \(bundled with the extension\)/.exec(logText);
      if (bundled || Date.now() > deadline) break;
    }
    if (!bundled || !bundled[1].startsWith(join(dirs.extensions, 'wavehooks.wavehooks-')) || !bundled[1].endsWith('/server/wavehooks')) {
      throw new Error(`the server did not start from the extension's own server/wavehooks: ${logFile ?? 'no Wave Hooks Server.log'}:\n${logText}`);
    }
    return `${bundled[1].slice(dirs.extensions.length + 1)} (bundled with the extension); ${(await line.innerText()).replace(/\s+/g, ' ').slice(0, 100)}`;
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

  await check('fixing the file on disk clears the error (Problems panel) and the warning (status bar)', async () => {
    writeFileSync(brokenFile, '{ "hooks": {} }\n');
    await problems.getByText('No problems have been detected in the workspace.').waitFor();
    await waveItem
      .filter({ hasText: /Wave:\s\d+\shooks?/, hasNot: page.locator('.codicon-warning') })
      .first()
      .waitFor();
    return `"${await statusText()}"`;
  });

  // --- the test agent (agent/): an extension that drives wavehooks through its exported API ---------------------
  const quickInput = page.locator('.quick-input-widget');
  const quickInputBox = quickInput.locator('input[type="text"]');
  const toasts = page.locator('.notifications-toasts .notification-toast');
  const toastsDump = async () =>
    JSON.stringify(
      await page
        .locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item')
        .evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim())),
    );
  const agentItem = page.locator('.statusbar-item', { hasText: /Test Agent:/ });
  const pendingItem = page.locator('.statusbar-item', { hasText: /\d+ pending/ });
  const oneLine = (err) => String(err?.message ?? err).split('\n')[0];
  const askMessage = 'Hook asks: allow Write? the agent wants to write';

  /** Runs a command from the palette (F1) as a user does: type its title, pick it. */
  async function runCommand(title) {
    await page.keyboard.press('F1');
    await quickInputBox.waitFor();
    await quickInputBox.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
    await page.keyboard.press('Enter');
  }

  /** "Test Agent: Run Tool", then the tool call typed into the agent's input box. */
  async function agentRunsTool(call) {
    await runCommand('Test Agent: Run Tool');
    await quickInput.locator('.quick-input-title', { hasText: 'Test Agent: the tool call the model makes' }).waitFor({ timeout: AGENT_TIMEOUT });
    await quickInputBox.fill(call);
    await page.keyboard.press('Enter');
    await quickInput.waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
  }

  /** What the agent got back from wave.preToolUse for its nth tool call (its information message). */
  async function agentResult(n) {
    // The agent shows each result as an information message. It is a toast, unless VS Code shows none then (while
    // the notification center is open, or when it chose to hide toasts): the center lists every message, so after
    // a while the user looks there.
    const items = '.notifications-toasts .notification-list-item, .notifications-center .notification-list-item';
    const toast = page.locator(items).filter({ hasText: new RegExp(`agent (result|error) #${n}:`) }).first();
    let opened = false;
    try {
      await toast.waitFor({ timeout: 10_000 });
    } catch {
      await runCommand('Notifications: Show Notifications');
      opened = true;
    }
    await toast.waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${oneLine(err)}; the notifications: ${await toastsDump()}`);
    });
    const text = (await toast.locator('.notification-list-item-message').innerText()).replace(/\s+/g, ' ').trim();
    if (opened) {
      await page.keyboard.press('Escape');
      await page.locator('.notifications-center').waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    }
    const m = new RegExp(`agent result #${n}: (\\{.*\\})`).exec(text);
    if (!m) throw new Error(`the agent says: ${text}`);
    return { ...JSON.parse(m[1]), text: m[0] };
  }

  function expect(result, want) {
    for (const [k, v] of Object.entries(want)) {
      const ok = v instanceof RegExp ? v.test(result[k]) : result[k] === v;
      if (!ok) throw new Error(`the agent got ${k} = ${JSON.stringify(result[k])}, want ${v}: ${result.text}`);
    }
  }

  const agentReady = await check('the test agent activates after wavehooks and holds its API (status bar "Test Agent: API ok")', async () => {
    const item = agentItem.filter({ hasText: 'askStyle' }).first();
    await item.waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${oneLine(err)}; the status bar has: ${await statusBarDump()}`);
    });
    const text = (await item.innerText()).replace(/\s+/g, ' ').trim();
    if (!text.includes('Test Agent: API ok, askStyle modal')) throw new Error(`the agent's item reads "${text}"`);
    return `"${text}"`;
  });
  if (!agentReady) throw new Stop();

  await check('a denied tool: the agent runs Bash `rm -rf /`, the PreToolUse hook exits 2, the agent gets "deny" with its reason', async () => {
    await agentRunsTool('Bash {"command":"rm -rf /"}');
    const r = await agentResult(1);
    expect(r, { tool: 'Bash', permission: 'deny', reason: /Refusing to run 'rm -rf \/': recursive delete is blocked by policy/, asked: false });
    return r.text;
  });

  await check('an ask (askStyle "modal"): a dialog "Hook asks: allow Write? …" with Allow / Deny, "1 pending" in the status bar; Allow → the agent gets "allow"', async () => {
    const file = join(dirs.workspace, 'notes.txt');
    await agentRunsTool(`Write ${JSON.stringify({ file_path: file, content: 'hello\n' })}`);
    const dialog = page.locator('.monaco-dialog-box', { hasText: askMessage });
    await dialog.waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${oneLine(err)}; no dialog; the notifications: ${await toastsDump()}`);
    });
    const message = (await dialog.locator('.dialog-message-container').innerText()).replace(/\s+/g, ' ').trim();
    if (!message.includes(file)) throw new Error(`the dialog does not name ${file}: "${message}"`);
    const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
    for (const b of ['Allow', 'Deny']) if (!buttons.includes(b)) throw new Error(`the dialog's buttons are ${JSON.stringify(buttons)}`);
    await pendingItem.first().waitFor({ timeout: AGENT_TIMEOUT });
    const pending = (await pendingItem.first().innerText()).replace(/\s+/g, ' ').trim();
    // The README's screenshot: the dialog, the pending item and the file's warning in the Problems panel.
    if (!(await problems.isVisible())) await page.locator('#status\\.problems').click();
    await problems.locator('.monaco-tl-row', { hasText: 'notes.txt' }).first().waitFor({ timeout: AGENT_TIMEOUT });
    await page.screenshot({ path: args.screenshot });
    console.log(`# screenshot: ${args.screenshot}`);
    await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    const r = await agentResult(2);
    expect(r, { tool: 'Write', permission: 'allow', asked: true });
    await pendingItem.first().waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    return `dialog "${message}" ${JSON.stringify(buttons)}; status bar "${pending}"; ${r.text}`;
  });

  await check('an ask (askStyle "notification"): a notification with Allow / Deny, "1 pending" in the status bar, the file\'s warning in Problems; Deny → the agent gets "deny"', async () => {
    // The user switches to notifications in the Settings editor; the agent's status bar item shows the setting
    // once the extension host has it.
    await runCommand('Preferences: Open User Settings');
    const editor = page.locator('.settings-editor');
    await editor.waitFor({ timeout: AGENT_TIMEOUT });
    await editor.locator('.settings-header .suggest-input-container').click();
    await page.keyboard.type('wavehooks.askStyle');
    const setting = editor.locator('.setting-item-contents', { hasText: 'Ask Style' }).first();
    await setting.locator('select').click({ timeout: AGENT_TIMEOUT });
    await page.locator('.monaco-select-box-dropdown-container .monaco-list-row', { hasText: /^\s*notification\s*$/ }).first().click({ timeout: AGENT_TIMEOUT });
    await agentItem.filter({ hasText: 'askStyle notification' }).first().waitFor({ timeout: AGENT_TIMEOUT });
    await page.locator('.tabs-container .tab', { hasText: 'Settings' }).locator('.codicon-close').click();
    await editor.waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    const file = join(dirs.workspace, 'plan.md');
    await agentRunsTool(`Write ${JSON.stringify({ file_path: file, content: '# plan\n' })}`);
    const toast = toasts.filter({ hasText: askMessage }).first();
    await toast.waitFor({ timeout: AGENT_TIMEOUT }).catch(async (err) => {
      throw new Error(`${oneLine(err)}; the notifications: ${await toastsDump()}`);
    });
    const message = (await toast.locator('.notification-list-item-message').innerText()).replace(/\s+/g, ' ').trim();
    if (!message.includes(file)) throw new Error(`the notification does not name ${file}: "${message}"`);
    await pendingItem.first().waitFor({ timeout: AGENT_TIMEOUT });
    const pending = (await pendingItem.first().innerText()).replace(/\s+/g, ' ').trim();
    // The Problems panel (the status bar's problems item toggles it: click it only when the panel is hidden).
    if (!(await problems.isVisible())) await page.locator('#status\\.problems').click();
    const askRow = problems.locator('.monaco-tl-row', { hasText: 'plan.md' }).first();
    await askRow.waitFor({ timeout: AGENT_TIMEOUT });
    await toast.getByRole('button', { name: 'Deny', exact: true }).click();
    const r = await agentResult(3);
    expect(r, { tool: 'Write', permission: 'deny', asked: true });
    await pendingItem.first().waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    await askRow.waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    return `notification "${message}"; status bar "${pending}"; ${r.text}`;
  });

  await check('an ask answered from the status bar: click "1 pending", pick the ask, pick Allow → the agent gets "allow"', async () => {
    const file = join(dirs.workspace, 'later.txt');
    await agentRunsTool(`Write ${JSON.stringify({ file_path: file, content: 'later\n' })}`);
    await toasts.filter({ hasText: askMessage }).filter({ hasText: 'later.txt' }).first().waitFor({ timeout: AGENT_TIMEOUT });
    await pendingItem.first().click({ timeout: AGENT_TIMEOUT });
    await quickInput.locator('.quick-input-title', { hasText: 'Pending hook permissions' }).waitFor({ timeout: AGENT_TIMEOUT });
    const row = quickInput.locator('.monaco-list-row', { hasText: 'later.txt' }).first();
    await row.waitFor({ timeout: AGENT_TIMEOUT });
    const label = (await row.innerText()).replace(/\s+/g, ' ').trim();
    await row.click();
    // The second pick: titled with the ask, Allow or Deny.
    await quickInput.locator('.quick-input-title', { hasText: 'later.txt' }).waitFor({ timeout: AGENT_TIMEOUT });
    await quickInput.locator('.monaco-list-row', { hasText: 'Allow' }).first().click({ timeout: AGENT_TIMEOUT });
    const r = await agentResult(4);
    expect(r, { tool: 'Write', permission: 'allow', asked: true });
    await pendingItem.first().waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
    return `picked "${label.slice(0, 120)}"; ${r.text}`;
  });

  await check(
    'the ask\'s notification, answered from the status bar first, says a later click changed nothing',
    async () => {
      // The server withdraws its window/showMessageRequest when another channel answers first, but VS Code
      // cannot close a notification: it stays in the notification center (toasts hide by themselves), and its
      // buttons must not look as if they still decide anything.
      await runCommand('Notifications: Show Notifications');
      const center = page.locator('.notifications-center');
      await center.locator('.monaco-list-row', { hasText: 'agent result #4:' }).first().waitFor({ timeout: AGENT_TIMEOUT });
      const stale = center.locator('.monaco-list-row', { hasText: askMessage }).filter({ hasText: 'later.txt' }).first();
      await stale.waitFor({ timeout: AGENT_TIMEOUT });
      await stale.getByRole('button', { name: 'Deny', exact: true }).click();
      const said = center.locator('.monaco-list-row', { hasText: 'already decided' }).first();
      await said.waitFor({ timeout: AGENT_TIMEOUT });
      const text = (await said.innerText()).replace(/\s+/g, ' ').trim();
      await page.keyboard.press('Escape');
      await center.waitFor({ state: 'hidden', timeout: AGENT_TIMEOUT });
      return `"${text}"`;
    },
  );

  await check('a prompt hook evaluated by the test agent (wave/evaluateHook): Read of a secret → "deny" with the model\'s reason; another file → "allow"', async () => {
    await agentRunsTool(`Read ${JSON.stringify({ file_path: join(dirs.workspace, 'secret.env') })}`);
    const denied = await agentResult(5);
    expect(denied, { tool: 'Read', permission: 'deny', reason: "the test agent's model will not touch secrets", asked: false });
    await agentRunsTool(`Read ${JSON.stringify({ file_path: join(dirs.workspace, 'README.md') })}`);
    const allowed = await agentResult(6);
    expect(allowed, { tool: 'Read', permission: 'allow', asked: false });
    return `${denied.text}; ${allowed.text}`;
  });

  await check('"Wave Hooks: Show Hook Runs" lists the agent\'s events in the "Wave Hooks" output', async () => {
    await runCommand('Wave Hooks: Show Hook Runs');
    const panel = page.locator('.part.panel');
    await panel.locator('.monaco-select-box, .monaco-action-bar', { hasText: /Wave Hooks(?! Server)/ }).first().waitFor({ timeout: AGENT_TIMEOUT });
    // The output is long (each run lists its hooks and its stdin) and follows its end: the user filters it down to
    // one event at a time. Long lines wrap, and the editor renders spaces as no-break spaces: match the text of all
    // the view's lines together, with its white space made plain.
    const view = panel.locator('.view-lines').first();
    const want = [
      ['PreToolUse (Bash)', /#\d+ PreToolUse \(Bash\) session \S+ → deny; reason: ?Refusing to run 'rm -rf \/'/],
      ['notes.txt;', /#\d+ PreToolUse \(Write\) session \S+ → ask; reason: ?the agent wants to write \S*notes\.txt.*asked: allowed/],
      ['plan.md;', /#\d+ PreToolUse \(Write\) session \S+ → ask; reason: ?the agent wants to write \S*plan\.md.*asked: denied/],
    ];
    const seen = [];
    // The Output view's box: its placeholder is "Filter" until it has a history, then "Filter (⇅ for history)"
    // (VS Code's HistoryInputBox), which happens as a typed filter is kept, at a time the test does not control.
    // Other views of the panel have filter boxes too ("Filter (e.g. text, …)").
    const filterBox = panel.getByPlaceholder(/^Filter( \([^()]* for history\))?$/).filter({ visible: true }).first();
    const shows = (re, timeout) =>
      page
        .waitForFunction(
          (src) => new RegExp(src).test((document.querySelector('.part.panel .view-lines')?.innerText ?? '').replace(/\s+/g, ' ')),
          re.source,
          { timeout },
        )
        .then(
          () => true,
          () => false,
        );
    for (const [filter, re] of want) {
      // Typed as the user types it (focus, select all, type): fill() waits for the box to be "editable", which
      // the output's filter box, re-rendered as the output changes, did not always report in time. A box
      // re-rendered just as the text went in loses it (the box is then empty and the output unfiltered): as a
      // user would, type it again until the output is filtered.
      const deadline = Date.now() + AGENT_TIMEOUT;
      let typed = 0;
      for (;;) {
        await filterBox.focus();
        await page.keyboard.press('Control+A');
        await page.keyboard.insertText(filter);
        typed++;
        if (await shows(re, 5000)) break;
        if (Date.now() > deadline) {
          throw new Error(`filtered by ${filter} (typed ${typed} times; the box holds ${JSON.stringify(await filterBox.inputValue().catch(() => '?'))}), want ${re}; the output shows: ${(await view.innerText()).replace(/\s+/g, ' ').slice(0, 600)}`);
        }
      }
      const retyped = typed > 1 ? ` (filter typed ${typed} times)` : '';
      seen.push((await view.innerText()).replace(/\s+/g, ' ').replace(/\/tmp\/\S+\//g, '…/').slice(0, 140) + retyped);
    }
    return seen.join(' | ');
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
