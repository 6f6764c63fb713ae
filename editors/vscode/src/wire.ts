// The wave/* wire contract (docs/protocol.md; checked against lsp/wire.go by lsp/protocol_test.go).
// Field names are fixed by the server: extend, never rename. Every array the
// server sends is [] rather than null. This file must not import 'vscode', so
// that agent extensions and the Node tests can use it as it is.

/** Method names of the wave/* requests. */
export const Methods = {
  sessionStart: 'wave/sessionStart',
  userPromptSubmit: 'wave/userPromptSubmit',
  preToolUse: 'wave/preToolUse',
  postToolUse: 'wave/postToolUse',
  stop: 'wave/stop',
  sessionEnd: 'wave/sessionEnd',
  addAssistantMessage: 'wave/addAssistantMessage',
  getSession: 'wave/getSession',
  apiMessages: 'wave/apiMessages',
  listPermissions: 'wave/listPermissions',
  resolvePermission: 'wave/resolvePermission',
  runHooks: 'wave/runHooks',
  hookRuns: 'wave/hookRuns',
  postToolBatch: 'wave/postToolBatch',
  evaluateHookResult: 'wave/evaluateHookResult',
  listHooks: 'wave/listHooks',
} as const;

/** Requests the server sends to the editor beyond LSP's own. */
export const ServerRequests = {
  /** Evaluate a prompt, agent or mcp_tool hook (only if the client declared experimental.waveEvaluateHook). */
  evaluateHook: 'wave/evaluateHook',
} as const;

/** Method names of the server's wave/* notifications. */
export const Notifications = {
  hookRun: 'wave/hookRun',
  sessionChanged: 'wave/sessionChanged',
  hooksChanged: 'wave/hooksChanged',
} as const;

/** Commands the server runs through workspace/executeCommand. */
export const ServerCommands = {
  allow: 'wave.permission.allow',
  deny: 'wave.permission.deny',
  trustWorkspace: 'wave.trustWorkspace',
  makeExecutable: 'wave.makeExecutable',
  runHook: 'wave.runHook',
  /** Runs a hook test case file (argument: its absolute path); result RunTestsResult. */
  runTests: 'wave.runTests',
  /** Turns one hook off or on (arguments: its id from wave/listHooks, and optionally true/false); result ToggleHookResult. */
  toggleHook: 'wave.toggleHook',
} as const;

/** Hook events the server knows; other Claude Code events go through wave/runHooks. */
export type HookEvent =
  | 'PreToolUse'
  | 'PostToolUse'
  | 'UserPromptSubmit'
  | 'Stop'
  | 'SessionStart'
  | 'SessionEnd'
  | 'PostToolUseFailure'
  | 'SubagentStart'
  | 'SubagentStop'
  | 'PreCompact'
  | 'PostCompact'
  | 'Notification'
  | 'PermissionRequest';

/** A message block: the same shape as in the session file. */
export interface Block {
  type: 'text' | 'tool' | 'error' | 'warn' | 'hook';
  /** text, error, warn, hook */
  content?: string;
  /** tool */
  id?: string;
  name?: string;
  input?: unknown;
  result?: string;
  /** absent while the tool has not run */
  success?: boolean;
  error?: string;
  /** hook */
  hookEvent?: string;
  metadata?: Record<string, unknown>;
}

export interface Message {
  role: 'user' | 'assistant';
  blocks: Block[];
}

/** A message as the model should see it (Anthropic API shape). */
export interface ApiMessage {
  role: 'user' | 'assistant';
  content: string | Array<Record<string, unknown>>;
}

/** Fields every event result carries. */
export interface EventOutcome {
  /** false: the agent must stop; stopReason is for the user. */
  continue: boolean;
  stopReason?: string;
  /** The blocks this event added or changed. */
  blocks: Block[];
}

export interface SessionStartParams {
  sessionId?: string;
  source?: 'startup' | 'resume' | 'clear' | 'compact' | string;
  /** What the host knows of the session, passed to the hooks' stdin (model, agent_type, session_title, …). */
  model?: string;
  agentType?: string;
  sessionTitle?: string;
  secondsSinceLastResponse?: number;
  contextTokens?: number;
  promptCacheLikelyExpired?: boolean;
  estimatedCacheWriteUsd?: number;
}
export interface SessionStartResult extends EventOutcome {
  sessionId: string;
  transcriptPath: string;
  additionalContext: string[];
  /** Variables the SessionStart hooks wrote to CLAUDE_ENV_FILE ({} when none): apply them to later tool runs. */
  env: Record<string, string>;
  /** Files a hook asked FileChanged to watch; the server watches them already. Absent when no hook returned a list. */
  watchPaths?: string[];
  /** A first user turn a SessionStart hook asked for: send it as the session's first prompt (wave/userPromptSubmit). */
  initialUserMessage?: string;
  /** The title a SessionStart hook gave the session (source startup, resume or fork). */
  sessionTitle?: string;
  /** A SessionStart hook installed skills or commands: re-scan them before the first prompt. */
  reloadSkills?: boolean;
  /** Allowlisted escape sequences hooks asked the host to write to its terminal (OSC 0/1/2/9/99/777, BEL). Data: never echo unchecked. */
  terminalSequences?: string[];
}

