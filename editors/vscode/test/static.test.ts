// Checks that need no server: the settings schema (valid, accepts real
// settings, rejects broken ones, knows every event the server knows), the
// manifest's contributions, and the pure helpers of the extension.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';

import Ajv from 'ajv';
import { parse, ParseError } from 'jsonc-parser';

import { describePending, durationNs, formatEventRun, formatRunHookResult } from '../src/format';
import { answerShowMessageRequest, askPermissionId, classifyPrompt, PromptUI } from '../src/prompts';
import { safeBlock, safeLine } from '../src/safetext';
import { USER_ONLY_SETTINGS } from '../src/userSettings';
import { EventRun } from '../src/wire';

const ext = path.join(__dirname, '..', '..');
const repo = path.join(ext, '..', '..');
const schema = JSON.parse(fs.readFileSync(path.join(ext, 'schemas', 'settings.schema.json'), 'utf8'));
const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));

function jsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const v = parse(text, errors, { allowTrailingComma: true });
  assert.deepEqual(errors, [], 'parses as JSON with comments');
  return v;
}

describe('settings schema', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

  test('accepts the demo settings (comments, trailing commas, every field)', () => {
    const demo = path.join(repo, 'testdata', 'demo', 'settings.json');
    const settings = fs.existsSync(demo)
      ? jsonc(fs.readFileSync(demo, 'utf8'))
      : { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'x' }] }] } };
    assert.ok(validate(settings), JSON.stringify(validate.errors));
    assert.ok(
      validate({ disableAllHooks: false, transcriptFormat: 'jsonl', importClaudeHooks: true, hooks: {}, permissions: {} }),
      JSON.stringify(validate.errors),
    );
  });

  test('accepts the file that registers every event and hook type (testdata/config/all-events.json)', () => {
    const file = path.join(repo, 'testdata', 'config', 'all-events.json');
    const settings = jsonc(fs.readFileSync(file, 'utf8')) as { hooks: Record<string, unknown> };
    assert.equal(Object.keys(settings.hooks).length, 34); // Claude Code 2.1.332's events (docs/parity.md)
    assert.ok(validate(settings), JSON.stringify(validate.errors));
  });

  test('accepts every hook type and option, and needs what each type needs', () => {
    const hooks = [
      { type: 'command', command: 'x', shell: 'bash', once: true, asyncRewake: true, args: ['a'], cwd: 'src', env: { A: 'b' } },
      { type: 'http', url: 'http://127.0.0.1:8080/h', headers: { Authorization: 'Bearer $T' }, allowedEnvVars: ['T'], timeout: 5 },
      { type: 'prompt', prompt: 'Safe? $ARGUMENTS', model: 'fast', continueOnBlock: true },
      { type: 'agent', prompt: 'Verify', timeout: 120 },
      { type: 'mcp_tool', server: 'db', tool: 'scan', input: { file: '${tool_input.file_path}' } },
    ];
    const ok = { allowedHttpHookUrls: ['http://127.0.0.1:*/*'], httpHookAllowedEnvVars: ['T'], hooks: { Stop: [{ hooks }] } };
    assert.ok(validate(ok), JSON.stringify(validate.errors));
    for (const h of [{ type: 'http' }, { type: 'http', url: 'ftp://x' }, { type: 'prompt' }, { type: 'agent', prompt: '' },
      { type: 'mcp_tool', server: 'db' }, { type: 'command', command: 'x', shell: 'fish' }]) {
      assert.equal(validate({ hooks: { Stop: [{ hooks: [h] }] } }), false, `rejects ${JSON.stringify(h)}`);
    }
  });

  test('rejects unknown events, hook types, empty commands and bad timeouts', () => {
    const bad = [
      { hooks: { PreToolUs: [{ hooks: [{ type: 'command', command: 'x' }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: 'shell', command: 'x' }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: 'command', command: '' }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: '30' }] }] } },
      { hooks: { Stop: [{ hook: [] }] } },
      { transcriptFormat: 'yaml' },
    ];
    for (const b of bad) {
      assert.equal(validate(b), false, `rejects ${JSON.stringify(b)}`);
    }
  });

  test('knows exactly the hook keys the server knows (internal/settings/keydocs.go HookKeys)', () => {
    // The repository is always here: a missing file is a rename this test
    // must follow, not a reason to skip.
    const src = path.join(repo, 'internal', 'settings', 'keydocs.go');
    const m = fs.readFileSync(src, 'utf8').match(/var HookKeys = \[\]string\{([^}]*)\}/);
    assert.ok(m, 'HookKeys in internal/settings/keydocs.go');
    const keys = [...m[1].matchAll(/"(\w+)"/g)].map((k) => k[1]).sort();
    assert.deepEqual(Object.keys(schema.definitions.hook.properties).sort(), keys);
    const hook = { type: 'command', command: 'x', if: 'Bash(git *)', args: ['a'], cwd: 'sub', env: { A: 'b' }, async: true };
    assert.ok(validate({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }), JSON.stringify(validate.errors));
  });

  test('names exactly the events the server knows (internal/event/event.go)', () => {
    const src = path.join(repo, 'internal', 'event', 'event.go');
    const known = [...fs.readFileSync(src, 'utf8').matchAll(/^\s*\w+\s+Event = "(\w+)"/gm)].map((m) => m[1]).sort();
    assert.ok(known.length >= 6);
    assert.deepEqual(Object.keys(schema.properties.hooks.properties).sort(), known);
  });
});

