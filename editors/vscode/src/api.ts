// The API the extension exports (the value `activate` returns), so that an
// agent extension can drive wavehooks without speaking JSON-RPC itself:
//
//   const wave = await vscode.extensions.getExtension('wavehooks.wavehooks')!.activate() as WaveApi;
//   const { sessionId } = await wave.sessionStart({ source: 'startup' });
//   const pre = await wave.preToolUse({ sessionId, toolUseId, toolName: 'Write', toolInput });
//   if (pre.permission === 'deny') { ... }
//   if (pre.decision === 'none') { ... no hook decided: apply your own permission rules ... }
//
// It must not import 'vscode': the Node tests drive this same class over
// vscode-jsonrpc against the real server.

import {
  AddAssistantMessageParams,
  ApiMessagesResult,
  BlocksResult,
  EvaluateHookAnswer,
  EvaluateHookParams,
  EventRun,
  FlowResult,
  PostToolBatchParams,
  GetSessionResult,
  HookRunsParams,
  HookRunsResult,
  HooksChangedParams,
  ListPermissionsResult,
  Methods,
  Notifications,
  PostToolUseParams,
  PreToolUseParams,
  PreToolUseResult,
  ResolvePermissionParams,
  ResolvePermissionResult,
  RunHooksParams,
  SessionChangedParams,
  SessionEndParams,
  SessionParams,
  SessionStartParams,
  SessionStartResult,
  StopParams,
  UserPromptSubmitParams,
} from './wire';
import { SessionMirror } from './sessions';

export * from './wire';
export * from './sessions';

export interface Disposable {
  dispose(): void;
}

/** Structurally both vscode.CancellationToken and vscode-jsonrpc's. */
export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): Disposable;
}

/** Sends a request to the server (the language client, or a bare connection in tests). */
export interface WaveTransport {
  sendRequest<R>(method: string, params: unknown, token?: CancellationToken): Promise<R>;
}

/**
 * Fans server notifications out to listeners. It outlives the language
 * client, so listeners stay registered across server restarts.
 */
export class NotificationHub {
  private readonly listeners = new Map<string, Set<(params: unknown) => void>>();

  on<P>(method: string, listener: (params: P) => void): Disposable {
    let set = this.listeners.get(method);
    if (!set) {
      set = new Set();
      this.listeners.set(method, set);
    }
    const fn = listener as (params: unknown) => void;
    set.add(fn);
    return { dispose: () => set!.delete(fn) };
  }

  emit(method: string, params: unknown): void {
    for (const fn of [...(this.listeners.get(method) ?? [])]) {
      try {
        fn(params);
      } catch (err) {
        console.error(`wavehooks: a ${method} listener failed:`, err);
      }
    }
  }
}

/**
 * Evaluates the hooks that need the agent: prompt and agent hooks (a
 * model), mcp_tool hooks (one of the agent's MCP servers). It answers with
 * the model's JSON ({ok, reason}) or the tool's result; throwing makes the
 * hook a non-blocking error. Cancel the work when token is cancelled (the
 * hook's timeout passed).
 */
export type EvaluateHookHandler = (
  params: EvaluateHookParams,
  token: CancellationToken,
) => EvaluateHookAnswer | Promise<EvaluateHookAnswer>;

/** Thrown by answerEvaluateHook when no agent evaluates hooks: the editor answers MethodNotFound. */
export class NoEvaluateHookHandler extends Error {
  constructor() {
    super('no agent extension evaluates hooks (none called onEvaluateHook)');
  }
}

/**
 * The agent's wave/evaluateHook handlers. The extension declares the
 * capability at start, before any agent extension can register, so a
 * request with no handler registered is answered MethodNotFound: the server
 * then counts the hook as not run and tells the user once per session. It
 * outlives the language client, like NotificationHub.
 */
export class EvaluateHookRegistry {
  private readonly handlers: EvaluateHookHandler[] = [];

  /** Registers a handler; the latest registered one answers. */
  register(handler: EvaluateHookHandler): Disposable {
    this.handlers.push(handler);
    return {
      dispose: () => {
        const i = this.handlers.lastIndexOf(handler);
        if (i >= 0) {
          this.handlers.splice(i, 1);
        }
      },
    };
  }

  get handler(): EvaluateHookHandler | undefined {
    return this.handlers[this.handlers.length - 1];
  }
}

/** Answers one wave/evaluateHook request with the latest handler; throws NoEvaluateHookHandler without one. */
export async function answerEvaluateHook(
  registry: EvaluateHookRegistry,
  params: EvaluateHookParams,
  token: CancellationToken,
): Promise<EvaluateHookAnswer> {
  const handler = registry.handler;
  if (!handler) {
    throw new NoEvaluateHookHandler();
  }
  return handler(params, token);
}

/** Typed wrappers around every wave/* method of the server. */
export class WaveApi {
  /**
   * Copies of sessions kept up to date from wave/sessionChanged deltas:
   * `await api.sessions.get(sessionId)` gives the whole conversation, and
   * `api.sessions.onDidChange` each new copy.
   */
  readonly sessions: SessionMirror;

