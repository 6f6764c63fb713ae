// Answers the server's window/showMessageRequest prompts. The server sends two
// kinds (lsp/ask.go, lsp/config.go): a hook's "ask", whose actions "Allow" and
// "Deny" carry the id of the pending permission (docs/hooks.md, "Ask prompts on
// the wire"), and the workspace trust prompt with "Trust" / "Not now".
// The UI is injected so the Node tests run this same code with a scripted user.

import { CancellationToken } from './api';
import { AskAction } from './wire';

export const ASK_ALLOW = 'Allow';
export const ASK_DENY = 'Deny';
export const TRUST = 'Trust';
export const NOT_NOW = 'Not now';

export interface MessageActionItem {
  title: string;
  /** Set on the actions of an ask (AskAction). */
  permissionId?: string;
}

export interface ShowMessageRequestParams {
  type: number;
  message: string;
  actions?: MessageActionItem[];
}

export type PromptKind = 'ask' | 'trust' | 'other';

/** The permission id an ask prompt carries on its Allow and Deny actions; undefined for any other prompt. */
export function askPermissionId(params: ShowMessageRequestParams): string | undefined {
  const actions = params.actions ?? [];
  const id = actions[0]?.permissionId;
  const isAsk =
    actions.length === 2 &&
    typeof id === 'string' &&
    id !== '' &&
    actions.every((a: MessageActionItem): a is AskAction => a.permissionId === id) &&
    actions.some((a) => a.title === ASK_ALLOW) &&
    actions.some((a) => a.title === ASK_DENY);
  return isAsk ? id : undefined;
}

export function classifyPrompt(params: ShowMessageRequestParams): PromptKind {
  if (askPermissionId(params) !== undefined) {
    return 'ask';
  }
  const titles = (params.actions ?? []).map((a) => a.title);
  if (titles.includes(TRUST) && titles.includes(NOT_NOW)) {
    return 'trust';
  }
  return 'other';
}

/** How the editor shows a prompt; each resolves to the chosen title, or undefined if dismissed. */
export interface PromptUI {
  /** A hook asks whether a tool may run. */
  ask(message: string, token: CancellationToken): PromiseLike<string | undefined>;
  /** Any other prompt, e.g. the trust prompt. */
  choose(type: number, message: string, titles: string[], token: CancellationToken): PromiseLike<string | undefined>;
}

export interface PromptEvents {
  /** Called when an ask is shown and when it is answered, withdrawn or dismissed. */
  onAskChanged?(): void;
}

/**
 * The window/showMessageRequest handler. When the server withdraws the prompt
 * ($/cancelRequest: another channel answered first) it resolves null at once;
 * a dismissed prompt is null too, which the server takes as Deny for an ask.
 */
export async function answerShowMessageRequest(
  params: ShowMessageRequestParams,
  ui: PromptUI,
  token: CancellationToken,
  events: PromptEvents = {},
): Promise<MessageActionItem | null> {
  const kind = classifyPrompt(params);
  const actions = params.actions ?? [];
  const shown =
    kind === 'ask'
      ? ui.ask(params.message, token)
      : ui.choose(
          params.type,
          params.message,
          actions.map((a) => a.title),
          token,
        );
  if (kind === 'ask') {
    events.onAskChanged?.();
  }
  let sub: { dispose(): void } | undefined;
  const withdrawn = new Promise<undefined>((resolve) => {
    if (token.isCancellationRequested) {
      resolve(undefined);
      return;
    }
    sub = token.onCancellationRequested(() => resolve(undefined));
  });
  try {
    const title = await Promise.race([Promise.resolve(shown), withdrawn]);
    if (token.isCancellationRequested || title === undefined) {
      return null;
    }
    return actions.find((a) => a.title === title) ?? null;
  } finally {
    sub?.dispose();
    if (kind === 'ask') {
      events.onAskChanged?.();
    }
  }
}
