// Runs the extension itself (the dist/extension.js bundle, with the real
// vscode-languageclient inside, and the real server) in a stand-in for the 'vscode'
// module: activation, prompts, status bar, commands, the ask quick fixes, the
// hook-runs channel, restart and deactivation. VS Code cannot be downloaded
// here; test/fakeVscode.ts models just what the extension and the client touch.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { WaveApi } from '../src/api';
import { FakeVscode, Uri } from './fakeVscode';
import { BIN, script, tempDir, waitFor } from './harness';

describe('the extension in a stand-in VS Code', () => {
  const vscode = new FakeVscode();
  let ext: typeof import('../src/extension');
  let api: WaveApi;
  let tmp: string;
  let home: string;
  let root: string;
  let sessionId: string;
  let denyRm: string;
  const context = { subscriptions: [] as Array<{ dispose(): void }> };
  const broken = () => path.join(root, '.wave', 'settings.local.json');
  const diagnostics = (file: string) => vscode.collections.find((c) => c.name === 'wavehooks')?.get(Uri.file(file));

  before(async () => {
    assert.ok(fs.existsSync(BIN), `no server binary at ${BIN}`);
    tmp = tempDir();
    home = path.join(tmp, 'home');
    root = path.join(tmp, 'project');
    const hooks = path.join(tmp, 'hooks');
    for (const d of [home, path.join(root, '.wave'), hooks]) {
      fs.mkdirSync(d, { recursive: true });
    }
    denyRm = script(
      hooks,
      'deny-rm.sh',
      'cmd=$(jq -r \'.tool_input.command // ""\')\ncase "$cmd" in *"rm -rf"*) echo "rm -rf is not allowed" >&2; exit 2;; esac',
    );
    const askWrite = script(
      hooks,
      'ask-write.sh',
      'jq -n \'{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check the file"}}\'',
    );
    fs.writeFileSync(
      path.join(home, 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: denyRm }] },
            { matcher: 'Write', hooks: [{ type: 'command', command: askWrite }] },
          ],
          UserPromptSubmit: [{ hooks: [{ type: 'prompt', prompt: 'On topic? $ARGUMENTS' }] }],
          SessionStart: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; echo from the session hook' }] }],
        },
      }),
    );
    fs.writeFileSync(
      path.join(root, '.wave', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; echo project hook' }] }] } }),
    );
    fs.writeFileSync(broken(), '{ "hooks": ');

    vscode.config = {
      'wavehooks.serverPath': BIN,
      'wavehooks.waveHome': home,
      'wavehooks.askTimeoutSeconds': 20,
      'wavehooks.askStyle': 'modal',
      'wavehooks.trace.server': 'verbose',
    };
    vscode.folders = [{ uri: Uri.file(root), name: 'project', index: 0 }];
    vscode.messageAnswers.push('Not now'); // the trust prompt
    vscode.install();
    // The bundle that ships (npm run build), with vscode-languageclient inside it.
    ext = require(path.join(__dirname, '..', '..', 'dist', 'extension.js'));
    api = await ext.activate(context as any);
  });

  after(async () => {
    await ext?.deactivate();
    for (const d of context.subscriptions) {
      d.dispose();
    }
  });

  test('activates: server running, status bar item, commands registered', () => {
    assert.match(vscode.item('wavehooks.status').text, /Wave/);
    assert.ok(vscode.item('wavehooks.status').visible);
    for (const c of ['trustWorkspace', 'listPermissions', 'runHook', 'showHookRuns', 'toggleHook', 'restartServer', 'showServerLog']) {
      assert.ok(vscode.commands.has(`wavehooks.${c}`), c);
    }
    assert.ok(vscode.commands.has('wave.runHook'), "the server's commands are registered by the client");
    assert.ok(vscode.commands.has('wave.runTests'), 'and its test runner');
  });

  test('diagnostics of a broken settings file reach the diagnostic collection', async () => {
    const diags = await waitFor(
      () => diagnostics(broken())?.length && diagnostics(broken()),
      () => 'diagnostics for the broken file',
    );
    assert.match((diags as any)[0].message, /invalid JSON/);
  });

  test('the trust prompt is a notification with Trust / Not now', async () => {
    const trust = await waitFor(
      () => vscode.shown.find((s) => s.items.includes('Trust')),
      () => 'the trust prompt',
    );
    assert.deepEqual(trust.items, ['Trust', 'Not now']);
    assert.equal(trust.modal, false);
  });

  test('a deny through the exported API', async () => {
    sessionId = (await api.sessionStart({ source: 'startup' })).sessionId;
    const res = await api.preToolUse({ sessionId, toolUseId: 't1', toolName: 'Bash', toolInput: { command: 'rm -rf /' } });
    assert.equal(res.permission, 'deny');
    assert.match(res.reason ?? '', /rm -rf is not allowed/);
  });

  test('prompt hooks reach an agent extension through onEvaluateHook', async () => {
    // The extension declares the capability from the start: without a handler the
    // server is told there is no agent (not that the editor cannot).
    const before = await api.userPromptSubmit({ sessionId, prompt: 'first' });
    const warn = before.blocks.find((b) => b.type === 'warn');
    assert.match(warn?.content ?? '', /did not run: it needs an agent host, and the editor has no agent that evaluates hooks/);
    const registration = api.onEvaluateHook(async (p) => ({ ok: false, reason: `not about ${String(p.input.prompt)}` }));
    try {
      const res = await api.userPromptSubmit({ sessionId, prompt: 'cooking' });
      assert.equal(res.blocked, true);
      assert.equal(res.reason, 'not about cooking');
    } finally {
      registration.dispose();
    }
  });

  test('an ask shown as a modal and answered Allow', async () => {
    vscode.messageAnswers.push('Allow');
    const res = await api.preToolUse({
      sessionId,
      toolUseId: 't2',
      toolName: 'Write',
      toolInput: { file_path: path.join(root, 'a.txt'), content: 'x' },
    });
    assert.equal(res.permission, 'allow');
    const ask = vscode.shown.find((s) => s.items.includes('Allow'))!;
    assert.equal(ask.modal, true);
    assert.deepEqual(ask.items, ['Allow', 'Deny']);
    assert.match(ask.message, /Hook asks: allow Write\? check the file/);
  });

  test('a pending ask in the status bar, answered Deny with List Pending Permissions', async () => {
    const pending = vscode.item('wavehooks.pending');
    // The ask answered in the test before must leave the status bar first.
    await waitFor(
      () => !pending.visible,
      () => `the earlier ask to leave the pending item; it says ${JSON.stringify(pending.text)}`,
    );
    vscode.messageAnswers.push('wait'); // the modal stays up
    const pre = api.preToolUse({ sessionId, toolUseId: 't3', toolName: 'Write', toolInput: { file_path: path.join(root, 'b.txt') } });
    await waitFor(
      () => pending.visible && /1 pending/.test(pending.text),
      () => `the pending item; it says ${JSON.stringify(pending.text)}`,
    );
    vscode.pickAnswers.push(0, 'Deny');
    await vscode.commands.get('wavehooks.listPermissions')!();
    const res = await pre;
    assert.equal(res.permission, 'deny');
    assert.equal(res.continue, false);
    assert.match(vscode.quickPicks.at(-2)![0], /^Write: check the file/);
    await waitFor(
      () => !pending.visible,
      () => 'the pending item to hide',
    );
  });

  test("an ask answered with the Allow quick fix of the file's wave.ask diagnostic", async () => {
    vscode.messageAnswers.push('wait');
    const file = path.join(root, 'c.txt');
    const pre = api.preToolUse({ sessionId, toolUseId: 't4', toolName: 'Write', toolInput: { file_path: file } });
    const diag = await waitFor(
      () => diagnostics(file)?.find((d: any) => d.code === 'wave.ask' || d.code?.value === 'wave.ask'),
      () => 'the wave.ask diagnostic',
    );
    const actions = await vscode.codeActions(file, [diag]);
    assert.deepEqual(
      actions.map((a: any) => a.title),
      ['Allow (hook permission)', 'Deny (hook permission)'],
    );
    await vscode.commands.get(actions[0].command.command)!(...actions[0].command.arguments);
    assert.equal((await pre).permission, 'allow');
  });

  test('a settings file with a pending ask offers Allow and Deny once each', async () => {
    // The tool writes a settings file: the language client (whose document selector covers it) asks the server
    // for its code actions, and the extension's own provider answers for the wave.ask diagnostic on any file.
    vscode.messageAnswers.push('wait');
    const file = path.join(root, '.wave', 'settings.json');
    const pre = api.preToolUse({ sessionId, toolUseId: 't5', toolName: 'Write', toolInput: { file_path: file } });
    const diag: any = await waitFor(
      () => diagnostics(file)?.find((d: any) => d.code === 'wave.ask' || d.code?.value === 'wave.ask'),
      () => 'the wave.ask diagnostic on the settings file',
    );
    const [pending] = (await api.listPermissions()).pending;
    assert.deepEqual(diag.data, { permissionId: pending.id }, "the diagnostic carries the ask's id");
    const actions = await vscode.codeActions(file, [diag]);
    const answering = (decision: 'allow' | 'deny') =>
      actions.filter(
        (a: any) =>
          (a.command?.command === 'wavehooks.resolvePermission' && a.command.arguments[1] === decision) ||
          a.command?.command === `wave.permission.${decision}`,
      );
    assert.equal(answering('allow').length, 1, `one Allow among ${JSON.stringify(actions.map((a: any) => a.title))}`);
    assert.equal(answering('deny').length, 1, `one Deny among ${JSON.stringify(actions.map((a: any) => a.title))}`);
    const [allow] = answering('allow');
    await vscode.commands.get(allow.command.command)!(...allow.command.arguments);
    assert.equal((await pre).permission, 'allow');
  });

  test('wavehooks.trace.server traces into the server log, by the client itself, while the log is at Trace level', async () => {
    const log = vscode.channel('Wave Hooks Server');
    const sent = /Sending request 'wave\/getSession - \(\d+\)'/g;
    await api.getSession({ sessionId });
    assert.equal(log.text.match(sent), null, 'no trace at the Info level');
    log.setLogLevel(1); // Trace, as the user sets it from the Output view
    await api.getSession({ sessionId });
    await waitFor(
      () => (log.text.match(sent) ?? []).length === 1 && /Params: \{\s*"sessionId"/.test(log.text),
      () => `a verbose trace of wave/getSession (with its params) in the server log:\n${log.text.slice(-2000)}`,
    );
    log.setLogLevel(3);
    await api.getSession({ sessionId });
    assert.equal(log.text.match(sent)?.length, 1, 'the trace stops with the Info level');
  });

  test('Show Hook Runs lists the runs with stdin and stderr', async () => {
    await vscode.commands.get('wavehooks.showHookRuns')!();
    const text = vscode.channel('Wave Hooks').text;
    assert.match(text, /PreToolUse \(Bash\)/);
    assert.match(text, /rm -rf is not allowed/);
    assert.match(text, /"tool_name": "Bash"/);
    assert.match(text, /did not match/);
  });

  test('Run a Hook with Sample Input picks a hook and prints what it did', async () => {
    vscode.pickAnswers.push(0);
    await vscode.commands.get('wavehooks.runHook')!();
    const picked = vscode.quickPicks.at(-1)!;
    assert.ok(picked.some((l) => /deny-rm\.sh/.test(l)), JSON.stringify(picked));
    await waitFor(
      () => /Ran PreToolUse hook/.test(vscode.channel('Wave Hooks').text),
      () => 'the run in the channel',
    );
  });

  test('▶ Run tests on a hook test case file: "1 passed, 1 failed", the failure on its case, cleared once it passes', async () => {
    const dir = path.join(root, '.wave', 'tests');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'guards.test.jsonc');
    const cases = (lsCommand: string) =>
      [
        '// the guard hooks',
        '{',
        '  "rm -rf is denied": {',
        '    "event": "PreToolUse",',
        '    "input": { "tool_name": "Bash", "tool_input": { "command": "rm -rf build" } },',
        '    "expect": { "permission": "deny", "reason": "rm -rf is not allowed" },',
        '  },',
        '  "ls is denied": {',
        '    "event": "PreToolUse",',
        `    "input": { "tool_name": "Bash", "tool_input": { "command": "${lsCommand}" } },`,
        '    "expect": { "permission": "deny" },',
        '  },',
        '}',
        '',
      ].join('\n');
    fs.writeFileSync(file, cases('ls'));
    const found = (await vscode.codeLenses(file)).filter((c) => c.command?.title === '▶ Run tests');
    assert.equal(found.length, 1, 'one "▶ Run tests" lens on the case file');
    assert.equal(found[0].range.start.line, 0);
    const run = () => vscode.commands.get(found[0].command.command)!(...(found[0].command.arguments ?? []));
    await run();
    const failing = await waitFor(
      () => diagnostics(file)?.length && diagnostics(file),
      () => 'the failing case\'s diagnostic',
    );
    assert.equal((failing as any).length, 1);
    assert.equal((failing as any)[0].message, 'case "ls is denied": expected permission deny, got none');
    assert.equal((failing as any)[0].range.start.line, 7, "on the failing case's line");
    assert.ok(vscode.shown.some((m) => /guards\.test\.jsonc: 1 passed, 1 failed/.test(m.message)), JSON.stringify(vscode.shown));
    assert.match(vscode.channel('Wave Hooks').text, /FAIL ls is denied \(line 8\)/);
    assert.equal(
      (await vscode.codeLenses(path.join(home, 'settings.json'))).filter((c) => c.command?.title === '▶ Run tests').length,
      0,
      'a settings file has no test lens',
    );

    fs.writeFileSync(file, cases('rm -rf ls'));
    await run();
    await waitFor(
      () => diagnostics(file)?.length === 0,
      () => `the diagnostic cleared; still ${JSON.stringify(diagnostics(file))}`,
    );
    assert.ok(vscode.shown.some((m) => /guards\.test\.jsonc: 2 passed, 0 failed/.test(m.message)));
  });

  test("Toggle Hook turns the picked hook off in its file, and on again", async () => {
    const settings = path.join(home, 'settings.json');
    const enabled = () => JSON.parse(fs.readFileSync(settings, 'utf8')).hooks.PreToolUse[0].hooks[0].enabled;
    vscode.pickAnswers.push(`$(pass-filled) on  ${denyRm}`);
    await vscode.commands.get('wavehooks.toggleHook')!();
    assert.ok(vscode.quickPicks.at(-1)!.includes(`$(pass-filled) on  ${denyRm}`), JSON.stringify(vscode.quickPicks.at(-1)));
    assert.equal(enabled(), false);
    assert.ok(vscode.shown.some((m) => /PreToolUse hook .*deny-rm\.sh.* is off/.test(m.message)), JSON.stringify(vscode.shown.at(-1)));
    const off = await api.preToolUse({ sessionId, toolUseId: 'toggle-1', toolName: 'Bash', toolInput: { command: 'rm -rf /' } });
    assert.notEqual(off.permission, 'deny', 'off: the hook no longer denies');

    vscode.pickAnswers.push(`$(circle-slash) off  ${denyRm}`);
    await vscode.commands.get('wavehooks.toggleHook')!();
    assert.equal(enabled(), true);
    const on = await api.preToolUse({ sessionId, toolUseId: 'toggle-2', toolName: 'Bash', toolInput: { command: 'rm -rf /' } });
    assert.equal(on.permission, 'deny', 'on again');
  });

  test("Show Hook Runs includes a session of the ACP proxy (the real `wavehooks acp`), as it happens and when listed", async () => {
    const agent = script(
      path.join(tmp, 'hooks'),
      'acp-agent.sh',
      [
        '# A minimal ACP agent: answers initialize, session/new and session/prompt.',
        'while IFS= read -r line; do',
        '  method=$(printf \'%s\' "$line" | jq -r \'.method // empty\')',
        '  id=$(printf \'%s\' "$line" | jq -c \'.id // empty\')',
        '  [ -n "$method" ] && [ -n "$id" ] || continue',
        '  case "$method" in',
        '    initialize) r=\'{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}\' ;;',
        '    session/new) r=\'{"sessionId":"acp-vscode-1"}\' ;;',
        '    session/prompt) r=\'{"stopReason":"end_turn"}\' ;;',
        '    *) continue ;;',
        '  esac',
        '  printf \'{"jsonrpc":"2.0","id":%s,"result":%s}\\n\' "$id" "$r"',
        'done',
      ].join('\n'),
    );
    const proxy = spawn(BIN, ['acp', '--wave-home', home, '--project', root, '--', agent], {
      env: { ...process.env, HOME: tmp, WAVE_MANAGED_SETTINGS: path.join(tmp, 'no-managed.json') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    proxy.stdout.on('data', (d) => (out += d.toString()));
    const exited = new Promise((resolve) => proxy.on('exit', resolve));
    try {
      proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n');
      await waitFor(() => out.includes('"id":1'), () => `the proxy's initialize answer; got ${out}`);
      proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: root, mcpServers: [] } }) + '\n');
      await waitFor(() => out.includes('acp-vscode-1'), () => `the proxy's session/new answer; got ${out}`);

      const channel = vscode.channel('Wave Hooks');
      await waitFor(
        () => /SessionStart \(startup\) session acp-vscode-1 \[ACP proxy \/ run log\]/.test(channel.text),
        () => `the proxy's SessionStart in the channel as it happened; it says\n${channel.text}`,
      );
      await vscode.commands.get('wavehooks.showHookRuns')!();
      assert.match(channel.text, /SessionStart \(startup\) session acp-vscode-1 \[ACP proxy \/ run log\]/);
      assert.match(channel.text, /from the session hook/, "the proxy's hook output");
      assert.match(channel.text, /PreToolUse \(Bash\)/, "the server's own runs too");
    } finally {
      proxy.stdin.end();
      await exited;
    }
  });

  test('Trust Workspace Hooks updates the status bar', async () => {
    await vscode.commands.get('wavehooks.trustWorkspace')!();
    const status = vscode.item('wavehooks.status');
    await waitFor(
      () => /Wave: \d+ hooks?/.test(status.text) && !/\$\(lock\)/.test(status.text),
      () => `the hook status; it says ${status.text}`,
    );
    assert.ok(vscode.shown.some((s) => /trusted/.test(s.message)));
  });

  test('Restart Server starts a new server that answers', async () => {
    await vscode.commands.get('wavehooks.restartServer')!();
    const s = await api.getSession({ sessionId });
    assert.equal(s.sessionId, sessionId);
    assert.match(vscode.channel('Wave Hooks Server').text, /./);
  });
});