/**
 * What the agent host may say about the agent with an event, for the hooks'
 * stdin (prompt_id, permission_mode, effort). All optional; the session
 * remembers each until it is given again (a new prompt without a promptId
 * forgets the last one).
 */
export interface AgentState {
  promptId?: string;
  /** 'default' | 'plan' | 'acceptEdits' | 'auto' | 'dontAsk' | 'bypassPermissions' */
  permissionMode?: string;
  /** The turn's effort level ('low' … 'max'): effort.level and $CLAUDE_EFFORT for hooks. */
  effort?: string;
}

export interface UserPromptSubmitParams extends AgentState {
  sessionId: string;
  prompt: string;
  /** Where the prompt came from and the session's title, for the hooks' stdin (source, session_title). */
  source?: string;
  sessionTitle?: string;
}

/** The result of UserPromptSubmit, PostToolUse, Stop and most wave/runHooks events. */
export interface FlowResult extends EventOutcome {
  /** Only for wave/runHooks of PermissionRequest, PreModelSwitch ('ask' too: the host asks) and PreSkillShellCommand. */
  permission?: 'allow' | 'deny' | 'ask';
  /** Only for wave/runHooks of PermissionRequest a hook allowed: the tool input to run with (its updatedInput applied). */
  toolInput?: unknown;
  /** Only for postToolUse: the tool's output as the model must see it (a hook's updatedToolOutput, or the tool's own). */
  toolResponse?: unknown;
  blocked: boolean;
  reason?: string;
  additionalContext: string[];
  /** PermissionDenied: a hook said the model may retry. */
  retry?: boolean;
  /** Elicitation / ElicitationResult: 'accept' (with content), 'decline' or 'cancel'; absent: ask the user. */
  action?: string;
  content?: unknown;
  /** MessageDisplay: the text to show. */
  displayContent?: string;
  /** WorktreeCreate: where the hook created the worktree. */
  worktreePath?: string;
  /** CwdChanged / FileChanged: the files FileChanged should watch. */
  watchPaths?: string[];
  /** Setup / CwdChanged / FileChanged: variables the hooks wrote to CLAUDE_ENV_FILE. */
  env?: Record<string, string>;
  /** UserPromptSubmit that went ahead: the title a hook gave the session. */
  sessionTitle?: string;
  /** UserPromptSubmit / UserPromptExpansion that was blocked: do not show the prompt's text with the block message. */
  suppressOriginalPrompt?: boolean;
  /** UserPromptSubmit that went ahead: the prompt a hook rewrote (wavehooks' own updatedPrompt); send the model this text. */
  updatedPrompt?: string;
  /** PostToolUse: a note about the call's result for an auto mode classifier, never for the model. */
  classifierContext?: string;
  /** Allowlisted escape sequences hooks asked the host to write to its terminal (OSC 0/1/2/9/99/777, BEL). Data: never echo unchecked. */
  terminalSequences?: string[];
}

/** A batch of parallel tool calls the session recorded, once all resolved: PostToolBatch fires once for them. */
export interface PostToolBatchParams {
  sessionId: string;
  toolUseIds: string[];
}

export interface PreToolUseParams extends AgentState {
  sessionId: string;
  toolUseId: string;
  toolName: string;
  toolInput: unknown;
}
export interface PreToolUseResult extends EventOutcome {
  /** 'defer': do not run the tool; pause at this call and resume it later with wave/preToolUse for the same toolUseId. */
  permission: 'allow' | 'deny' | 'defer';
  /**
   * What the hooks decided before anyone was asked; 'none' when no hook
   * decided: apply your own permission rules then (permission is 'allow').
   */
  decision: 'allow' | 'deny' | 'ask' | 'defer' | 'none';
  reason?: string;
  /** The effective tool input (a hook may have changed it). */
  toolInput: unknown;
  /** true if the user was asked. */
  asked: boolean;
  /** What a hook asked the permission prompt to show (hookSpecificOutput.permissionDisplay, as written). */
  permissionDisplay?: unknown;
  /** Allowlisted escape sequences hooks asked the host to write to its terminal (OSC 0/1/2/9/99/777, BEL). Data: never echo unchecked. */
  terminalSequences?: string[];
}

