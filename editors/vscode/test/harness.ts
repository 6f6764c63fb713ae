// Starts the real wavehooks binary over stdio and speaks to it through
// vscode-jsonrpc, the library VS Code's language client is built on, the way
// the extension does: the same WaveApi, the same showMessageRequest handler.

import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  createMessageConnection,
  ErrorCodes,
  MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

import { answerEvaluateHook, CancellationToken, NoEvaluateHookHandler, NotificationHub, WaveApi } from '../src/api';
import { answerShowMessageRequest, PromptUI, ShowMessageRequestParams } from '../src/prompts';
import { EvaluateHookParams, Notifications, ServerRequests } from '../src/wire';

export const BIN = path.resolve(process.env.WAVEHOOKS_BIN ?? path.join(__dirname, '..', '..', '..', '..', 'bin', 'wavehooks'));

export interface Received {
  method: string;
  params: any;
}

/** Waits for cond() to hold, checking every 10 ms; fails after timeoutMs with what(). */
export async function waitFor<T>(cond: () => T | undefined | false, what: () => string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = cond();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A scripted user: answers prompts from queues the test fills; "wait" leaves an ask open until withdrawn. */
export class ScriptedUser implements PromptUI {
  askAnswers: Array<'Allow' | 'Deny' | 'wait'> = [];
  chooseAnswers: string[] = [];
  readonly asked: string[] = [];
  readonly prompts: Array<{ type: number; message: string; titles: string[] }> = [];
  withdrawn = 0;

  ask(message: string, token: CancellationToken): Promise<string | undefined> {
    this.asked.push(message);
    const answer = this.askAnswers.shift() ?? 'wait';
    if (answer !== 'wait') {
      return Promise.resolve(answer);
    }
    return new Promise((resolve) => {
      token.onCancellationRequested(() => {
        this.withdrawn++;
        resolve(undefined);
      });
    });
  }

  choose(type: number, message: string, titles: string[]): Promise<string | undefined> {
    this.prompts.push({ type, message, titles });
    return Promise.resolve(this.chooseAnswers.shift());
  }
}

export class ServerUnderTest {
  readonly proc: ChildProcess;
  readonly conn: MessageConnection;
  readonly hub = new NotificationHub();
  readonly api: WaveApi;
  readonly user = new ScriptedUser();
  readonly received: Received[] = [];
  readonly requests: Received[] = [];
  stderr = '';
  exitCode: number | null = null;
  private exited: Promise<number | null>;

  constructor(readonly tmp: string) {
    // TransportKind.stdio in VS Code adds --stdio; do the same.
    this.proc = spawn(BIN, ['serve', '--stdio'], {
      cwd: tmp,
      env: { ...process.env, HOME: tmp, WAVE_HOME: path.join(tmp, 'not-used') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc.stderr!.on('data', (d) => {
      this.stderr += d.toString();
    });
    this.exited = new Promise((resolve) =>
      this.proc.on('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
    this.conn = createMessageConnection(
      new StreamMessageReader(this.proc.stdout!),
      new StreamMessageWriter(this.proc.stdin!),
    );
    this.conn.onNotification((method: string, params: unknown) => {
      this.received.push({ method, params });
      this.hub.emit(method, params);
    });
    this.conn.onRequest('window/showMessageRequest', (params: ShowMessageRequestParams, token) => {
      this.requests.push({ method: 'window/showMessageRequest', params });
      return answerShowMessageRequest(params, this.user, token);
    });
    this.conn.onRequest('window/workDoneProgress/create', (params: unknown) => {
      this.requests.push({ method: 'window/workDoneProgress/create', params });
      return null;
    });
    // As the extension answers it: the agent's handler, or MethodNotFound without one.
    this.conn.onRequest(ServerRequests.evaluateHook, (params: EvaluateHookParams, token) => {
      this.requests.push({ method: ServerRequests.evaluateHook, params });
      return answerEvaluateHook(this.api.evaluators, params, token).catch((err: unknown) =>
        err instanceof NoEvaluateHookHandler
          ? new ResponseError(ErrorCodes.MethodNotFound, err.message)
          : new ResponseError(ErrorCodes.InternalError, err instanceof Error ? err.message : String(err)),
      );
    });
    this.conn.listen();
    this.api = new WaveApi(
      {
        sendRequest: (method, params, token) =>
          token ? this.conn.sendRequest(method, params, token as any) : this.conn.sendRequest(method, params),
      },
      this.hub,
    );
  }

  notifications(method: string): any[] {
    return this.received.filter((n) => n.method === method).map((n) => n.params);
  }

  waitNotification(method: string, pred: (p: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    return waitFor(
      () => this.notifications(method).find(pred),
      () => `${method}; got ${JSON.stringify(this.received.map((n) => n.method))}\nserver log:\n${this.stderr}`,
      timeoutMs,
    );
  }

  /** The latest diagnostics published for a file (undefined before any). */
  diagnostics(file: string): any[] | undefined {
    const uri = 'file://' + file;
    const all = this.notifications('textDocument/publishDiagnostics').filter((p) => p.uri === uri);
    return all.length ? all[all.length - 1].diagnostics : undefined;
  }

  waitExit(timeoutMs = 5000): Promise<number | null> {
    return Promise.race([
      this.exited,
      new Promise<number | null>((_, reject) =>
        setTimeout(() => reject(new Error('server did not exit')), timeoutMs).unref(),
      ),
    ]);
  }

  kill(): void {
    this.conn.dispose();
    if (this.exitCode === null) {
      this.proc.kill('SIGKILL');
    }
  }
}

export { Notifications };

/** Writes an executable sh script. */
export function script(dir: string, name: string, body: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

export function tempDir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wavehooks-vscode-')));
}
