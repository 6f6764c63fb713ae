// The VS Code side of wavehooks: starts `wavehooks serve` as a language
// server, answers its prompts, shows pending permissions and hook status in
// the status bar, lists the hook run history, and exports WaveApi for agent
// extensions. Everything that does not need 'vscode' lives in api.ts,
// prompts.ts and format.ts, which the Node tests drive against the real server.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  CodeLensRequest,
  ErrorCodes,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  ShowMessageRequest,
  ShowMessageRequestParams,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';

import { answerEvaluateHook, CancellationToken, NoEvaluateHookHandler, NotificationHub, WaveApi } from './api';
import { describeHook, describePending, formatEventRun, formatRunHookResult, formatRunTestsResult } from './format';
import { ASK_ALLOW, ASK_DENY, answerShowMessageRequest, PromptUI } from './prompts';
import { safeLine } from './safetext';
import { expandHome, findServer } from './serverPath';
import { ignoredMessage, readUserSetting, UserOnlySetting } from './userSettings';
import {
  ASK_DIAGNOSTIC_CODE,
  AskDiagnosticData,
  EVALUATE_HOOK_CAPABILITY,
  EvaluateHookParams,
  EventRun,
  HooksChangedParams,
  ListHooksResult,
  Methods,
  Notifications,
  RunHookResult,
  RunTestsResult,
  ServerCommands,
  ServerRequests,
  ToggleHookResult,
} from './wire';

const SETTINGS_PATTERN = '**/{.wave,.claude}/settings{,.local}.json';
/** Hook test case files (`wavehooks test`): the server puts "▶ Run tests" on those whose text reads as cases. */
const CASE_FILE_PATTERN = '**/*.test.{json,jsonc}';
/** Shown when a button of an ask notification that was already answered elsewhere is clicked. */
const STALE_ASK = 'Wave Hooks: that permission was already decided (answered elsewhere or timed out); this click changed nothing.';

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<WaveApi> {
  controller = new Controller(context.extensionPath);
  context.subscriptions.push(controller);
  await controller.start();
  return controller.api;
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}

class Controller implements vscode.Disposable {
  readonly hub = new NotificationHub();
  readonly api: WaveApi;
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private startError: string | undefined;
  private readonly serverLog = vscode.window.createOutputChannel('Wave Hooks Server', { log: true });
  private readonly runsChannel = vscode.window.createOutputChannel('Wave Hooks');
  private readonly hooksItem = vscode.window.createStatusBarItem('wavehooks.status', vscode.StatusBarAlignment.Left, 10);
  private readonly pendingItem = vscode.window.createStatusBarItem('wavehooks.pending', vscode.StatusBarAlignment.Left, 9);
  private readonly disposables: vscode.Disposable[] = [];
  private pendingTimer: NodeJS.Timeout | undefined;
  private refreshing = false;
  /** A refresh was asked for while one was in flight: its answer may already be stale. */
  private refreshAgain = false;
  private lastHooks: HooksChangedParams | undefined;