export interface PostToolUseParams extends PreToolUseParams {
  toolResponse: unknown;
  /** How long the tool ran, in milliseconds (duration_ms). */
  durationMs?: number;
}

export interface SessionParams {
  sessionId: string;
}
export interface StopParams extends AgentState {
  sessionId: string;
}
export interface SessionEndParams extends AgentState {
  sessionId: string;
  reason?: string;
}
export interface BlocksResult {
  blocks: Block[];
  /** Allowlisted escape sequences hooks asked the host to write to its terminal (OSC 0/1/2/9/99/777, BEL). Data: never echo unchecked. */
  terminalSequences?: string[];
}

export interface AddAssistantMessageParams {
  sessionId: string;
  blocks: Block[];
}

export interface GetSessionResult {
  sessionId: string;
  transcriptPath: string;
  messages: Message[];
  /** The version of these messages, as wave/sessionChanged counts them. */
  version: number;
}
export interface ApiMessagesResult {
  messages: ApiMessage[];
}

export interface PendingPermission {
  id: string;
  sessionId: string;
  toolName: string;
  toolInput: unknown;
  reason: string;
}
/**
 * An action of the server's ask prompt (window/showMessageRequest): "Allow" or "Deny", with the id of the
 * pending permission it answers (docs/protocol.md, "Ask prompts on the wire"). Match asks by this id, never by the
 * prompt's text.
 */
export interface AskAction {
  title: string;
  permissionId: string;
}
/** The data of the "wave.ask" diagnostic the server puts on the file an asking tool would change. */
export interface AskDiagnosticData {
  permissionId: string;
}
/** The code of that diagnostic. */
export const ASK_DIAGNOSTIC_CODE = 'wave.ask';
export interface ListPermissionsResult {
  pending: PendingPermission[];
}
export interface ResolvePermissionParams {
  id: string;
  decision: 'allow' | 'deny';
}
export interface ResolvePermissionResult {
  /** false if the ask was unknown or already decided. */
  resolved: boolean;
}

export interface RunHooksParams {
  sessionId: string;
  event: HookEvent | string;
  /** Event-specific stdin fields, e.g. {tool_name, tool_input} or {prompt}. */
  input: Record<string, unknown>;
}

export interface HookRunsParams {
  sessionId?: string;
  event?: HookEvent | string;
  limit?: number;
}

/** What one configured hook did with one event. */
export interface HookRun {
  command: string;
  /** user, project, local, claude-user, claude-project, claude-local */
  source: string;
  file: string;
  matcher: string;
  matched: boolean;
  /** Why the matcher matched or not. */
  why: string;
  /** The hook's "if" rule, when it has one and the matcher matched; ifWhy says whether it matched. */
  if?: string;
  ifWhy?: string;
  /** Why a matching hook did not run (its "if" rule, untrusted, disabled, duplicate). */
  skipped?: string;
  ran: boolean;
  exitCode: number;
  /** Nanoseconds; some server builds send Go's duration text ("4.6ms"): see format.durationNs. */
  durationNs: number | string;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** stdout was read as a JSON answer */
  json: boolean;
  /** The hook runs in the background: it has not run yet in its event's record; its own record comes when it ends. */
  async?: boolean;
  /** What the hook's settings say to show while it runs. */
  statusMessage?: string;
  /** command, http, prompt, agent or mcp_tool (absent from servers before hook types) */
  type?: string;
  /** the status code an http hook was answered with */
  httpStatus?: number;
  problems: string[];
  decision: string;
}

/** One event as the run history keeps it. */
export interface EventRun {
  id: number;
  time: string;
  sessionId: string;
  event: string;
  /** What the matchers were compared with (tool name, source, reason). */
  matchValue?: string;
  stdin: string;
  hooks: HookRun[];
  outcome: string;
  /** Absent: a run of this server. "runLog": read from $WAVE_HOME/runs/runs.jsonl, recorded by another process (the ACP proxy, another server). */
  origin?: string;
}
export interface HookRunsResult {
  /** Newest first. */
  runs: EventRun[];
  /** Runs of this wave home's processes not exported to OpenTelemetry (queue full, collector unreachable); 0 when export is off (docs/telemetry.md). */
  telemetryDropped: number;
}

/**
 * What changed in a session: the messages before `from` are as they were in
 * version `since`, and `messages` are every message from `from` on in version
 * `version` (fewer than before when the conversation got shorter). `full`
 * (`from` is 0) carries the whole conversation. A copy that is not at version
 * `since` asks wave/getSession (SessionMirror does all this).
 */