describe('extension manifest', () => {
  const source = fs.readFileSync(path.join(ext, 'src', 'extension.ts'), 'utf8');

  test('every contributed command is registered by the extension', () => {
    for (const c of manifest.contributes.commands) {
      assert.ok(source.includes(`registerCommand('${c.command}'`), `${c.command} is registered`);
    }
  });

  test('validates and associates jsonc with the wave settings files', () => {
    const patterns = ['**/.wave/settings.json', '**/.wave/settings.local.json'];
    const v = manifest.contributes.jsonValidation[0];
    assert.deepEqual(v.fileMatch, patterns);
    assert.ok(fs.existsSync(path.join(ext, v.url)));
    const jsoncLang = manifest.contributes.languages.find((l: any) => l.id === 'jsonc');
    assert.deepEqual(jsoncLang.filenamePatterns, patterns);
  });

  test('activates for the settings files it serves, or when an agent extension asks for its API; not at every startup', () => {
    assert.deepEqual(manifest.activationEvents, [
      'workspaceContains:.wave/settings.json',
      'workspaceContains:.wave/settings.local.json',
      'workspaceContains:.claude/settings.json',
      'workspaceContains:.claude/settings.local.json',
      // hook test case files where `wavehooks test` looks by default (their "▶ Run tests" lens)
      'workspaceContains:.wave/tests/**/*.test.{json,jsonc}',
    ]);
    // The client's document selector serves the same files.
    assert.match(source, /const SETTINGS_PATTERN = '\*\*\/\{\.wave,\.claude\}\/settings\{,\.local\}\.json'/);
    assert.match(source, /const CASE_FILE_PATTERN = '\*\*\/\*\.test\.\{json,jsonc\}'/);
  });

  test('leaves wavehooks.trace.server to vscode-languageclient, with its values', () => {
    const trace = manifest.contributes.configuration.properties['wavehooks.trace.server'];
    assert.deepEqual(trace.enum, ['off', 'messages', 'verbose']); // vscode-jsonrpc's Trace.fromString
    assert.doesNotMatch(source, /setTrace|trace\.server'/, 'no code of its own sets the trace');
  });

  test('declares the settings the extension reads', () => {
    const props = Object.keys(manifest.contributes.configuration.properties);
    for (const m of source.matchAll(/(?:get|userSetting)<\w+>\('([\w.]+)'/g)) {
      assert.ok(props.includes(`wavehooks.${m[1]}`), `wavehooks.${m[1]} is declared`);
    }
  });

  test('a repository cannot set the server, the wave home or trust: scope "machine", read only through userSetting', () => {
    const props = manifest.contributes.configuration.properties;
    for (const key of USER_ONLY_SETTINGS) {
      assert.equal(props[`wavehooks.${key}`].scope, 'machine', `wavehooks.${key}'s scope`);
      assert.doesNotMatch(source, new RegExp(`get<\\w+>\\('${key}'`), `wavehooks.${key} is read with get(), which a workspace value can reach`);
      assert.match(source, new RegExp(`userSetting<\\w+>\\('${key}'`), `wavehooks.${key} is read with userSetting`);
    }
    // Every other setting may come from a workspace: none of them chooses what runs or weakens trust.
    const others = Object.entries(props).filter(([k]) => !USER_ONLY_SETTINGS.some((u) => k === `wavehooks.${u}`));
    assert.deepEqual(others.map(([k]) => k), ['wavehooks.askTimeoutSeconds', 'wavehooks.askStyle', 'wavehooks.trace.server']);
  });
});

describe('helpers', () => {
  test('durationNs reads nanoseconds and Go duration text', () => {
    assert.equal(durationNs(1_500_000), 1_500_000);
    assert.equal(durationNs('4.5ms'), 4_500_000);
    assert.equal(durationNs('1m2.5s'), 62_500_000_000);
    assert.equal(durationNs('850µs'), 850_000);
    assert.equal(durationNs('nonsense'), undefined);
  });

  test('formatEventRun shows skipped, timed-out and invalid-JSON hooks', () => {
    const base = {
      source: 'project',
      file: '/p/.wave/settings.json',
      matcher: '',
      matched: true,
      why: 'the event has no matcher',
      ran: false,
      exitCode: 0,
      durationNs: 0,
      timedOut: false,
      stdout: '',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      json: false,
      problems: [],
      decision: '',
    };
    const run: EventRun = {
      id: 7,
      time: '2025-01-02T03:04:05Z',
      sessionId: 's1',
      event: 'Stop',
      stdin: '{"hook_event_name":"Stop"}',
      outcome: 'blocked',
      hooks: [
        { ...base, command: 'untrusted.sh', skipped: 'the workspace is not trusted' },
        { ...base, command: 'slow.sh', source: 'user', ran: true, timedOut: true, durationNs: '1s', decision: 'error: hook timed out after 1s' },
        { ...base, command: 'bad.sh', source: 'user', ran: true, stdout: '{"decision": 3}', problems: ['decision must be a string'] },
      ],
    };
    const text = formatEventRun(run);
    assert.match(text, /#7 Stop session s1 → blocked/);
    assert.match(text, /skipped: the workspace is not trusted/);
    assert.match(text, /timed out after 1\.0 s/);
    assert.match(text, /problem: decision must be a string/);
    assert.match(text, /"hook_event_name": "Stop"/);
    assert.deepEqual(describePending({ id: 'ask-1', sessionId: 's', toolName: 'Write', toolInput: { a: 1 }, reason: 'why' }).label, 'Write: why');
  });

  test("the output channel shows a repository's and a hook's terminal sequences escaped, never raw", () => {
    const osc52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
    const clear = '\x1b[2J';
    const run: EventRun = {
      id: 1,
      time: '2025-01-02T03:04:05Z',
      sessionId: 's1',
      event: 'PreToolUse',
      matchValue: `Bash${clear}`,
      stdin: JSON.stringify({ tool_input: { command: `ls ${osc52}\u202e\u0085` } }),
      outcome: `deny; reason: no ${osc52}`,
      hooks: [
        {
          source: 'project',
          file: `/p/${clear}/settings.json`,
          matcher: `Bash${clear}`,
          matched: true,
          why: `matcher lists Bash${clear}`,
          command: `guard.sh # ${osc52}${clear}`,
          statusMessage: `${osc52} checking\u202e`,
          ran: true,
          exitCode: 2,
          durationNs: 1_000_000,
          timedOut: false,
          stdout: `out ${clear}\r\ttab\n`,
          stderr: `no ${osc52}\nsecond line\u200b\n`,
          stdoutTruncated: false,
          stderrTruncated: false,
          json: false,
          problems: [`bad ${clear}`],
          decision: `exit 2: deny ${osc52}`,
        },
      ],
    };
    const texts = [
      formatEventRun(run),
      formatRunHookResult({ event: 'PreToolUse', command: run.hooks[0].command, outcome: run.outcome, run: run.hooks[0], stdin: run.stdin }),
      describePending({ id: 'ask-1', sessionId: 's', toolName: `Write${clear}`, toolInput: { a: osc52 }, reason: `why ${osc52}\u202e` }).label,
    ];
    for (const text of texts) {
      assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u, JSON.stringify(text));
    }
    const text = texts[0];
    assert.match(text, /hook 1: guard\.sh # \\u001b\]52;c;ZWNobyBwd25lZA==\\u0007\\u001b\[2J/);
    assert.match(text, /status message: \\u001b\]52;c;ZWNobyBwd25lZA==\\u0007 checking\\u202e/);
    assert.match(text, /\n {6}out \\u001b\[2J\\r\ttab\n/, 'stdout keeps its tab, escapes the return');
    assert.match(text, /\n {6}no \\u001b\]52;c;ZWNobyBwd25lZA==\\u0007\n {6}second line\\u200b\n/, 'stderr keeps its lines');
    assert.match(text, /\\u202e\\u0085/, 'the stdin, pretty-printed: JSON.stringify leaves bidi and C1 raw');
    assert.equal(texts[2], 'Write\\u001b[2J: why \\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\u202e');
  });

  test('safeLine and safeBlock escape what the server escapes', () => {
    assert.equal(safeLine('a\nb\r\tc\x00\x7f\x9b\u202e\u2028\ud800 é → 失敗'), 'a\\nb\\r\\tc\\u0000\\u007f\\u009b\\u202e\\u2028\\ud800 é → 失敗');
    assert.equal(safeLine('tag \u{e0041}'), 'tag \\U000e0041');
    assert.equal(safeBlock('a\n\tb\rc\x1b'), 'a\n\tb\\rc\\u001b');
  });

  test('prompts: asks (by their permission id) and trust prompts are told apart; a dismissed ask is null', async () => {
    const ask = [
      { title: 'Allow', permissionId: 'ask-1' },
      { title: 'Deny', permissionId: 'ask-1' },
    ];
    assert.equal(classifyPrompt({ type: 2, message: 'm', actions: ask }), 'ask');
    assert.equal(askPermissionId({ type: 2, message: 'whatever the text says', actions: ask }), 'ask-1');
    // Allow / Deny without an id is some other prompt, shown as it comes and answered by title.
    assert.equal(classifyPrompt({ type: 2, message: 'Hook asks: allow Write?', actions: [{ title: 'Allow' }, { title: 'Deny' }] }), 'other');
    assert.equal(
      classifyPrompt({ type: 2, message: 'm', actions: [{ title: 'Allow', permissionId: 'ask-1' }, { title: 'Deny', permissionId: 'ask-2' }] }),
      'other',
    );
    assert.equal(classifyPrompt({ type: 2, message: 'm', actions: [{ title: 'Trust' }, { title: 'Not now' }] }), 'trust');
    assert.equal(classifyPrompt({ type: 3, message: 'm' }), 'other');
    const never = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    const ui: PromptUI = { ask: async () => undefined, choose: async (_t, _m, titles) => titles[1] };
    assert.equal(await answerShowMessageRequest({ type: 2, message: 'm', actions: ask }, ui, never), null);
    const allow: PromptUI = { ask: async () => 'Allow', choose: async () => undefined };
    assert.deepEqual(await answerShowMessageRequest({ type: 2, message: 'm', actions: ask }, allow, never), ask[0]);
    assert.deepEqual(
      await answerShowMessageRequest({ type: 2, message: 'm', actions: [{ title: 'Trust' }, { title: 'Not now' }] }, ui, never),
      { title: 'Not now' },
    );
  });
});