  /** extensionPath: where a platform-specific package carries its server (server/wavehooks). */
  constructor(private readonly extensionPath: string | undefined) {
    this.api = new WaveApi(
      {
        sendRequest: async <R>(method: string, params: unknown, token?: CancellationToken): Promise<R> => {
          const client = await this.ready();
          // Pass no token rather than an undefined one: the client would send [params, undefined] as an array.
          return token
            ? client.sendRequest<R>(method, params, token as vscode.CancellationToken)
            : client.sendRequest<R>(method, params);
        },
      },
      this.hub,
    );
    this.hooksItem.name = 'Wave Hooks';
    this.hooksItem.command = 'wavehooks.showHookRuns';
    this.pendingItem.name = 'Wave Hooks: pending permissions';
    this.pendingItem.command = 'wavehooks.listPermissions';
    this.pendingItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.setStatus('$(sync~spin) Wave', 'wavehooks is starting');
    this.hooksItem.show();

    this.disposables.push(
      this.serverLog,
      this.runsChannel,
      this.hooksItem,
      this.pendingItem,
      this.hub.on<EventRun>(Notifications.hookRun, (run) => {
        this.runsChannel.appendLine(formatEventRun(run));
        this.refreshPending();
      }),
      this.hub.on(Notifications.sessionChanged, () => this.refreshPending()),
      this.hub.on<HooksChangedParams>(Notifications.hooksChanged, (p) => {
        this.lastHooks = p;
        this.showHooks(p);
      }),
      vscode.commands.registerCommand('wavehooks.trustWorkspace', () => this.trustWorkspace()),
      vscode.commands.registerCommand('wavehooks.listPermissions', () => this.listPermissions()),
      vscode.commands.registerCommand('wavehooks.runHook', (file?: string, index?: number) => this.runHook(file, index)),
      vscode.commands.registerCommand('wavehooks.showHookRuns', () => this.showHookRuns()),
      vscode.commands.registerCommand('wavehooks.toggleHook', () => this.toggleHook()),
      vscode.commands.registerCommand('wavehooks.restartServer', () => this.restart()),
      vscode.commands.registerCommand('wavehooks.showServerLog', () => this.serverLog.show(true)),
      vscode.commands.registerCommand('wavehooks.resolvePermission', (id: string, decision: 'allow' | 'deny') =>
        this.resolve(id, decision),
      ),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new AskCodeActions(), {
        providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        // Not trace.server: the client applies it to the running server.
        const keys = ['serverPath', 'waveHome', 'trustWorkspaceHooks', 'askTimeoutSeconds'];
        if (keys.some((k) => e.affectsConfiguration(`wavehooks.${k}`))) {
          void this.restart();
        }
      }),
    );
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  /** The running client; starts it if needed. Rejects if the server cannot start. */
  private async ready(): Promise<LanguageClient> {
    const client = this.client ?? (await (this.starting ?? this.start()));
    if (!client) {
      throw new Error(`wavehooks server is not running: ${this.startError ?? 'unknown error'}`);
    }
    return client;
  }