export interface SessionChangedParams {
  sessionId: string;
  messages: Message[];
  version: number;
  since: number;
  from: number;
  full: boolean;
}
export interface HooksChangedParams {
  files: string[];
  hooks: number;
  diagnostics: number;
  trusted: boolean;
}

/** The result of the wave.runHook command (the "Run hook" code lens). */
export interface RunHookResult {
  event: string;
  command: string;
  stdin: string;
  outcome: string;
  run: HookRun;
}

/** What wave.runTests did with a hook test case file. */
export interface RunTestsResult {
  file: string;
  passed: number;
  failed: number;
  /** Said once: whether the workspace's own hooks ran or were skipped as untrusted. */
  notes: string[];
  cases: TestCaseResult[];
  /** Why no case ran (a bad case file); the place is a diagnostic on the file. */
  error?: string;
  /** What the user was shown. */
  message: string;
}
export interface TestCaseResult {
  name: string;
  /** 0-based line where the case starts. */
  line: number;
  passed: boolean;
  failures: string[];
  durationMs: number;
}
/** The diagnostic code of a failing hook test case. */
export const TEST_FAILED_CODE = 'wave.testFailed';

/** One configured hook (wave/listHooks), as `wavehooks hooks list --format json` prints it. */
export interface HookListing {
  id: string;
  enabled: boolean;
  source: string;
  file: string;
  /** 1-based. */
  line: number;
  event: string;
  matcher: string;
  command: string;
  /** Why it is off (or waits for approval after drift). */
  why?: string;
  /** From a managed (policy) settings file: it always runs, and no toggle turns it off. */
  managed?: boolean;
  /** "added" or "changed": something other than wavehooks or the editor wrote it into the user's settings, not approved yet. */
  drift?: string;
}
export interface ListHooksResult {
  hooks: HookListing[];
}
/** What wave.toggleHook did. */
export interface ToggleHookResult {
  id: string;
  enabled: boolean;
  event: string;
  file: string;
  command: string;
  message: string;
}

/** initializationOptions the server reads. */
export interface InitializationOptions {
  waveHome?: string;
  trustWorkspaceHooks?: boolean;
  askTimeoutSeconds?: number;
  /** The events the agent host fires; hooks on any other (but the server's own ConfigChange, FileChanged, DirectoryAdded) are flagged as never running. Absent: nothing is flagged. */
  hostEvents?: string[];
}

/** The client capability that makes the server send wave/evaluateHook: capabilities.experimental.waveEvaluateHook. */
export const EVALUATE_HOOK_CAPABILITY = 'waveEvaluateHook';

/**
 * A hook the agent is asked to evaluate (wave/evaluateHook): a prompt or
 * agent hook needs a model, an mcp_tool hook one of the agent's MCP servers.
 */
export interface EvaluateHookParams {
  /** Names the evaluation, for a late answer through wave/evaluateHookResult. */
  id: string;
  type: 'prompt' | 'agent' | 'mcp_tool';
  event: HookEvent | string;
  sessionId: string;
  /** The event's JSON input: what a command hook reads on stdin. */
  input: Record<string, unknown>;
  /** The hook's timeout; the server cancels the request when it passes. */
  timeoutSeconds: number;
  /** prompt and agent hooks: the prompt, $ARGUMENTS replaced by the input. */
  prompt?: string;
  /** prompt and agent hooks: the model the hook asks for (absent: the agent's fast model). */
  model?: string;
  /** mcp_tool hooks: the server, tool and arguments (${path} references already replaced). */
  server?: string;
  tool?: string;
  arguments?: Record<string, unknown>;
}

/** A prompt or agent hook's answer in Claude Code's response schema. */
export interface PromptHookAnswer {
  ok: boolean;
  /** Required when ok is false: what the model (or the user) is told. */
  reason?: string;
  /** prompt hooks on Stop / SubagentStop: the condition can never be met; the agent may stop. */
  impossible?: boolean;
}

/** An MCP tools/call result: its text content is read like a command hook's stdout. */
export interface McpToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

/**
 * The answer to wave/evaluateHook: for prompt and agent hooks a
 * PromptHookAnswer, or any hook JSON answer (the fields a command hook may
 * print), or the model's text holding either; for mcp_tool hooks the tool's
 * result.
 */
export type EvaluateHookAnswer = PromptHookAnswer | McpToolResult | Record<string, unknown> | string;

/** A late answer to wave/evaluateHook. */
export interface EvaluateHookResultParams {
  id: string;
  result?: EvaluateHookAnswer;
  /** The evaluation failed: a non-blocking error of the hook. */
  error?: string;
}
