// SessionMirror's bookkeeping against a scripted server: deltas that follow
// on are applied, a gap or a delta for an unknown version fetches the whole
// session, deltas that arrive during a fetch wait for it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Disposable, SessionMirror } from '../src/api';
import { GetSessionResult, Message, SessionChangedParams } from '../src/wire';

const msg = (text: string): Message => ({ role: 'user', blocks: [{ type: 'text', content: text }] });

class ScriptedServer {
  listener?: (p: SessionChangedParams) => void;
  messages: Message[] = [];
  version = 0;
  fetches = 0;
  /** Set to hold the next getSession until release() is called. */
  hold = false;
  private release?: () => void;

  getSession({ sessionId }: { sessionId: string }): Promise<GetSessionResult> {
    this.fetches++;
    const answer = { sessionId, transcriptPath: '/x', messages: [...this.messages], version: this.version };
    if (!this.hold) {
      return Promise.resolve(answer);
    }
    return new Promise((resolve) => (this.release = () => resolve(answer)));
  }

  onSessionChanged(listener: (p: SessionChangedParams) => void): Disposable {
    this.listener = listener;
    return { dispose: () => (this.listener = undefined) };
  }

  /** Changes the conversation from index from on and announces it (unless silent). */
  change(from: number, added: Message[], silent = false): SessionChangedParams {
    const since = this.version;
    this.messages = this.messages.slice(0, from).concat(added);
    this.version += 3; // versions need not be consecutive
    const p = { sessionId: 's1', since, version: this.version, from, full: from === 0, messages: this.messages.slice(from) };
    if (!silent) {
      this.listener?.(p);
    }
    return p;
  }

  releaseFetch(): void {
    this.hold = false;
    this.release?.();
  }
}

describe('SessionMirror', () => {
  test('applies deltas that follow on and fetches on a gap', async () => {
    const srv = new ScriptedServer();
    srv.change(0, [msg('a'), msg('b')]);
    const mirror = new SessionMirror(srv);
    let copy = await mirror.get('s1');
    assert.deepEqual(copy.messages, srv.messages);
    srv.change(2, [msg('c')]);
    srv.change(1, [msg('B'), msg('c')]); // a change in the middle
    srv.change(3, []); // nothing appended: same length
    assert.deepEqual(mirror.peek('s1')!.messages, srv.messages);
    assert.equal(srv.fetches, 1);

    srv.change(3, [msg('lost')], true); // the editor missed this one
    srv.change(4, [msg('e')]);
    copy = await mirror.get('s1');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(mirror.peek('s1')!.messages, srv.messages);
    assert.equal(mirror.peek('s1')!.version, srv.version);
    assert.equal(srv.fetches, 2, 'the gap was filled by one fetch');

    srv.change(2, []); // shorter
    assert.deepEqual(mirror.peek('s1')!.messages, srv.messages);
    mirror.dispose();
  });

  test('deltas during a fetch wait for it; stale ones are dropped', async () => {
    const srv = new ScriptedServer();
    srv.change(0, [msg('a')]);
    srv.hold = true;
    const mirror = new SessionMirror(srv);
    const seen: number[] = [];
    mirror.onDidChange((c) => seen.push(c.version));
    const pending = mirror.get('s1'); // answers with version 3
    srv.change(1, [msg('b')]); // version 6, since 3: waits
    srv.releaseFetch();
    await pending;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(mirror.peek('s1')!.messages, [msg('a'), msg('b')]);
    assert.deepEqual(seen, [3, 6]);
    assert.equal(srv.fetches, 1);
  });

  test('after reset (a new server) the next change fetches the copy again', async () => {
    const srv = new ScriptedServer();
    srv.change(0, [msg('a')]);
    const mirror = new SessionMirror(srv);
    await mirror.get('s1');
    mirror.reset();
    assert.deepEqual(mirror.peek('s1')!.messages, [msg('a')], 'still readable');
    srv.change(1, [msg('b')]);
    await new Promise((r) => setImmediate(r));
    assert.equal(srv.fetches, 2);
    assert.deepEqual(mirror.peek('s1')!.messages, [msg('a'), msg('b')]);
  });

  test('a whole session announced before anyone asked is kept', async () => {
    const srv = new ScriptedServer();
    const mirror = new SessionMirror(srv);
    srv.change(0, [msg('new')]);
    assert.deepEqual(mirror.peek('s1')!.messages, [msg('new')]);
    srv.change(1, [msg('more')]);
    assert.deepEqual(mirror.peek('s1')!.messages, [msg('new'), msg('more')]);
    assert.equal(srv.fetches, 0);
  });
});