  start(): Promise<LanguageClient | undefined> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  /**
   * A setting only the user may set (serverPath, waveHome, trustWorkspaceHooks): the user's value or the
   * default, never a workspace's (userSettings.ts). log: say in the server log when a workspace's value was ignored.
   */
  private userSetting<T>(key: UserOnlySetting, fallback: T, log = false): T {
    const { value, ignored } = readUserSetting<T>(vscode.workspace.getConfiguration('wavehooks').inspect<T>(key), fallback);
    if (log) {
      for (const i of ignored) {
        this.serverLog.warn(ignoredMessage(key, i.where, i.value, safeLine));
      }
    }
    return value;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    const config = vscode.workspace.getConfiguration('wavehooks');
    // Read (and any workspace value reported) before anything can fail.
    const setting = this.userSetting<string>('serverPath', '', true);
    const waveHome = expandHome(this.userSetting<string>('waveHome', '', true));
    const trustWorkspaceHooks = this.userSetting<boolean>('trustWorkspaceHooks', false, true);
    const found = findServer(setting, this.extensionPath);
    if (!found) {
      this.startError = setting
        ? `wavehooks.serverPath names ${setting}, which does not exist`
        : 'the wavehooks binary was not found: this package carries none for this platform (install the .vsix for your platform, set wavehooks.serverPath, or put wavehooks on PATH)';
      this.setStatus('$(error) Wave', this.startError);
      const choice = await vscode.window.showErrorMessage(`Wave Hooks: ${this.startError}.`, 'Open Settings');
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'wavehooks.serverPath');
      }
      return undefined;
    }
    const command = found.path;
    const origin = { setting: 'from wavehooks.serverPath', bundled: 'bundled with the extension', PATH: 'from PATH' }[found.from];
    this.serverLog.info(`starting the server ${command} (${origin})`);
    const serverOptions: ServerOptions = {
      command,
      // The log reaches the output channel as window/logMessage; the client also copies the
      // server's stderr there, marking every line an error, so stderr carries only errors.
      args: ['serve', '--log-level', 'error'],
      transport: TransportKind.stdio, // adds --stdio
      options: { env: process.env },
    };
    const documentSelector: LanguageClientOptions['documentSelector'] = [
      { scheme: 'file', pattern: SETTINGS_PATTERN },
      { scheme: 'file', pattern: CASE_FILE_PATTERN },
    ];
    if (waveHome) {
      documentSelector.push({ scheme: 'file', pattern: path.join(waveHome, 'settings.json') });
    }
    const clientOptions: LanguageClientOptions = {
      documentSelector,
      outputChannel: this.serverLog,
      diagnosticCollectionName: 'wavehooks',
      initializationOptions: {
        ...(waveHome ? { waveHome } : {}),
        trustWorkspaceHooks,
        // The server refuses values outside 1 s – 24 h (docs/protocol-limits.md): clamp rather than fail to start.
        askTimeoutSeconds: Math.min(Math.max(Number(config.get<number>('askTimeoutSeconds', 300)) || 300, 1), 86400),
      },
      middleware: {
        // The asks' Allow / Deny come from one provider, AskCodeActions, on every file: the server offers them
        // too, for clients without one, which here would show each twice on a settings file.
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          return actions?.filter((a) => !isServerAskAction(a));
        },
        executeCommand: async (cmd, args, next) => {
          const result = await next(cmd, args);
          if (cmd === ServerCommands.runHook && result) {
            this.showRunHookResult(result as RunHookResult);
          }
          // "▶ Run tests": the server shows "N passed, M failed" and puts the failures on the cases; the
          // channel keeps each case's line.
          if (cmd === ServerCommands.runTests && result) {
            this.runsChannel.appendLine(formatRunTestsResult(result as RunTestsResult));
          }
          return result;
        },
      },
    };
    const client = new LanguageClient('wavehooks', 'Wave Hooks', serverOptions, clientOptions);
    // Before start(): the server may ask (trust prompt) right after initialized.
    client.onRequest(ShowMessageRequest.method, (params: ShowMessageRequestParams, token: vscode.CancellationToken) =>
      answerShowMessageRequest(params, this.promptUI(), token, { onAskChanged: () => this.refreshPending() }),
    );
    for (const method of Object.values(Notifications)) {
      client.onNotification(method, (params: unknown) => this.hub.emit(method, params));
    }
    // Agent extensions evaluate prompt, agent and mcp_tool hooks through api.onEvaluateHook.
    client.registerFeature(evaluateHookFeature);
    client.onRequest(ServerRequests.evaluateHook, (params: EvaluateHookParams, token: vscode.CancellationToken) =>
      answerEvaluateHook(this.api.evaluators, params, token).catch((err: unknown) =>
        err instanceof NoEvaluateHookHandler
          ? new ResponseError(ErrorCodes.MethodNotFound, err.message)
          : new ResponseError(ErrorCodes.InternalError, errorText(err)),
      ),
    );
    // Tracing is the client's own: with the id 'wavehooks' it reads wavehooks.trace.server (and follows its
    // changes and the log level of the server log, where the trace goes) without help.
    this.api.sessions.reset(); // a new server: session versions start over
    try {
      await client.start();
    } catch (err) {
      this.startError = `${command} did not start: ${err instanceof Error ? err.message : String(err)}`;
      this.setStatus('$(error) Wave', this.startError);
      this.serverLog.error(this.startError);
      return undefined;
    }
    this.client = client;
    this.startError = undefined;
    const version = client.initializeResult?.serverInfo?.version ?? '';
    if (this.lastHooks) {
      this.showHooks(this.lastHooks);
    } else {
      this.setStatus('$(zap) Wave', `wavehooks ${version} is running (${command}, ${origin}). Click for the hook runs.`);
    }
    this.refreshPending();
    return client;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(2000);
      } catch (err) {
        this.serverLog.warn(`stopping the server: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    this.setStatus('$(sync~spin) Wave', 'wavehooks is restarting');
    const client = await this.start();
    if (client) {
      void vscode.window.setStatusBarMessage('Wave Hooks: server restarted', 3000);
    }
  }

  private promptUI(): PromptUI {
    return {
      ask: (message, token) => {
        const style = vscode.workspace.getConfiguration('wavehooks').get<string>('askStyle', 'modal');
        if (style === 'modal') {
          return vscode.window.showWarningMessage(message, { modal: true }, ASK_ALLOW, ASK_DENY);
        }
        // A dismissed notification does not answer: the ask stays pending (status
        // bar, List Pending Permissions) until it is answered or times out. VS Code
        // cannot close a notification, so one whose ask was answered elsewhere stays
        // in the notification centre; a click on it then says it changed nothing.
        return new Promise<string | undefined>((resolve) => {
          void vscode.window.showWarningMessage(message, ASK_ALLOW, ASK_DENY).then((choice) => {
            if (choice === undefined) {
              return;
            }
            if (token.isCancellationRequested) {
              void vscode.window.showInformationMessage(STALE_ASK);
            }
            resolve(choice);
          });
          token.onCancellationRequested(() => resolve(undefined));
        });
      },
      choose: (type, message, titles) => {
        const show =
          type === 1
            ? vscode.window.showErrorMessage
            : type === 2
              ? vscode.window.showWarningMessage
              : vscode.window.showInformationMessage;
        return show(message, ...titles);
      },
    };
  }

  private setStatus(text: string, tooltip: string): void {
    this.hooksItem.text = text;
    this.hooksItem.tooltip = tooltip;
    this.hooksItem.backgroundColor = undefined;
  }

  private showHooks(p: HooksChangedParams): void {
    let text = `$(zap) Wave: ${p.hooks} hook${p.hooks === 1 ? '' : 's'}`;
    const tips = [`${p.hooks} hook(s) from ${p.files.length} settings file(s)`, ...p.files.map((f) => `  ${f}`)];
    if (p.diagnostics > 0) {
      text += ` $(warning) ${p.diagnostics}`;
      tips.push(`${p.diagnostics} problem(s) in the settings: see the Problems view`);
    }
    if (!p.trusted) {
      text += ' $(lock)';
      tips.push("This workspace's hooks do not run until you trust them (Wave Hooks: Trust Workspace Hooks)");
    }
    tips.push('Click for the hook runs.');
    this.hooksItem.text = text;
    this.hooksItem.tooltip = tips.join('\n');
    this.hooksItem.backgroundColor = p.diagnostics > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /**
   * Updates the pending-permissions item; polls while asks are pending. One
   * request at a time; a call made while one is in flight runs again after it,
   * because the answer in flight may predate the change that prompted the call
   * (an ask answered just after the list was taken).
   */
  private refreshPending(): void {
    if (!this.client) {
      return;
    }
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    this.refreshAgain = false;
    void this.api
      .listPermissions()
      .then(
        ({ pending }) => {
          if (pending.length === 0) {
            this.pendingItem.hide();
          } else {
            this.pendingItem.text = `$(shield) ${pending.length} pending`;
            this.pendingItem.tooltip = pending.map((p) => describePending(p).label).join('\n');
            this.pendingItem.show();
          }
          if (this.pendingTimer) {
            clearTimeout(this.pendingTimer);
            this.pendingTimer = undefined;
          }
          if (pending.length > 0) {
            this.pendingTimer = setTimeout(() => this.refreshPending(), 2000);
            this.pendingTimer.unref?.();
          }
        },
        () => this.pendingItem.hide(),
      )
      .finally(() => {
        this.refreshing = false;
        if (this.refreshAgain) {
          this.refreshPending();
        }
      });
  }

  private async executeServerCommand<R>(command: string, args: unknown[] = []): Promise<R> {
    const client = await this.ready();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as R;
  }

  private async trustWorkspace(): Promise<void> {
    try {
      await this.executeServerCommand(ServerCommands.trustWorkspace);
      void vscode.window.showInformationMessage("Wave Hooks: this workspace's hooks are trusted and will run.");
    } catch (err) {
      void vscode.window.showErrorMessage(`Wave Hooks: ${errorText(err)}`);
    }
  }

  private async resolve(id: string, decision: 'allow' | 'deny'): Promise<void> {
    try {
      const { resolved } = await this.api.resolvePermission({ id, decision });
      if (!resolved) {
        void vscode.window.showInformationMessage('Wave Hooks: that permission was already decided.');
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Wave Hooks: ${errorText(err)}`);
    }
    this.refreshPending();
  }

  private async listPermissions(): Promise<void> {
    const { pending } = await this.api.listPermissions();
    if (pending.length === 0) {
      void vscode.window.showInformationMessage('Wave Hooks: no permission is pending.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      pending.map((p) => ({ ...describePending(p), id: p.id })),
      { title: 'Pending hook permissions', placeHolder: 'Pick one to allow or deny' },
    );
    if (!pick) {
      return;
    }
    const decision = await vscode.window.showQuickPick([ASK_ALLOW, ASK_DENY], { title: pick.label });
    if (decision) {
      await this.resolve(pick.id, decision === ASK_ALLOW ? 'allow' : 'deny');
    }
  }

  /** Runs one configured hook with sample input: the code lens passes (file, index); the palette picks. */
  private async runHook(file?: string, index?: number): Promise<void> {
    try {
      if (file === undefined || index === undefined) {
        const picked = await this.pickHook();
        if (!picked) {
          return;
        }
        [file, index] = picked;
      }
      const result = await this.executeServerCommand<RunHookResult>(ServerCommands.runHook, [file, index]);
      this.showRunHookResult(result);
    } catch (err) {
      void vscode.window.showErrorMessage(`Wave Hooks: ${errorText(err)}`);
    }
  }

  /** Lists the configured hooks through the server's "Run hook" code lenses. */
  private async pickHook(): Promise<[string, number] | undefined> {
    const client = await this.ready();
    const items: Array<vscode.QuickPickItem & { args: [string, number] }> = [];
    for (const file of this.settingsFiles()) {
      const lenses =
        (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri: vscode.Uri.file(file).toString() } })) ?? [];
      let lines: string[] = [];
      try {
        lines = fs.readFileSync(file, 'utf8').split('\n');
      } catch {
        // the lens titles are enough
      }
      for (const lens of lenses) {
        const args = lens.command?.arguments as [string, number] | undefined;
        if (!lens.command || !args) {
          continue;
        }
        const r = lens.range;
        const text = r.start.line === r.end.line ? (lines[r.start.line] ?? '').slice(r.start.character, r.end.character) : '';
        items.push({ label: text || lens.command.title, description: lens.command.title.replace(/^▶ /, ''), detail: file, args });
      }
    }
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Wave Hooks: no hook is configured.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Run a hook with sample input', matchOnDetail: true });
    return pick?.args;
  }

  /** The settings files the server reads, as far as the extension can tell. */
  private settingsFiles(): string[] {
    const files = new Set<string>(this.lastHooks?.files ?? []);
    const home = expandHome(this.userSetting<string>('waveHome', '')) || process.env.WAVE_HOME || path.join(os.homedir(), '.wave');
    files.add(path.join(home, 'settings.json'));
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const rel of ['.wave/settings.json', '.wave/settings.local.json']) {
        files.add(path.join(folder.uri.fsPath, rel));
      }
    }
    return [...files].filter((f) => fs.existsSync(f));
  }

  private showRunHookResult(result: RunHookResult): void {
    this.runsChannel.appendLine(formatRunHookResult(result));
    this.runsChannel.show(true);
  }

  /** Toggle Hook: a pick of every configured hook (wave/listHooks), the picked one turned off or on in its file. */
  private async toggleHook(): Promise<void> {
    try {
      const client = await this.ready();
      const { hooks } = await client.sendRequest<ListHooksResult>(Methods.listHooks, {});
      if (hooks.length === 0) {
        void vscode.window.showInformationMessage('Wave Hooks: no hook is configured.');
        return;
      }
      const pick = await vscode.window.showQuickPick(
        hooks.map((h) => ({ ...describeHook(h), id: h.id })),
        { title: 'Turn a hook off or on', placeHolder: 'Pick a hook to switch', matchOnDescription: true, matchOnDetail: true },
      );
      if (!pick) {
        return;
      }
      const res = await this.executeServerCommand<ToggleHookResult>(ServerCommands.toggleHook, [pick.id]);
      void vscode.window.showInformationMessage(`Wave Hooks: ${safeLine(res.message)}`);
    } catch (err) {
      void vscode.window.showErrorMessage(`Wave Hooks: ${errorText(err)}`);
    }
  }

  private async showHookRuns(): Promise<void> {
    try {
      const { runs, telemetryDropped } = await this.api.hookRuns({ limit: 100 });
      this.runsChannel.clear();
      this.runsChannel.appendLine(
        runs.length === 0
          ? 'No hook has run yet. Each event the agent fires appears here with every hook: matched or why not, its stdin, output and decision.\n'
          : `The last ${runs.length} hook run(s), oldest first, the ACP proxy's (wavehooks acp) among them; new runs are added below as they happen.\n`,
      );
      for (const run of [...runs].reverse()) {
        this.runsChannel.appendLine(formatEventRun(run));
      }
      if ((telemetryDropped ?? 0) > 0) {
        this.runsChannel.appendLine(
          `telemetry: ${telemetryDropped} run(s) not exported to OpenTelemetry (queue full or collector unreachable; docs/telemetry.md)`,
        );
      }
      this.runsChannel.show(true);
    } catch (err) {
      void vscode.window.showErrorMessage(`Wave Hooks: ${errorText(err)}`);
    }
  }
}

