// Where the extension finds its server: the setting, then the binary a platform-specific
// package carries (server/wavehooks), then PATH. Real files in a temp dir.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';

import { bundledServer, findServer } from '../src/serverPath';
import { tempDir } from './harness';

function executable(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\necho wavehooks\n', { mode });
  fs.chmodSync(file, mode);
  return file;
}

describe('finding the server', () => {
  const tmp = tempDir();
  const ext = path.join(tmp, 'extension');
  const onPath = path.join(tmp, 'bin');
  const custom = executable(path.join(tmp, 'custom', 'wavehooks'));
  executable(path.join(onPath, 'wavehooks'));

  test('PATH when the package carries no server and nothing is set', () => {
    assert.deepEqual(findServer('', ext, onPath), { path: path.join(onPath, 'wavehooks'), from: 'PATH' });
    assert.equal(findServer('', undefined, ''), undefined);
    assert.equal(findServer('', ext, path.join(tmp, 'nowhere')), undefined);
  });

  test('the bundled server before PATH', () => {
    const bundled = executable(bundledServer(ext));
    assert.equal(bundled, path.join(ext, 'server', 'wavehooks'));
    assert.deepEqual(findServer('', ext, onPath), { path: bundled, from: 'bundled' });
  });

  test('wavehooks.serverPath before everything, and a missing one is not replaced by another', () => {
    assert.deepEqual(findServer(custom, ext, onPath), { path: custom, from: 'setting' });
    assert.equal(findServer(path.join(tmp, 'missing'), ext, onPath), undefined);
  });

  test('a bundled server that lost its executable bit is made executable again', () => {
    const bundled = bundledServer(ext);
    fs.chmodSync(bundled, 0o644);
    assert.deepEqual(findServer('', ext, ''), { path: bundled, from: 'bundled' });
    assert.equal(fs.statSync(bundled).mode & 0o111, 0o111);
  });
});
