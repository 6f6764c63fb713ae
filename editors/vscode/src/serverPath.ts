// Where the extension finds the wavehooks server: the `wavehooks.serverPath`
// setting, else the binary a platform-specific package carries in server/,
// else `wavehooks` on PATH. No 'vscode' import, so the Node tests run it.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** The binary's file name on this platform. */
export const SERVER_FILE = process.platform === 'win32' ? 'wavehooks.exe' : 'wavehooks';

/** Where a platform-specific .vsix carries the server (make dist puts it there). */
export function bundledServer(extensionPath: string): string {
  return path.join(extensionPath, 'server', SERVER_FILE);
}

export function expandHome(p: string): string {
  if (p === '~' || p.startsWith('~/')) {
    return path.join(os.homedir(), p.slice(1));
  }
  return p;
}

/** A found server: its path, and which rule found it (shown in the status bar's tooltip). */
export interface FoundServer {
  path: string;
  from: 'setting' | 'bundled' | 'PATH';
}

/**
 * The server binary: the setting if set (even if it is missing: the user asked for that file), else the
 * bundled one, else `wavehooks` on PATH. A bundled binary that lost its executable bit (an archive tool
 * that drops modes) is made executable again.
 */
export function findServer(setting: string, extensionPath: string | undefined, envPath = process.env.PATH ?? ''): FoundServer | undefined {
  if (setting) {
    const p = expandHome(setting);
    return fs.existsSync(p) ? { path: p, from: 'setting' } : undefined;
  }
  if (extensionPath) {
    const bundled = bundledServer(extensionPath);
    if (fs.existsSync(bundled)) {
      if (!isExecutable(bundled)) {
        try {
          fs.chmodSync(bundled, 0o755);
        } catch {
          // reported below as not executable
        }
      }
      if (isExecutable(bundled)) {
        return { path: bundled, from: 'bundled' };
      }
    }
  }
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, SERVER_FILE);
    if (isExecutable(candidate)) {
      return { path: candidate, from: 'PATH' };
    }
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