  constructor(
    private readonly transport: WaveTransport,
    private readonly hub: NotificationHub = new NotificationHub(),
    /** Who answers the server's wave/evaluateHook requests. */
    readonly evaluators: EvaluateHookRegistry = new EvaluateHookRegistry(),
  ) {
    this.sessions = new SessionMirror(this);
  }

  /** Any request, for methods newer than this API. */
  request<R = unknown>(method: string, params?: unknown, token?: CancellationToken): Promise<R> {
    return this.transport.sendRequest<R>(method, params ?? {}, token);
  }

  /** Starts a session (or resumes one by id) and runs the SessionStart hooks. */
  sessionStart(params: SessionStartParams = {}, token?: CancellationToken): Promise<SessionStartResult> {
    return this.request(Methods.sessionStart, params, token);
  }

  /** Runs UserPromptSubmit hooks; `blocked` means the prompt must not reach the model, `updatedPrompt` (when set) is the text the model must get instead. */
  userPromptSubmit(params: UserPromptSubmitParams, token?: CancellationToken): Promise<FlowResult> {
    return this.request(Methods.userPromptSubmit, params, token);
  }

  /**
   * Runs PreToolUse hooks. When a hook asks, this resolves only once the user
   * answered (or the ask timed out as a deny): cancel the token to give up.
   */
  preToolUse(params: PreToolUseParams, token?: CancellationToken): Promise<PreToolUseResult> {
    return this.request(Methods.preToolUse, params, token);
  }

  /** Runs PostToolUse hooks; give the model `toolResponse`: a hook may have replaced (redacted) the output. */
  postToolUse(params: PostToolUseParams, token?: CancellationToken): Promise<FlowResult> {
    return this.request(Methods.postToolUse, params, token);
  }

  /** Runs PostToolBatch hooks once for a batch of parallel tool calls the session recorded. */
  postToolBatch(params: PostToolBatchParams, token?: CancellationToken): Promise<FlowResult> {
    return this.request(Methods.postToolBatch, params, token);
  }

  /** Runs Stop hooks; `blocked` means the agent must go on with `reason`. */
  stop(params: StopParams, token?: CancellationToken): Promise<FlowResult> {
    return this.request(Methods.stop, params, token);
  }

  sessionEnd(params: SessionEndParams, token?: CancellationToken): Promise<BlocksResult> {
    return this.request(Methods.sessionEnd, params, token);
  }

  /** Records what the model said (text and tool blocks) in the session. */
  addAssistantMessage(params: AddAssistantMessageParams, token?: CancellationToken): Promise<Record<string, never>> {
    return this.request(Methods.addAssistantMessage, params, token);
  }

  getSession(params: SessionParams, token?: CancellationToken): Promise<GetSessionResult> {
    return this.request(Methods.getSession, params, token);
  }

  /** The conversation as the model should see it. */
  apiMessages(params: SessionParams, token?: CancellationToken): Promise<ApiMessagesResult> {
    return this.request(Methods.apiMessages, params, token);
  }

  listPermissions(token?: CancellationToken): Promise<ListPermissionsResult> {
    return this.request(Methods.listPermissions, {}, token);
  }

  resolvePermission(params: ResolvePermissionParams, token?: CancellationToken): Promise<ResolvePermissionResult> {
    return this.request(Methods.resolvePermission, params, token);
  }

  /** Fires any event, including Claude Code's events without a typed method. */
  runHooks<R = FlowResult>(params: RunHooksParams, token?: CancellationToken): Promise<R> {
    return this.request(Methods.runHooks, params, token);
  }

  /** The run history, newest first: why did (or didn't) each hook run. */
  hookRuns(params: HookRunsParams = {}, token?: CancellationToken): Promise<HookRunsResult> {
    return this.request(Methods.hookRuns, params, token);
  }

  /**
   * A session's messages changed (an event, or another process edited its
   * file). The notification carries only the change (see
   * SessionChangedParams); `sessions` applies it to a whole copy.
   */
  onSessionChanged(listener: (params: SessionChangedParams) => void): Disposable {
    return this.hub.on(Notifications.sessionChanged, listener);
  }

  /** The hook configuration was reloaded or trusted. */
  onHooksChanged(listener: (params: HooksChangedParams) => void): Disposable {
    return this.hub.on(Notifications.hooksChanged, listener);
  }

  /** An event ran its hooks (one notification per event, as recorded in the history). */
  onHookRun(listener: (run: EventRun) => void): Disposable {
    return this.hub.on(Notifications.hookRun, listener);
  }

  /**
   * Evaluates prompt, agent and mcp_tool hooks for the server with the
   * agent's model and MCP servers (wave/evaluateHook). Without a handler
   * such hooks do not run, and the user is told once per session.
   *
   *   wave.onEvaluateHook(async (p, token) => {
   *     if (p.type === 'mcp_tool') return callMcpTool(p.server!, p.tool!, p.arguments ?? {}, token);
   *     return JSON.parse(await askModel(p.model ?? 'fast', p.prompt!, token)); // {ok, reason}
   *   });
   */
  onEvaluateHook(handler: EvaluateHookHandler): Disposable {
    return this.evaluators.register(handler);
  }
}
