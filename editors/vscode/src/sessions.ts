// Editor-side copies of sessions, kept up to date from wave/sessionChanged.
// The notification carries only what changed (the messages from the first
// changed one on, with versions), so a long session costs the editor what
// each event changed; a copy that missed a version asks wave/getSession.
// This file must not import 'vscode' (the Node tests drive it).

import type { Disposable } from './api';
import { GetSessionResult, Message, SessionChangedParams } from './wire';

/** A session as the editor knows it. */
export interface SessionCopy {
  sessionId: string;
  version: number;
  messages: Message[];
}

/** What SessionMirror needs: wave/getSession, and the notifications. */
export interface MirrorSource {
  getSession(params: { sessionId: string }): Promise<GetSessionResult>;
  onSessionChanged(listener: (p: SessionChangedParams) => void): Disposable;
}

interface Entry {
  copy?: SessionCopy;
  /** A fetch is under way; deltas that arrive meanwhile wait for it. */
  fetching?: Promise<SessionCopy>;
  queued: SessionChangedParams[];
}

/**
 * Keeps copies of the sessions an extension asked for (get), and of those
 * the server announces whole, applying each delta to the copy it follows on
 * from and fetching the session again when one does not.
 */
export class SessionMirror implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(copy: SessionCopy) => void>();
  private readonly subscription: Disposable;
  /** How many times a copy was fetched whole (for tests and diagnostics). */
  fetches = 0;

  constructor(private readonly source: MirrorSource) {
    this.subscription = source.onSessionChanged((p) => this.onChanged(p));
  }

  dispose(): void {
    this.subscription.dispose();
    this.entries.clear();
    this.listeners.clear();
  }

  /** The copy of a session: fetched the first time, then kept up to date. */
  async get(sessionId: string): Promise<SessionCopy> {
    const e = this.entry(sessionId);
    if (e.copy && !e.fetching) {
      return e.copy;
    }
    return this.fetch(sessionId, e);
  }

  /** The copy as it is now, if the mirror has one. */
  peek(sessionId: string): SessionCopy | undefined {
    return this.entries.get(sessionId)?.copy;
  }

  /**
   * Marks every copy stale (a new server process: its versions do not follow
   * on from the old one's). Copies stay readable and are fetched again at the
   * next change.
   */
  reset(): void {
    for (const e of this.entries.values()) {
      e.queued.length = 0;
      if (e.copy) {
        e.copy = { ...e.copy, version: -1 };
      }
    }
  }

  /** Stops keeping a session's copy. */
  forget(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  /** Called with the new copy each time a session's copy changes. */
  onDidChange(listener: (copy: SessionCopy) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private entry(sessionId: string): Entry {
    let e = this.entries.get(sessionId);
    if (!e) {
      e = { queued: [] };
      this.entries.set(sessionId, e);
    }
    return e;
  }

  private onChanged(p: SessionChangedParams): void {
    const e = this.entries.get(p.sessionId);
    if (!e) {
      if (p.full) {
        this.set(this.entry(p.sessionId), { sessionId: p.sessionId, version: p.version, messages: p.messages });
      }
      return; // a session no one asked for: get() fetches it when someone does
    }
    if (e.fetching) {
      e.queued.push(p);
      return;
    }
    this.apply(e, p);
  }

  private apply(e: Entry, p: SessionChangedParams): void {
    const c = e.copy;
    if (c && p.version <= c.version) {
      return; // already in the copy
    }
    if (p.full) {
      this.set(e, { sessionId: p.sessionId, version: p.version, messages: p.messages });
    } else if (c && p.since === c.version && p.from <= c.messages.length) {
      this.set(e, { sessionId: p.sessionId, version: p.version, messages: c.messages.slice(0, p.from).concat(p.messages) });
    } else {
      void this.fetch(p.sessionId, e).catch(() => undefined);
    }
  }

  private fetch(sessionId: string, e: Entry): Promise<SessionCopy> {
    if (e.fetching) {
      return e.fetching;
    }
    this.fetches++;
    const done = this.source.getSession({ sessionId }).then(
      (r) => {
        e.fetching = undefined;
        if (!e.copy || r.version >= e.copy.version) {
          this.set(e, { sessionId, version: r.version, messages: r.messages });
        }
        const queued = e.queued.splice(0);
        for (const p of queued) {
          this.apply(e, p);
        }
        return e.copy!;
      },
      (err) => {
        e.fetching = undefined;
        e.queued.length = 0;
        throw err;
      },
    );
    e.fetching = done;
    return done;
  }

  private set(e: Entry, copy: SessionCopy): void {
    e.copy = copy;
    for (const fn of [...this.listeners]) {
      try {
        fn(copy);
      } catch (err) {
        console.error('wavehooks: a session listener failed:', err);
      }
    }
  }
}
