// A benchmark client: the real wavehooks binary driven through vscode-jsonrpc,
// the library VS Code's language client is built on, as the extension drives
// it. It reads one JSON command per line on stdin and answers each with one
// JSON line on stdout, so that a Go benchmark (cmd/wavehooks/realclient_test.go)
// can run it as a separate process and interleave its own baseline (a bare
// `sh -c true`) with single requests. Times are measured here, around each
// request, with process.hrtime; they are reported in microseconds.
//
//   node bench/client.js <path to wavehooks>
//
// Commands: start {home, root}; session {sessionId?, source?}; noop; pre
// {sessionId, id}; turns {sessionId, n, window, pattern}; concurrent
// {sessions, turns}; stop.
'use strict';

const { spawn } = require('child_process');
const readline = require('readline');
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-jsonrpc/node');

const bin = process.argv[2];
let proc;
let conn;
// Bytes of the server's notifications (their params as JSON), by method.
const notified = new Map();

function now() {
  return process.hrtime.bigint();
}

function us(start) {
  return Number(now() - start) / 1000;
}

function notifiedBytes(method) {
  return notified.get(method) ?? 0;
}

function p50(xs) {
  if (xs.length === 0) {
    return 0;
  }
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function start({ home, root }) {
  proc = spawn(bin, ['serve', '--stdio', '--log-level', 'error'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, WAVE_HOME: home } });
  conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onNotification((method, params) => {
    notified.set(method, notifiedBytes(method) + Buffer.byteLength(JSON.stringify(params)));
  });
  conn.onRequest(() => null); // showMessageRequest, workDoneProgress/create, codeLens/refresh
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: 'file://' + root,
    capabilities: {},
    initializationOptions: { waveHome: home, trustWorkspaceHooks: true },
  });
  await conn.sendNotification('initialized', {});
  return { pid: proc.pid };
}

async function session({ sessionId, source }) {
  const t = now();
  const r = await conn.sendRequest('wave/sessionStart', { ...(sessionId ? { sessionId } : {}), source: source ?? 'startup' });
  return { us: us(t), sessionId: r.sessionId };
}

// The RPC floor: a request the server answers without touching a session.
async function noop() {
  const t = now();
  await conn.sendRequest('wave/listPermissions', {});
  return { us: us(t) };
}

const input = { command: 'ls -la', description: 'list the files in the working directory' };

async function pre({ sessionId, id }) {
  const t = now();
  await conn.sendRequest('wave/preToolUse', { sessionId, toolUseId: id, toolName: 'Bash', toolInput: input });
  return { us: us(t) };
}

// One agent turn with a fresh tool id. pattern "turn": addAssistantMessage
// with a text and the tool block, preToolUse, postToolUse; "pre-post": the
// same without addAssistantMessage (a proxy). Returns preToolUse's time.
async function turn(sessionId, id, pattern) {
  if (pattern === 'turn') {
    await conn.sendRequest('wave/addAssistantMessage', {
      sessionId,
      blocks: [{ type: 'text', content: 'Let me look at the files.' }, { type: 'tool', id, name: 'Bash', input }],
    });
  }
  const t = now();
  await conn.sendRequest('wave/preToolUse', { sessionId, toolUseId: id, toolName: 'Bash', toolInput: input });
  const preUs = us(t);
  await conn.sendRequest('wave/postToolUse', {
    sessionId,
    toolUseId: id,
    toolName: 'Bash',
    toolInput: input,
    toolResponse: { output: 'a.go\nb.go\nc.go\nREADME.md', success: true },
  });
  return preUs;
}

// n turns on one session; each turn also makes one no-op request (the floor,
// in the same state of the machine). Reports the first and last window.
async function turns({ sessionId, n, window, pattern }) {
  const pre = [];
  const floor = [];
  const bytes = []; // sessionChanged bytes per turn
  const allBytes = []; // every notification's bytes per turn
  const total = () => [...notified.values()].reduce((a, b) => a + b, 0);
  const started = now();
  for (let i = 0; i < n; i++) {
    const b0 = notifiedBytes('wave/sessionChanged');
    const a0 = total();
    pre.push(await turn(sessionId, `toolu_${pattern}_${i}`, pattern));
    floor.push((await noop()).us);
    bytes.push(notifiedBytes('wave/sessionChanged') - b0);
    allBytes.push(total() - a0);
  }
  const wallUs = us(started);
  const first = (xs) => xs.slice(0, window);
  const last = (xs) => xs.slice(xs.length - window);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  return {
    preFirstP50: p50(first(pre)),
    preLastP50: p50(last(pre)),
    preP50: p50(pre),
    floorFirstP50: p50(first(floor)),
    floorLastP50: p50(last(floor)),
    floorP50: p50(floor),
    changedBytesFirst: mean(first(bytes)),
    changedBytesLast: mean(last(bytes)),
    notifyBytesFirst: mean(first(allBytes)),
    notifyBytesLast: mean(last(allBytes)),
    changedBytesTotal: bytes.reduce((a, b) => a + b, 0),
    turnUs: wallUs / n,
  };
}

// Many sessions at once, each running its turns in order: the preToolUse
// p50 and throughput, and the p50 of as many concurrent no-op requests.
async function concurrent({ sessions, turns: n }) {
  const ids = [];
  for (let s = 0; s < sessions; s++) {
    ids.push((await session({})).sessionId);
  }
  const floor = [];
  await Promise.all(
    ids.map(async () => {
      for (let i = 0; i < n; i++) {
        floor.push((await noop()).us);
      }
    }),
  );
  const pre = [];
  const started = now();
  await Promise.all(
    ids.map(async (sid, s) => {
      for (let i = 0; i < n; i++) {
        pre.push(await turn(sid, `toolu_c${s}_${i}`, 'turn'));
      }
    }),
  );
  const wallUs = us(started);
  return { preP50: p50(pre), floorP50: p50(floor), turnsPerSecond: (sessions * n) / (wallUs / 1e6) };
}

async function stop() {
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  await new Promise((resolve) => proc.on('exit', resolve));
  conn.dispose();
  return {};
}

const ops = { start, session, noop, pre, turns, concurrent, stop };

const rl = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on('line', (line) => {
  queue = queue.then(async () => {
    let out;
    try {
      const cmd = JSON.parse(line);
      out = await ops[cmd.op](cmd);
    } catch (err) {
      out = { error: String(err && err.stack ? err.stack : err) };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
});
rl.on('close', () => {
  queue.then(() => {
    if (proc && proc.exitCode === null) {
      proc.kill();
    }
  });
});
