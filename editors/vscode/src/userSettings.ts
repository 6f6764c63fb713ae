// The settings only the user may set: which binary runs as the server, where
// the wave home is, and whether a workspace's hooks run without asking. A
// repository's .vscode/settings.json (or a .code-workspace file) must not
// choose any of them: the server binary would be the repository's own
// program, and trust would be switched off by the code it guards. The
// manifest gives them the scope "machine", so that VS Code itself refuses a
// workspace value; the extension reads them through inspect() and takes only
// the user's value (or the default), so that a VS Code that still returns a
// workspace value (an older version, or a scope it does not know) changes
// nothing either. No 'vscode' import, so the Node tests run it.

/** The settings of the `wavehooks` section that only the user may set (scope "machine" in package.json). */
export const USER_ONLY_SETTINGS = ['serverPath', 'waveHome', 'trustWorkspaceHooks'] as const;

export type UserOnlySetting = (typeof USER_ONLY_SETTINGS)[number];

/** What WorkspaceConfiguration.inspect() returns, as far as this module reads it. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultLanguageValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

/** The value of one user-only setting and, when a workspace tried to set it, what was ignored and where. */
export interface UserSetting<T> {
  value: T;
  ignored: Array<{ where: string; value: unknown }>;
}

/**
 * Reads a user-only setting from inspect()'s layers: the user's value (VS Code's "global" layer: the user
 * settings, and in a remote window the remote machine's settings), else the default given. Every workspace
 * and workspace-folder value, language-specific ones included, is listed as ignored. A value of the wrong
 * type counts as unset.
 */
export function readUserSetting<T>(inspected: Inspected<T> | undefined, fallback: T): UserSetting<T> {
  const ignored: UserSetting<T>['ignored'] = [];
  const layers: Array<[string, unknown]> = [
    ['the workspace settings (.vscode/settings.json or the .code-workspace file)', inspected?.workspaceValue],
    ["a workspace folder's settings (its .vscode/settings.json)", inspected?.workspaceFolderValue],
    ['the workspace settings for a language', inspected?.workspaceLanguageValue],
    ["a workspace folder's settings for a language", inspected?.workspaceFolderLanguageValue],
  ];
  for (const [where, value] of layers) {
    if (value !== undefined) {
      ignored.push({ where, value });
    }
  }
  const user = inspected?.globalValue;
  const value = user !== undefined && typeof user === typeof fallback ? user : fallback;
  return { value, ignored };
}

/** The line the server log gets for a workspace value that was ignored. */
export function ignoredMessage(key: UserOnlySetting, where: string, value: unknown, shown: (s: string) => string): string {
  return (
    `wavehooks.${key} is set in ${where} to ${shown(JSON.stringify(value) ?? String(value))}: ignored, ` +
    'only your user settings choose it (a repository must not choose the server, the wave home or trust)'
  );
}
