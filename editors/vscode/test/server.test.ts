// Drives the real wavehooks server through vscode-jsonrpc, covering every
// method the extension uses, with real sh + jq hook scripts.
// WAVEHOOKS_BIN names the binary (default ../../bin/wavehooks).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { formatEventRun, formatRunHookResult } from '../src/format';
import { EventRun, RunHookResult } from '../src/wire';
import { BIN, script, ServerUnderTest, tempDir, waitFor } from './harness';

describe('wavehooks server through vscode-jsonrpc', () => {
  let tmp: string;
  let home: string;
  let root: string;
  let hooksDir: string;
  let srv: ServerUnderTest;
  let sessionId: string;
  const brokenFile = () => path.join(root, '.wave', 'settings.local.json');
  const userSettings = () => path.join(home, 'settings.json');

  before(async () => {
    assert.ok(fs.existsSync(BIN), `no server binary at ${BIN}: build it (go build -o bin/wavehooks ./cmd/wavehooks) or set WAVEHOOKS_BIN`);
    tmp = tempDir();
    home = path.join(tmp, 'home');
    root = path.join(tmp, 'project');
    hooksDir = path.join(tmp, 'hooks');
    for (const d of [home, path.join(root, '.wave'), hooksDir]) {
      fs.mkdirSync(d, { recursive: true });
    }
    const h = (name: string, body: string) => script(hooksDir, name, body);
    const startHook = h('session-start.sh', 'src=$(jq -r .source)\necho "notes app; started from $src"');
    const promptHook = h(
      'prompt.sh',
      'p=$(jq -r .prompt)\ncase "$p" in *password*) echo "prompt contains a password" >&2; exit 2;; esac\necho "prompt has ${#p} characters"',
    );
    const denyRm = h(
      'deny-rm.sh',
      'cmd=$(jq -r \'.tool_input.command // ""\')\ncase "$cmd" in *"rm -rf"*) echo "rm -rf is not allowed" >&2; exit 2;; esac\nexit 0',
    );
    const askWrite = h(
      'ask-write.sh',
      'f=$(jq -r .tool_input.file_path)\njq -n --arg f "$f" \'{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: ("writes " + $f)}}\'',
    );
    const post = h(
      'post.sh',
      'jq -e .tool_response.success >/dev/null || exit 1\njq -n \'{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: "file written; run the tests"}}\'',
    );
    const stopOnce = h(
      'stop-once.sh',
      'm="$(dirname "$0")/stopped"\ncat >/dev/null\nif [ ! -f "$m" ]; then touch "$m"; echo "run the tests first" >&2; exit 2; fi\nexit 0',
    );
    const end = h('session-end.sh', 'jq -r .reason > "$(dirname "$0")/ended"');
    const notify = h('notify.sh', 'jq -r .message > "$(dirname "$0")/notified"');
    fs.writeFileSync(
      userSettings(),
      `{
  // the user's own hooks: they always run
  "hooks": {
    "SessionStart": [{ "matcher": "startup", "hooks": [{ "type": "command", "command": "${startHook}" }] }],
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "${promptHook}" }] }],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "${denyRm}" }] },
      { "matcher": "Write|Edit", "hooks": [{ "type": "command", "command": "${askWrite}", "timeout": 10 }] },
    ],
    "PostToolUse": [{ "matcher": "Write", "hooks": [{ "type": "command", "command": "${post}" }] }],
    "Stop": [{ "hooks": [{ "type": "command", "command": "${stopOnce}" }] }],
    "SessionEnd": [{ "hooks": [{ "type": "command", "command": "${end}" }] }],
    "Notification": [{ "hooks": [{ "type": "command", "command": "${notify}" }] }],
  },
}
`,
    );
    // The repository's own hook: it waits for trust.
    fs.writeFileSync(
      path.join(root, '.wave', 'settings.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: "cat >/dev/null; echo 'project hook ran'" }] }] },
      }),
    );
    // A broken local settings file: its diagnostics must reach the editor.
    fs.writeFileSync(brokenFile(), '{\n  "hooks": {\n    "Stop": [\n');

    srv = new ServerUnderTest(tmp);
    srv.user.chooseAnswers.push('Not now'); // the trust prompt
    const init: any = await srv.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: 'file://' + root,
      workspaceFolders: [{ uri: 'file://' + root, name: 'project' }],
      capabilities: { window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: false } } } },
      initializationOptions: { waveHome: home, askTimeoutSeconds: 20 },
    });
    assert.equal(init.serverInfo.name, 'wavehooks');
    assert.ok(init.capabilities.executeCommandProvider.commands.includes('wave.runHook'));
    await srv.conn.sendNotification('initialized', {});
  });

  after(() => srv?.kill());

  test('publishes diagnostics for a broken settings file', async () => {
    const diags = await waitFor(
      () => (srv.diagnostics(brokenFile()) ?? []).length > 0 && srv.diagnostics(brokenFile())!,
      () => `diagnostics for ${brokenFile()}; got ${JSON.stringify(srv.notifications('textDocument/publishDiagnostics'))}`,
    );
    assert.equal(diags[0].severity, 1);
    assert.match(diags[0].message, /invalid JSON/);
  });

  test('diagnoses an open settings buffer as the user types, and clears when fixed', async () => {
    const uri = 'file://' + brokenFile();
    const bad = '{ "hooks": { "PreToolUs": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] } }';
    await srv.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'jsonc', version: 1, text: bad } });
    const diags = await waitFor(
      () => srv.diagnostics(brokenFile())?.find((d) => /PreToolUs/.test(d.message)) && srv.diagnostics(brokenFile()),
      () => `an unknown-event diagnostic; got ${JSON.stringify(srv.diagnostics(brokenFile()))}`,
    );
    const actions: any[] = await srv.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: diags[0].range,
      context: { diagnostics: diags },
    });
    assert.ok(
      actions.some((a) => /PreToolUse/.test(a.title)),
      `a quick fix to PreToolUse among ${JSON.stringify(actions.map((a) => a.title))}`,
    );
    await srv.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: '{ "hooks": {} }' }],
    });
    await waitFor(
      () => srv.diagnostics(brokenFile())?.length === 0,
      () => `diagnostics to clear; got ${JSON.stringify(srv.diagnostics(brokenFile()))}`,
    );
    await srv.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  });

  test('offers a quick fix for each hook that can never run and has an obvious fix', async () => {
    const uri = 'file://' + brokenFile();
    const text = `{ "hooks": {
  "PreToolUse": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "true" }] },
                 { "matcher": "Bash", "hooks": [{ "type": "command", "command": "exit 0", "if": "Write" }] }],
  "Stop": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "true" }] },
           { "hooks": [{ "type": "command", "command": "echo done" }] },
           { "hooks": [{ "type": "command", "command": "echo done" }] }]
} }`;
    await srv.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'jsonc', version: 1, text } });
    const codes = ['unknown-tool', 'if-never-matches', 'matcher-ignored', 'shadowed-hook'];
    const diags = await waitFor(
      () => codes.every((c) => srv.diagnostics(brokenFile())?.some((d) => d.code === c)) && srv.diagnostics(brokenFile())!,
      () => `never-run diagnostics ${codes}; got ${JSON.stringify(srv.diagnostics(brokenFile()))}`,
    );
    const want: Record<string, string> = {
      'unknown-tool': 'Change the matcher to "Write"',
      'if-never-matches': 'Run this hook for Write calls (matcher "Write")',
      'matcher-ignored': 'Remove the matcher (this event ignores it)',
      'shadowed-hook': 'Remove this duplicate hook',
    };
    for (const code of codes) {
      const d = diags.find((x) => x.code === code)!;
      const actions: any[] = await srv.conn.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: d.range,
        context: { diagnostics: [d] },
      });
      const fix = actions.find((a) => a.title === want[code]);
      assert.ok(fix, `${code}: "${want[code]}" among ${JSON.stringify(actions.map((a) => a.title))}`);
      assert.equal(fix.kind, 'quickfix');
      assert.ok(fix.edit.changes[uri].length > 0, `${code}: the fix edits the buffer`);
    }
    await srv.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  });

  test('asks to trust the workspace hooks with Trust / Not now', async () => {
    await waitFor(
      () => srv.user.prompts.length > 0,
      () => 'the trust prompt',
    );
    assert.deepEqual(srv.user.prompts[0].titles, ['Trust', 'Not now']);
    assert.match(srv.user.prompts[0].message, /project hook ran/);
  });

  test('sessionStart runs SessionStart hooks and returns their context', async () => {
    const res = await srv.api.sessionStart({ source: 'startup' });
    sessionId = res.sessionId;
    assert.match(sessionId, /^[A-Za-z0-9_-]+$/);
    assert.ok(fs.existsSync(res.transcriptPath), res.transcriptPath);
    assert.equal(res.continue, true);
    assert.deepEqual(res.additionalContext, ['notes app; started from startup']);
    assert.deepEqual(res.env, {});
    assert.ok(Array.isArray(res.blocks));
    // From here on the API keeps a copy of the session from the deltas alone
    // (checked against getSession at the end).
    const copy = await srv.api.sessions.get(sessionId);
    assert.equal(copy.sessionId, sessionId);
  });

  test('userPromptSubmit: context from exit 0, blocked on exit 2', async () => {
    const ok = await srv.api.userPromptSubmit({ sessionId, prompt: 'add a search box' });
    assert.equal(ok.blocked, false);
    assert.deepEqual(ok.additionalContext, ['prompt has 16 characters']);
    const blocked = await srv.api.userPromptSubmit({ sessionId, prompt: 'my password is hunter2' });
    assert.equal(blocked.blocked, true);
    assert.match(blocked.reason ?? '', /prompt contains a password/);
    const api = await srv.api.apiMessages({ sessionId });
    assert.ok(!JSON.stringify(api.messages).includes('hunter2'), 'a blocked prompt never reaches the model');
  });

  test('addAssistantMessage records text and tool calls', async () => {
    const res = await srv.api.addAssistantMessage({
      sessionId,
      blocks: [
        { type: 'text', content: 'I will clean up and write the file.' },
        { type: 'tool', id: 'tu-1', name: 'Bash', input: { command: 'rm -rf /' } },
        { type: 'tool', id: 'tu-2', name: 'Write', input: { file_path: path.join(root, 'notes.txt'), content: 'hi' } },
      ],
    });
    assert.deepEqual(res, {});
  });

  test('preToolUse: a deny hook (exit 2) denies with its stderr', async () => {
    const res = await srv.api.preToolUse({ sessionId, toolUseId: 'tu-1', toolName: 'Bash', toolInput: { command: 'rm -rf /' } });
    assert.equal(res.permission, 'deny');
    assert.equal(res.decision, 'deny');
    assert.equal(res.asked, false);
    assert.match(res.reason ?? '', /rm -rf is not allowed/);
    const allowed = await srv.api.preToolUse({ sessionId, toolUseId: 'tu-0', toolName: 'Bash', toolInput: { command: 'ls' } });
    assert.equal(allowed.permission, 'allow');
    assert.equal(allowed.decision, 'none', 'no hook decided: the agent applies its own permission rules');
  });

  test('preToolUse: an ask answered Allow through window/showMessageRequest', async () => {
    srv.user.askAnswers.push('Allow');
    const file = path.join(root, 'notes.txt');
    const res = await srv.api.preToolUse({
      sessionId,
      toolUseId: 'tu-2',
      toolName: 'Write',
      toolInput: { file_path: file, content: 'hi' },
    });
    assert.equal(res.permission, 'allow');
    assert.equal(res.decision, 'ask');
    assert.equal(res.asked, true);
    assert.equal(res.continue, true);
    assert.match(srv.user.asked.at(-1) ?? '', /Write/);
    // The ask was also shown as a diagnostic on the file, and withdrawn once answered.
    const onFile = srv.notifications('textDocument/publishDiagnostics').filter((p) => p.uri === 'file://' + file);
    assert.ok(
      onFile.some((p) => p.diagnostics.some((d: any) => d.code === 'wave.ask')),
      'a wave.ask diagnostic on the file',
    );
    await waitFor(
      () => srv.diagnostics(file)?.length === 0,
      () => 'the ask diagnostic to be withdrawn',
    );
  });

  test('preToolUse: an ask answered through wave/listPermissions + wave/resolvePermission', async () => {
    srv.user.askAnswers.push('wait'); // the prompt stays up until the server withdraws it
    const withdrawnBefore = srv.user.withdrawn;
    const askedBefore = srv.user.asked.length;
    const pre = srv.api.preToolUse({
      sessionId,
      toolUseId: 'tu-3',
      toolName: 'Edit',
      toolInput: { file_path: path.join(root, 'todo.txt'), old_string: 'a', new_string: 'b' },
    });
    // The ask is pending from before its prompt is sent.
    await waitFor(
      () => srv.user.asked.length > askedBefore,
      () => 'the ask prompt',
    );
    const { pending } = await srv.api.listPermissions();
    assert.equal(pending.length, 1, 'one pending ask');
    assert.equal(pending[0].toolName, 'Edit');
    assert.equal(pending[0].sessionId, sessionId);
    assert.match(pending[0].reason, /writes .*todo\.txt/);
    const r = await srv.api.resolvePermission({ id: pending[0].id, decision: 'deny' });
    assert.equal(r.resolved, true);
    const res = await pre;
    assert.equal(res.permission, 'deny');
    assert.equal(res.asked, true);
    assert.equal(res.continue, false, "a user's deny ends the turn");
    await waitFor(
      () => srv.user.withdrawn > withdrawnBefore,
      () => 'the showMessageRequest prompt to be withdrawn ($/cancelRequest)',
    );
    const again = await srv.api.resolvePermission({ id: pending[0].id, decision: 'allow' });
    assert.equal(again.resolved, false, 'the first answer wins');
    assert.deepEqual((await srv.api.listPermissions()).pending, []);
  });

  test('preToolUse: an ask answered with the wave.permission.allow code action of its diagnostic', async () => {
    srv.user.askAnswers.push('wait');
    const file = path.join(root, 'readme.txt');
    const pre = srv.api.preToolUse({ sessionId, toolUseId: 'tu-4', toolName: 'Write', toolInput: { file_path: file, content: 'x' } });
    const diag = await waitFor(
      () => srv.diagnostics(file)?.find((d) => d.code === 'wave.ask'),
      () => 'the wave.ask diagnostic',
    );
    const [pending] = (await srv.api.listPermissions()).pending;
    assert.deepEqual(diag.data, { permissionId: pending.id }, "the diagnostic carries the ask's id");
    const r: any = await srv.conn.sendRequest('workspace/executeCommand', {
      command: 'wave.permission.allow',
      arguments: [diag.data.permissionId],
    });
    assert.equal(r.resolved, true);
    const res = await pre;
    assert.equal(res.permission, 'allow');
    assert.equal(res.asked, true);
  });

  test('postToolUse: additionalContext from a JSON answer', async () => {
    const res = await srv.api.postToolUse({
      sessionId,
      toolUseId: 'tu-2',
      toolName: 'Write',
      toolInput: { file_path: path.join(root, 'notes.txt'), content: 'hi' },
      toolResponse: { success: true, filePath: path.join(root, 'notes.txt') },
    });
    assert.equal(res.blocked, false);
    assert.deepEqual(res.additionalContext, ['file written; run the tests']);
    assert.deepEqual(res.toolResponse, { success: true, filePath: path.join(root, 'notes.txt') }, 'the effective output: no hook replaced it');
  });

  test('stop: blocked once by exit 2, then allowed', async () => {
    const first = await srv.api.stop({ sessionId });
    assert.equal(first.blocked, true);
    assert.match(first.reason ?? '', /run the tests first/);
    const second = await srv.api.stop({ sessionId });
    assert.equal(second.blocked, false);
  });

  test('getSession and apiMessages return the conversation', async () => {
    const s = await srv.api.getSession({ sessionId });
    assert.equal(s.sessionId, sessionId);
    assert.ok(s.messages.length >= 3);
    const text = JSON.stringify(s.messages);
    assert.match(text, /add a search box/);
    assert.match(text, /rm -rf is not allowed/);
    const file = JSON.parse(fs.readFileSync(s.transcriptPath, 'utf8'));
    assert.equal(file.state.messages.length, s.messages.length, 'the transcript on disk has every message');
    const api = await srv.api.apiMessages({ sessionId });
    assert.ok(api.messages.length > 0);
    assert.ok(api.messages.every((m) => m.role === 'user' || m.role === 'assistant'));
    assert.match(JSON.stringify(api.messages), /\[Hook:SessionStart\]|notes app/);
  });

  test('sends wave/sessionChanged and wave/hookRun notifications', async () => {
    const changed = await srv.waitNotification('wave/sessionChanged', (p) => p.sessionId === sessionId);
    assert.ok(Array.isArray(changed.messages));
    for (const k of ['version', 'since', 'from']) {
      assert.equal(typeof changed[k], 'number', k);
    }
    assert.equal(typeof changed.full, 'boolean');
    await srv.waitNotification('wave/hookRun', (p) => p.event === 'Stop');
  });

  test('the session copy kept from deltas equals getSession, fetched only once', async () => {
    const whole = await srv.api.getSession({ sessionId });
    const copy = await waitFor(
      () => {
        const c = srv.api.sessions.peek(sessionId);
        return c && c.version === whole.version && c;
      },
      () => `the copy at version ${whole.version}; it is at ${srv.api.sessions.peek(sessionId)?.version}`,
    );
    assert.deepEqual(copy.messages, whole.messages);
    assert.equal(srv.api.sessions.fetches, 1, 'every delta followed on: no fetch after the first');
    const deltas = srv.notifications('wave/sessionChanged').filter((p) => p.sessionId === sessionId);
    assert.ok(deltas.length >= 8, `one per change: ${deltas.length}`);
    assert.ok(
      deltas.slice(1).every((p) => p.from > 0 && !p.full),
      'after the first, no delta resends the whole conversation',
    );
  });

  test('hookRuns explains each run: stdin, stderr, decision; newest first; filters', async () => {
    const { runs } = await srv.api.hookRuns({ sessionId });
    assert.ok(runs.length >= 8, `runs: ${runs.length}`);
    for (let i = 1; i < runs.length; i++) {
      assert.ok(runs[i - 1].id > runs[i].id, 'newest first');
    }
    const deny = runs.find((r) => r.event === 'PreToolUse' && r.hooks.some((h) => /rm -rf is not allowed/.test(h.stderr)));
    assert.ok(deny, 'the denied Bash call is in the history');
    assert.equal(deny.matchValue, 'Bash');
    assert.match(deny.stdin, /"tool_name":\s*"Bash"/);
    const ran = deny.hooks.find((h) => h.ran)!;
    assert.equal(ran.exitCode, 2);
    const notMatched = deny.hooks.find((h) => h.matcher === 'Write|Edit');
    assert.ok(notMatched && !notMatched.matched && notMatched.why, 'the Write|Edit hook says why it did not match');
    const text = formatEventRun(deny as EventRun);
    assert.match(text, /PreToolUse \(Bash\)/);
    assert.match(text, /rm -rf is not allowed/);
    assert.match(text, /stdin:/);
    assert.match(text, /did not match/);

    if (process.env.WAVEHOOKS_PRINT_RUNS) {
      console.log([...runs].reverse().map(formatEventRun).join('\n'));
      console.log(JSON.stringify(runs[0]));
    }
    const one = await srv.api.hookRuns({ event: 'Stop', limit: 1 });
    assert.equal(one.runs.length, 1);
    assert.equal(one.runs[0].event, 'Stop');
    assert.equal(srv.notifications('wave/hookRun').filter((r) => r.sessionId === sessionId).length, runs.length);
  });

  test("untrusted workspace hooks are skipped, then run once trusted (wave.trustWorkspace)", async () => {
    await srv.api.preToolUse({ sessionId, toolUseId: 'tu-5', toolName: 'Read', toolInput: { file_path: path.join(root, 'a') } });
    let run = (await srv.api.hookRuns({ sessionId, event: 'PreToolUse', limit: 1 })).runs[0];
    const project = run.hooks.find((h) => h.source === 'project')!;
    assert.ok(project.skipped, `the project hook is skipped: ${JSON.stringify(project)}`);
    assert.match(formatEventRun(run), /skipped:/);

    await srv.conn.sendRequest('workspace/executeCommand', { command: 'wave.trustWorkspace', arguments: [] });
    await srv.waitNotification('wave/hooksChanged', (p) => p.trusted === true);
    await srv.api.preToolUse({ sessionId, toolUseId: 'tu-6', toolName: 'Read', toolInput: { file_path: path.join(root, 'a') } });
    run = (await srv.api.hookRuns({ sessionId, event: 'PreToolUse', limit: 1 })).runs[0];
    const ranNow = run.hooks.find((h) => h.source === 'project')!;
    assert.equal(ranNow.ran, true);
    assert.match(ranNow.stdout, /project hook ran/);
  });

  test('runHooks fires an event without a typed method (Notification)', async () => {
    const res: any = await srv.api.runHooks({ sessionId, event: 'Notification', input: { message: 'waiting for input' } });
    assert.ok(Array.isArray(res.blocks));
    assert.equal(res.continue, true);
    assert.equal(fs.readFileSync(path.join(hooksDir, 'notified'), 'utf8').trim(), 'waiting for input');
  });

  test('the Run hook code lens runs a hook with sample input (wave.runHook)', async () => {
    const lenses: any[] = await srv.conn.sendRequest('textDocument/codeLens', { textDocument: { uri: 'file://' + userSettings() } });
    const bash = lenses.find((l) => /PreToolUse/.test(l.command.title) && l.command.arguments[0] === userSettings());
    assert.ok(bash, JSON.stringify(lenses));
    assert.equal(bash.command.command, 'wave.runHook');
    const res = (await srv.conn.sendRequest('workspace/executeCommand', {
      command: 'wave.runHook',
      arguments: bash.command.arguments,
    })) as RunHookResult;
    assert.equal(res.event, 'PreToolUse');
    assert.match(res.stdin, /hook_event_name/);
    assert.ok(res.run.ran);
    assert.match(formatRunHookResult(res), /Ran PreToolUse hook/);
    await srv.waitNotification('window/showMessage', (p) => /PreToolUse hook/.test(p.message));
  });

  test('sessionEnd runs SessionEnd hooks', async () => {
    const res = await srv.api.sessionEnd({ sessionId, reason: 'logout' });
    assert.ok(Array.isArray(res.blocks));
    assert.equal(fs.readFileSync(path.join(hooksDir, 'ended'), 'utf8').trim(), 'logout');
  });

  test('bad params come back as errors naming the field', async () => {
    await assert.rejects(srv.api.resolvePermission({ id: 'x', decision: 'maybe' as any }), /decision/);
    await assert.rejects(srv.api.request('wave/noSuchMethod', {}), /wave\/noSuchMethod/);
  });

  test('shutdown then exit ends the server with code 0', async () => {
    await srv.conn.sendRequest('shutdown');
    await srv.conn.sendNotification('exit');
    assert.equal(await srv.waitExit(), 0);
  });
});
