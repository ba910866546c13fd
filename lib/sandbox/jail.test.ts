import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../selftest/grader/materialize';
import { buildChildRuntime } from './build';
import { buildJail, jailProblem, sharedLibraries } from './jail';
import { findTools } from './probeLayers';

const { setpriv, chroot } = findTools();

describe('the root folder of a child without namespaces', () => {
  it('lists the libraries Node loads, the dynamic loader among them', () => {
    const libs = sharedLibraries(process.execPath);
    expect(Array.isArray(libs)).toBe(true);
    for (const lib of libs as string[]) expect(path.isAbsolute(lib)).toBe(true);
    expect((libs as string[]).some((lib) => /\/libc\.so/.test(lib))).toBe(true);
    expect((libs as string[]).some((lib) => /ld-linux/.test(lib))).toBe(true);
  });

  it.runIf(setpriv && chroot && process.getuid?.() === 0)('holds Node, setpriv, their libraries and the runtime, nothing else; Node starts in it and sees only that', () => {
    const runtime = buildChildRuntime();
    const cache = tempDir('jail');
    const seedrandom = path.dirname(require.resolve('seedrandom/package.json'));
    const jail = buildJail({ runtimeRoot: runtime.root, childEntry: runtime.entry, seedrandom, node: process.execPath, setpriv: setpriv!, cacheDir: cache });
    if (typeof jail === 'string') throw new Error(jail);
    // The same inputs find the same folder.
    expect(buildJail({ runtimeRoot: runtime.root, childEntry: runtime.entry, seedrandom, node: process.execPath, setpriv: setpriv!, cacheDir: cache })).toEqual(jail);
    const top = fs.readdirSync(jail.root).sort();
    expect(top.filter((name) => !/^lib/.test(name))).toEqual(['node', 'runtime', 'setpriv']);
    expect(fs.existsSync(path.join(jail.root, 'runtime', 'node_modules', 'seedrandom', 'package.json'))).toBe(true);
    const seen = spawnSync(chroot!, [jail.root, jail.setpriv, '--reuid=1000000001', '--regid=1000000001', '--clear-groups', '--', jail.node, '-e',
      'const fs = require("fs"); console.log(JSON.stringify([process.getuid(), fs.readdirSync("/").sort(), fs.existsSync("/proc"), fs.existsSync("/tmp")]))'], { encoding: 'utf8', env: {} });
    expect(seen.stderr).toBe('');
    const [uid, root, proc, tmp] = JSON.parse(seen.stdout) as [number, string[], boolean, boolean];
    expect(uid).toBe(1000000001);
    expect(root).toEqual(top);
    expect([proc, tmp]).toEqual([false, false]);
    // Nothing in it a child could write, nothing but files and folders.
    expect(jailProblem(jail.root)).toBeUndefined();
    fs.mkdirSync(path.join(jail.root, 'runtime', 'open'), { mode: 0o777 });
    fs.chmodSync(path.join(jail.root, 'runtime', 'open'), 0o1777);
    expect(jailProblem(jail.root)).toBe('its root folder holds runtime/open, which others may write');
    expect(buildJail({ runtimeRoot: runtime.root, childEntry: runtime.entry, seedrandom, node: process.execPath, setpriv: setpriv!, cacheDir: cache })).toBe('its root folder holds runtime/open, which others may write');
    fs.rmdirSync(path.join(jail.root, 'runtime', 'open'));
    fs.symlinkSync('/tmp', path.join(jail.root, 'tmp'));
    expect(jailProblem(jail.root)).toBe('its root folder holds tmp, which is neither a file nor a folder');
    fs.rmSync(cache, { recursive: true, force: true });
  });
});
