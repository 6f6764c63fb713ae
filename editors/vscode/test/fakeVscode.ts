// A small stand-in for the 'vscode' module, enough for vscode-languageclient
// and src/extension.ts to run in plain Node: VS Code itself cannot be
// downloaded here. The parts the test looks at are real (commands, status bar
// items, output channels, diagnostic collections, message boxes and quick
// picks answered by a script); everything else is an inert Proxy.

import * as path from 'node:path';
import Module from 'node:module';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}

const noEvent = () => new Disposable();

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {}
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query = '',
    readonly fragment = '',
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', path.resolve(p));
  }
  static parse(value: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/i.exec(value);
    if (!m) {
      throw new Error(`bad uri ${value}`);
    }
    return new Uri(m[1], m[2] ?? '', decodeURIComponent(m[3]), m[4] ?? '', m[5] ?? '');
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: Partial<Pick<Uri, 'scheme' | 'path'>>): Uri {
    return new Uri(change.scheme ?? this.scheme, this.authority, change.path ?? this.path, this.query, this.fragment);
  }
  toString(): string {
    const p = this.path
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/');
    return `${this.scheme}://${this.authority}${p}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path, fsPath: this.fsPath };
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class Diagnostic {
  code?: string | number | { value: string | number; target: Uri };
  source?: string;
  tags?: number[];
  relatedInformation?: unknown[];
  constructor(
    public range: Range,
    public message: string,
    public severity = 0,
  ) {}
}

export class CodeActionKind {
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  static readonly RefactorExtract = new CodeActionKind('refactor.extract');
  static readonly RefactorInline = new CodeActionKind('refactor.inline');
  static readonly RefactorRewrite = new CodeActionKind('refactor.rewrite');
  static readonly Source = new CodeActionKind('source');
  static readonly SourceOrganizeImports = new CodeActionKind('source.organizeImports');
  static readonly SourceFixAll = new CodeActionKind('source.fixAll');
  constructor(readonly value: string) {}
  append(part: string): CodeActionKind {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other: CodeActionKind): boolean {
    return this.value === '' || other.value === this.value || other.value.startsWith(this.value + '.');
  }
  intersects(other: CodeActionKind): boolean {
    return this.contains(other) || other.contains(this);
  }
}

export class CodeAction {
  diagnostics?: Diagnostic[];
  command?: { title: string; command: string; arguments?: unknown[] };
  constructor(
    public title: string,
    public kind?: CodeActionKind,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

/** A class for any name the stand-in does not model: it keeps its arguments. */
/** What vscode-languageclient makes of the server's textDocument/codeLens answer. */
export class CodeLens {
  constructor(
    public range: Range,
    public command?: { title: string; command: string; arguments?: unknown[] },
  ) {}
}

function genericClass(name: string): unknown {
  const cls = class {
    args: unknown[];
    constructor(...args: unknown[]) {
      this.args = args;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  // Enum-like statics (DiagnosticSeverity.Error, ...) read as their names.
  return new Proxy(cls, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop !== 'string') {
        return Reflect.get(target, prop, receiver);
      }
      return prop;
    },
  });
}

// A namespace object: unknown on... members are events, register.../create... return disposables.
function namespace(members: Record<string, unknown>): any {
  return new Proxy(members, {
    get(target, prop) {
      if (typeof prop !== 'string' || prop in target) {
        return (target as any)[prop];
      }
      if (prop.startsWith('on')) {
        return noEvent;
      }
      if (prop.startsWith('register') || prop.startsWith('create')) {
        return () => inert();
      }
      return undefined;
    },
  });
}

/** An object whose every method does nothing and returns another inert object. */
function inert(): any {
  return new Proxy(function () {}, {
    get(_t, prop) {
      if (prop === 'dispose') {
        return () => {};
      }
      if (prop === 'then') {
        return undefined;
      }
      return inert();
    },
    apply() {
      return inert();
    },
  });
}

export class OutputChannel {
  text = '';
  shown = false;
  /** Info, as VS Code starts a log channel; setLogLevel changes it as the user does. */
  logLevel = 3;
  private readonly levelChanged = new EventEmitter<number>();
  onDidChangeLogLevel = this.levelChanged.event;
  constructor(readonly name: string) {}
  setLogLevel(level: number): void {
    this.logLevel = level;
    this.levelChanged.fire(level);
  }
  append(s: string): void {
    this.text += s;
  }
  appendLine(s: string): void {
    this.text += s + '\n';
  }
  replace(s: string): void {
    this.text = s;
  }
  clear(): void {
    this.text = '';
  }
  show(): void {
    this.shown = true;
  }
  hide(): void {}
  dispose(): void {}
  // A log channel drops what is below its level (LogLevel: Off 0, Trace 1, Debug 2, Info 3).
  trace(s: string): void {
    if (this.logLevel === 1) {
      this.appendLine('[trace] ' + s);
    }
  }
  debug(s: string): void {
    if (this.logLevel === 1 || this.logLevel === 2) {
      this.appendLine('[debug] ' + s);
    }
  }
  info(s: string): void {
    this.appendLine('[info] ' + s);
  }
  warn(s: string): void {
    this.appendLine('[warn] ' + s);
  }
  error(s: unknown): void {
    this.appendLine('[error] ' + String(s));
  }
}

export class StatusBarItem {
  text = '';
  tooltip: unknown;
  command: unknown;
  name = '';
  backgroundColor: unknown;
  visible = false;
  constructor(readonly id: string) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

export class DiagnosticCollection {
  readonly entries = new Map<string, Diagnostic[]>();
  constructor(readonly name: string) {}
  set(uri: Uri | Array<[Uri, Diagnostic[]]>, diags?: Diagnostic[]): void {
    if (Array.isArray(uri)) {
      uri.forEach(([u, d]) => this.entries.set(u.toString(), d));
    } else {
      this.entries.set(uri.toString(), diags ?? []);
    }
  }
  get(uri: Uri): Diagnostic[] | undefined {
    return this.entries.get(uri.toString());
  }
  has(uri: Uri): boolean {
    return this.entries.has(uri.toString());
  }
  delete(uri: Uri): void {
    this.entries.delete(uri.toString());
  }
  clear(): void {
    this.entries.clear();
  }
  forEach(fn: (uri: Uri, d: Diagnostic[]) => void): void {
    this.entries.forEach((d, u) => fn(Uri.parse(u), d));
  }
  dispose(): void {}
}

export interface Shown {
  kind: 'info' | 'warning' | 'error';
  message: string;
  modal: boolean;
  items: string[];
}

/** The stand-in and what the test reads from it and scripts into it. */
export class FakeVscode {
  readonly commands = new Map<string, (...args: any[]) => unknown>();
  readonly statusBar: StatusBarItem[] = [];
  readonly channels: OutputChannel[] = [];
  readonly collections: DiagnosticCollection[] = [];
  /** Every registered code action provider with its document selector, as VS Code keeps them. */
  readonly codeActionProviders: Array<{ selector: unknown; provider: any }> = [];
  /** Every registered code lens provider with its document selector (vscode-languageclient registers the server's). */
  readonly codeLensProviders: Array<{ selector: unknown; provider: any }> = [];
  readonly shown: Shown[] = [];
  readonly quickPicks: string[][] = [];
  /** The user settings ("section.key": value). */
  config: Record<string, unknown> = {};
  /**
   * A workspace's .vscode/settings.json and a folder's. get() lets them override the user's, as VS Code does
   * for settings of scope window or machine-overridable (and as a VS Code that ignores a scope might for any);
   * inspect() reports each layer.
   */
  workspaceConfig: Record<string, unknown> = {};
  folderConfig: Record<string, unknown> = {};
  folders: Array<{ uri: Uri; name: string; index: number }> = [];
  /** Answers to message boxes with items: a title, or 'wait' (never answered). */
  messageAnswers: string[] = [];
  /** Answers to quick picks: the label to pick (or its index). */
  pickAnswers: Array<string | number> = [];

  readonly module: any;

  constructor() {
    const self = this;
    const show =
      (kind: Shown['kind']) =>
      (message: string, ...rest: any[]): Promise<any> => {
        let modal = false;
        if (rest.length && typeof rest[0] === 'object' && rest[0] !== null && !('title' in rest[0])) {
          modal = !!rest.shift().modal;
        }
        const items = rest.map((r) => (typeof r === 'string' ? r : r.title));
        self.shown.push({ kind, message, modal, items });
        if (items.length === 0) {
          return Promise.resolve(undefined);
        }
        const answer = self.messageAnswers.shift();
        if (answer === 'wait') {
          return new Promise(() => {});
        }
        const i = items.indexOf(answer as string);
        return Promise.resolve(i >= 0 ? rest[i] : undefined);
      };
    const mod: Record<string, unknown> = {
      version: '1.100.0',
      Disposable,
      EventEmitter,
      CancellationTokenSource,
      CancellationError: class CancellationError extends Error {},
      Uri,
      Position,
      Range,
      Diagnostic,
      CodeActionKind,
      CodeAction,
      CodeLens,
      ThemeColor,
      StatusBarAlignment: { Left: 1, Right: 2 },
      ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
      LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
      DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
      env: { appName: 'fake', language: 'en', openExternal: async () => false, machineId: 'x', sessionId: 'y' },
      commands: namespace({
        registerCommand(id: string, fn: (...args: any[]) => unknown) {
          self.commands.set(id, fn);
          return new Disposable(() => self.commands.delete(id));
        },
        async executeCommand(id: string, ...args: unknown[]) {
          const fn = self.commands.get(id);
          return fn ? fn(...args) : undefined;
        },
        getCommands: async () => [...self.commands.keys()],
      }),
      window: namespace({
        showInformationMessage: show('info'),
        showWarningMessage: show('warning'),
        showErrorMessage: show('error'),
        async showQuickPick(items: any, _opts?: unknown) {
          const list = await items;
          const labels = list.map((i: any) => (typeof i === 'string' ? i : i.label));
          self.quickPicks.push(labels);
          const a = self.pickAnswers.shift();
          const idx = typeof a === 'number' ? a : labels.indexOf(a);
          return idx >= 0 ? list[idx] : undefined;
        },
        createOutputChannel(name: string) {
          const c = new OutputChannel(name);
          self.channels.push(c);
          return c;
        },
        createStatusBarItem(id: string) {
          const s = new StatusBarItem(typeof id === 'string' ? id : '');
          self.statusBar.push(s);
          return s;
        },
        setStatusBarMessage: () => new Disposable(),
        withProgress: async (_o: unknown, task: any) => task({ report() {} }, new CancellationTokenSource().token),
        activeTextEditor: undefined,
        visibleTextEditors: [],
        tabGroups: { all: [], onDidChangeTabs: noEvent, onDidChangeTabGroups: noEvent },
      }),
      workspace: namespace({
        getConfiguration(section?: string) {
          return {
            get(key: string, def?: unknown) {
              const k = section ? `${section}.${key}` : key;
              for (const layer of [self.folderConfig, self.workspaceConfig, self.config]) {
                if (k in layer) {
                  return layer[k];
                }
              }
              return def;
            },
            has: (key: string) => [self.folderConfig, self.workspaceConfig, self.config].some((l) => `${section}.${key}` in l),
            inspect(key: string) {
              const k = section ? `${section}.${key}` : key;
              return {
                key: k,
                globalValue: self.config[k],
                workspaceValue: self.workspaceConfig[k],
                workspaceFolderValue: self.folderConfig[k],
              };
            },
            update: async () => {},
          };
        },
        get workspaceFolders() {
          return self.folders;
        },
        textDocuments: [],
        notebookDocuments: [],
        getWorkspaceFolder: () => self.folders[0],
        createFileSystemWatcher: () => inert(),
        applyEdit: async () => true,
      }),
      languages: namespace({
        createDiagnosticCollection(name: string) {
          const c = new DiagnosticCollection(name);
          self.collections.push(c);
          return c;
        },
        registerCodeActionsProvider(selector: unknown, provider: unknown) {
          const entry = { selector, provider };
          self.codeActionProviders.push(entry);
          return new Disposable(() => self.codeActionProviders.splice(self.codeActionProviders.indexOf(entry), 1));
        },
        registerCodeLensProvider(selector: unknown, provider: unknown) {
          const entry = { selector, provider };
          self.codeLensProviders.push(entry);
          return new Disposable(() => self.codeLensProviders.splice(self.codeLensProviders.indexOf(entry), 1));
        },
        match: () => 0,
      }),
      extensions: namespace({ all: [], getExtension: () => undefined }),
    };
    this.module = new Proxy(mod, {
      get(target, prop) {
        if (typeof prop !== 'string' || prop in target) {
          return (target as any)[prop];
        }
        if (/^[A-Z]/.test(prop)) {
          target[prop] = genericClass(prop);
          return target[prop];
        }
        return namespace({});
      },
    });
  }

  /** Makes require('vscode') return this stand-in. */
  install(): void {
    const M = Module as any;
    const original = M._resolveFilename;
    M._resolveFilename = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? 'vscode' : original.call(this, request, ...rest);
    };
    require.cache['vscode'] = { id: 'vscode', filename: 'vscode', loaded: true, exports: this.module } as any;
  }

  /**
   * The code actions VS Code would show (lightbulb, Quick Fix menu) for diagnostics of a file: those of every
   * registered provider whose document selector matches the file, in registration order.
   */
  async codeActions(file: string, diagnostics: unknown[]): Promise<any[]> {
    const uri = Uri.file(file);
    const document = { uri, fileName: uri.fsPath, languageId: 'jsonc', version: 1, isClosed: false };
    const range = new Range(0, 0, 0, 0);
    const context = { diagnostics, only: undefined, triggerKind: 1 };
    const token = new CancellationTokenSource().token;
    const out: any[] = [];
    for (const { selector, provider } of [...this.codeActionProviders]) {
      if (selectorMatches(selector, uri)) {
        out.push(...((await provider.provideCodeActions(document, range, context, token)) ?? []));
      }
    }
    return out;
  }

  /**
   * The code lenses VS Code would show above a file: those of every registered provider whose document selector
   * matches it (the language client's asks the server with textDocument/codeLens).
   */
  async codeLenses(file: string): Promise<any[]> {
    const uri = Uri.file(file);
    const document = { uri, fileName: uri.fsPath, languageId: 'jsonc', version: 1, isClosed: false };
    const token = new CancellationTokenSource().token;
    const out: any[] = [];
    for (const { selector, provider } of [...this.codeLensProviders]) {
      if (selectorMatches(selector, uri)) {
        out.push(...((await provider.provideCodeLenses(document, token)) ?? []));
      }
    }
    return out;
  }

  channel(name: string): OutputChannel {
    const c = this.channels.find((ch) => ch.name === name);
    if (!c) {
      throw new Error(`no output channel ${name}: ${this.channels.map((ch) => ch.name)}`);
    }
    return c;
  }

  item(id: string): StatusBarItem {
    const s = this.statusBar.find((i) => i.id === id);
    if (!s) {
      throw new Error(`no status bar item ${id}`);
    }
    return s;
  }
}

/** Whether a document selector (a filter, a language id, or a list of them) matches a file, as VS Code's does. */
function selectorMatches(selector: unknown, uri: Uri): boolean {
  if (Array.isArray(selector)) {
    return selector.some((s) => selectorMatches(s, uri));
  }
  if (typeof selector === 'string') {
    return selector === '*' || selector === 'jsonc';
  }
  const f = selector as { scheme?: string; language?: string; pattern?: string | { pattern: string } };
  if (f.scheme !== undefined && f.scheme !== uri.scheme) {
    return false;
  }
  if (f.language !== undefined && f.language !== 'jsonc') {
    return false;
  }
  const pattern = typeof f.pattern === 'object' ? f.pattern.pattern : f.pattern;
  return pattern === undefined || globToRegExp(pattern).test(uri.fsPath);
}

/** A glob of the kind document selectors use (**, *, ?, {a,b}) as an anchored regular expression. */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const end = glob.indexOf('}', i);
      re += '(?:' + glob.slice(i + 1, end).split(',').map((alt) => alt.replace(/[.+^$()|[\]\\]/g, '\\$&')).join('|') + ')';
      i = end;
    } else {
      re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}
