// wave/evaluateHook through vscode-jsonrpc against the real server: an agent
// extension's handler (api.onEvaluateHook) evaluates prompt and mcp_tool
// hooks; without one, the hooks do not run and the user is told once.
// The model is the only part mocked: the handler plays it.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { EvaluateHookParams } from '../src/wire';
import { BIN, ServerUnderTest, tempDir } from './harness';

describe('prompt and mcp_tool hooks evaluated by the agent (wave/evaluateHook)', () => {
  let srv: ServerUnderTest;
  let sessionId: string;

  before(async () => {
    assert.ok(fs.existsSync(BIN), `no server binary at ${BIN}`);
    const tmp = tempDir();
    const home = path.join(tmp, 'home');
    const root = path.join(tmp, 'project');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(
      path.join(home, 'settings.json'),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: 'prompt', prompt: 'Is this on topic? $ARGUMENTS', model: 'fast' }] }],
          PostToolUse: [
            { matcher: 'Write', hooks: [{ type: 'mcp_tool', server: 'lint', tool: 'check', input: { file: '${tool_input.file_path}' } }] },
          ],
        },
      }),
    );
    srv = new ServerUnderTest(tmp);
    await srv.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: 'file://' + root,
      capabilities: { experimental: { waveEvaluateHook: true } },
      initializationOptions: { waveHome: home },
    });
    await srv.conn.sendNotification('initialized', {});
    sessionId = (await srv.api.sessionStart({ source: 'startup' })).sessionId;
  });

  after(() => srv?.kill());

  test('without a handler the hook does not run, and the user is told once per session', async () => {
    const res = await srv.api.userPromptSubmit({ sessionId, prompt: 'hello' });
    assert.equal(res.blocked, false);
    const warns = res.blocks.filter((b) => b.type === 'warn').map((b) => b.content ?? '');
    assert.equal(warns.length, 1);
    assert.match(warns[0], /prompt hook `prompt: Is this on topic\? \$ARGUMENTS \(model fast\)` did not run: it needs an agent host/);
    assert.match(warns[0], /no agent extension evaluates hooks/);
    const again = await srv.api.userPromptSubmit({ sessionId, prompt: 'hello again' });
    assert.equal(again.blocks.filter((b) => b.type === 'warn').length, 0);
    const { runs } = await srv.api.hookRuns({ sessionId, event: 'UserPromptSubmit', limit: 1 });
    assert.equal(runs[0].hooks[0].ran, false);
    assert.match(runs[0].hooks[0].skipped ?? '', /^needs an agent host: /);
  });

  test("the agent's handler answers: ok:false blocks the prompt", async () => {
    const asked: EvaluateHookParams[] = [];
    const registration = srv.api.onEvaluateHook((p) => {
      asked.push(p);
      return /password/.test(p.prompt ?? '') ? { ok: false, reason: 'do not paste passwords' } : { ok: true };
    });
    try {
      const blocked = await srv.api.userPromptSubmit({ sessionId, prompt: 'my password is hunter2' });
      assert.equal(blocked.blocked, true);
      assert.equal(blocked.reason, 'do not paste passwords');
      const fine = await srv.api.userPromptSubmit({ sessionId, prompt: 'add a test' });
      assert.equal(fine.blocked, false);
      assert.equal(asked.length, 2);
      assert.equal(asked[0].type, 'prompt');
      assert.equal(asked[0].event, 'UserPromptSubmit');
      assert.equal(asked[0].sessionId, sessionId);
      assert.equal(asked[0].model, 'fast');
      assert.equal(asked[0].input.prompt, 'my password is hunter2');
      assert.equal(asked[0].prompt, 'Is this on topic? ' + JSON.stringify(asked[0].input));
    } finally {
      registration.dispose();
    }
  });

  test("an mcp_tool hook: the handler calls the agent's MCP tool; its text is read like stdout", async () => {
    const registration = srv.api.onEvaluateHook((p) => {
      assert.equal(p.type, 'mcp_tool');
      assert.equal(p.server, 'lint');
      assert.equal(p.tool, 'check');
      const text = JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `lint found 1 problem in ${String(p.arguments?.file)}` },
      });
      return { content: [{ type: 'text', text }] };
    });
    try {
      const res = await srv.api.postToolUse({
        sessionId,
        toolUseId: 't1',
        toolName: 'Write',
        toolInput: { file_path: '/src/a.ts' },
        toolResponse: { success: true },
      });
      assert.deepEqual(res.additionalContext, ['lint found 1 problem in /src/a.ts']);
    } finally {
      registration.dispose();
    }
  });

  test('a handler that throws makes the hook a non-blocking error', async () => {
    const registration = srv.api.onEvaluateHook(() => {
      throw new Error('the model is unavailable');
    });
    try {
      const res = await srv.api.userPromptSubmit({ sessionId, prompt: 'anything' });
      assert.equal(res.blocked, false);
      assert.ok(
        res.blocks.some((b) => b.type === 'error' && /the model is unavailable/.test(b.content ?? '')),
        JSON.stringify(res.blocks),
      );
    } finally {
      registration.dispose();
    }
  });
});