/**
 * Declares capabilities.experimental.waveEvaluateHook. It is declared
 * always, since agent extensions register their handler after the client
 * started; a request that finds none is answered MethodNotFound.
 */
const evaluateHookFeature: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), [EVALUATE_HOOK_CAPABILITY]: true };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

/** Allow / Deny quick fixes for the "wave.ask" diagnostics the server puts on the file a tool would change. */
class AskCodeActions implements vscode.CodeActionProvider {
  provideCodeActions(
    _doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const code = typeof d.code === 'object' ? d.code.value : d.code;
      const id = askDiagnosticId(d);
      if (code !== ASK_DIAGNOSTIC_CODE || id === undefined) {
        continue;
      }
      for (const [title, decision] of [
        [ASK_ALLOW, 'allow'],
        [ASK_DENY, 'deny'],
      ] as const) {
        const a = new vscode.CodeAction(`${title} (hook permission)`, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = { title, command: 'wavehooks.resolvePermission', arguments: [id, decision] };
        actions.push(a);
      }
    }
    return actions;
  }
}

/** Whether a code action of the server answers an ask (wave.permission.allow / wave.permission.deny). */
function isServerAskAction(a: vscode.Command | vscode.CodeAction): boolean {
  const command = typeof a.command === 'string' ? a.command : a.command?.command;
  return command === ServerCommands.allow || command === ServerCommands.deny;
}

/** The permission id in a wave.ask diagnostic's data (AskDiagnosticData); undefined if it carries none. */
function askDiagnosticId(d: vscode.Diagnostic): string | undefined {
  const data = (d as vscode.Diagnostic & { data?: Partial<AskDiagnosticData> }).data;
  const id = typeof data === 'object' && data !== null ? data.permissionId : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
