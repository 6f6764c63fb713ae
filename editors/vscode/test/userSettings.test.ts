// wavehooks.serverPath, wavehooks.waveHome and wavehooks.trustWorkspaceHooks
// are the user's alone: a repository's .vscode/settings.json that sets them
// changes nothing. The manifest's scope ("machine") makes VS Code refuse such
// values; this file checks that the extension refuses them too, for a VS Code
// that returns them anyway (the stand-in's get() does), and says so in the
// server log. The real workbench is checked by ../vscode-e2e (code-server).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { WaveApi } from '../src/api';
import { readUserSetting } from '../src/userSettings';
import { FakeVscode, Uri } from './fakeVscode';
import { BIN, script, tempDir, waitFor } from './harness';

describe('reading a setting only the user may set', () => {
  const cases: Array<{ name: string; inspected: any; fallback: unknown; value: unknown; ignored: string[] }> = [
    { name: 'nothing set: the default', inspected: {}, fallback: '', value: '', ignored: [] },
    { name: 'inspect() gave nothing: the default', inspected: undefined, fallback: false, value: false, ignored: [] },
    { name: "the user's value", inspected: { globalValue: '/opt/wavehooks' }, fallback: '', value: '/opt/wavehooks', ignored: [] },
    {
      name: "a workspace's value is ignored, the user's kept",
      inspected: { globalValue: '/opt/wavehooks', workspaceValue: './evil', workspaceFolderValue: './evil2' },
      fallback: '',
      value: '/opt/wavehooks',
      ignored: ['the workspace settings (.vscode/settings.json or the .code-workspace file)', "a workspace folder's settings (its .vscode/settings.json)"],
    },
    {
      name: "a workspace's trust is ignored: the default (off)",
      inspected: { workspaceValue: true, workspaceLanguageValue: true, workspaceFolderLanguageValue: true },
      fallback: false,
      value: false,
      ignored: [
        'the workspace settings (.vscode/settings.json or the .code-workspace file)',
        'the workspace settings for a language',
        "a workspace folder's settings for a language",
      ],
    },
    { name: 'a user value of the wrong type: the default', inspected: { globalValue: 'yes' }, fallback: false, value: false, ignored: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = readUserSetting(c.inspected, c.fallback);
      assert.equal(got.value, c.value);
      assert.deepEqual(
        got.ignored.map((i) => i.where),
        c.ignored,
      );
    });
  }
});

describe("a workspace's .vscode/settings.json sets serverPath, waveHome and trustWorkspaceHooks", () => {
  const vscode = new FakeVscode();
  let ext: typeof import('../src/extension');
  let api: WaveApi;
  let tmp: string;
  let home: string;
  let evilHome: string;
  let root: string;
  let evilServerRan: string;
  const marker = (name: string) => path.join(tmp, 'markers', name);
  const context = { subscriptions: [] as Array<{ dispose(): void }> };
  const serverLog = () => vscode.channels.find((c) => c.name === 'Wave Hooks Server')?.text ?? '';

  before(async () => {
    assert.ok(fs.existsSync(BIN), `no server binary at ${BIN}`);
    tmp = tempDir();
    home = path.join(tmp, 'home');
    evilHome = path.join(tmp, 'repo-wave-home');
    root = path.join(tmp, 'project');
    for (const d of [home, evilHome, path.join(root, '.wave'), path.join(root, '.vscode'), path.join(tmp, 'markers')]) {
      fs.mkdirSync(d, { recursive: true });
    }
    // Each hook writes the event it read from stdin into a marker of its own.
    const stopHook = (name: string) => ({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: `jq -r .hook_event_name > '${marker(name)}'` }] }] },
    });
    fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify(stopHook('user')));
    fs.writeFileSync(path.join(evilHome, 'settings.json'), JSON.stringify(stopHook('repo-wave-home')));
    fs.writeFileSync(path.join(root, '.wave', 'settings.json'), JSON.stringify(stopHook('project')));
    // The repository's own "server": it would leave a mark had it been started.
    evilServerRan = marker('repo-server');
    const evilServer = script(path.join(root, '.vscode'), 'wavehooks', `touch '${evilServerRan}'\nexit 1`);
    const repoSettings = {
      'wavehooks.serverPath': evilServer,
      'wavehooks.waveHome': evilHome,
      'wavehooks.trustWorkspaceHooks': true,
    };
    fs.writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify(repoSettings));

    vscode.config = { 'wavehooks.serverPath': BIN, 'wavehooks.waveHome': home, 'wavehooks.askTimeoutSeconds': 20 };
    vscode.workspaceConfig = repoSettings;
    vscode.folderConfig = { 'wavehooks.trustWorkspaceHooks': true };
    vscode.folders = [{ uri: Uri.file(root), name: 'project', index: 0 }];
    vscode.messageAnswers.push('Not now'); // the trust prompt
    vscode.install();
    ext = require(path.join(__dirname, '..', '..', 'dist', 'extension.js'));
    api = await ext.activate(context as any);
  });

  after(async () => {
    await ext?.deactivate();
    for (const d of context.subscriptions) {
      d.dispose();
    }
  });

  test("the user's server starts, not the repository's", () => {
    assert.ok(serverLog().includes(`starting the server ${BIN} (from wavehooks.serverPath)`), serverLog());
    assert.equal(fs.existsSync(evilServerRan), false, "the repository's server ran");
  });

  test('the server log says which workspace values were ignored', () => {
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const workspace = 'the workspace settings (.vscode/settings.json or the .code-workspace file)';
    for (const [key, where, value] of [
      ['serverPath', workspace, JSON.stringify(path.join(root, '.vscode', 'wavehooks'))],
      ['waveHome', workspace, JSON.stringify(evilHome)],
      ['trustWorkspaceHooks', workspace, 'true'],
      ['trustWorkspaceHooks', "a workspace folder's settings (its .vscode/settings.json)", 'true'],
    ]) {
      assert.match(serverLog(), new RegExp(`\\[warn\\] wavehooks\\.${key} is set in ${esc(where)} to ${esc(value)}: ignored, only your user settings choose it`));
    }
  });

  test('the workspace is not trusted: the trust prompt is shown, and its hook does not run', async () => {
    const trust = await waitFor(
      () => vscode.shown.find((s) => s.items.includes('Trust')),
      () => 'the trust prompt',
    );
    assert.match(trust.message, /take effect only once you trust it/);
    const { sessionId } = await api.sessionStart({ source: 'startup' });
    await api.stop({ sessionId });
    assert.equal(fs.readFileSync(marker('user'), 'utf8'), 'Stop\n', "the user's hook ran, from the user's wave home");
    assert.equal(fs.existsSync(marker('project')), false, "the untrusted project's hook ran");
    assert.equal(fs.existsSync(marker('repo-wave-home')), false, "the wave home the repository named was used");
    const { runs } = await api.hookRuns({ limit: 10 });
    const stop = runs.find((r) => r.event === 'Stop');
    assert.ok(stop, 'the Stop run is recorded');
    assert.deepEqual(
      stop.hooks.map((h) => h.file),
      [path.join(home, 'settings.json'), path.join(root, '.wave', 'settings.json')],
    );
    assert.match(stop.hooks[1].skipped ?? '', /trust/);
  });
});
