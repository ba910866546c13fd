/**
 * The view of a child in a mount namespace of its own (childView.ts): folders anyone may write and
 * sockets are found on the machine; folders that hold what the child needs are never covered.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../selftest/grader/materialize';
import { childView, emptyFolder, socketPaths, worldWritableFolders } from './childView';

const root = tempDir('child-view');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A folder with `mode`, made whatever the umask. */
function folder(relative: string, mode: number): string {
  const dir = path.join(root, relative);
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, mode);
  return dir;
}

describe('folders anyone may write', () => {
  it('found at any depth the walk reaches, not below a folder others may not enter, not below one already found', () => {
    fs.chmodSync(root, 0o755);
    const open = folder('a/b/open', 0o1777);
    folder('a/b/open/inner', 0o777);
    folder('closed', 0o700);
    folder('closed/hidden', 0o777);
    folder('a/plain', 0o755);
    expect(worldWritableFolders({ root, depth: 4 })).toEqual([open]);
    // Past its depth the walk stops.
    expect(worldWritableFolders({ root, depth: 2 })).toEqual([]);
  });

  it('on this machine: /tmp among them', () => {
    expect(worldWritableFolders()).toContain(fs.realpathSync('/tmp'));
  });
});

describe('the view', () => {
  it('covers the batch, the temporary folders and every folder found, never one holding what the child needs', () => {
    const batch = folder('batch', 0o755);
    const needed = path.join(batch, 'runtime', 'child.js');
    const view = childView([path.join(batch, 'submissions'), batch], [needed]);
    expect(view.covered).not.toContain(batch);
    expect(view.covered.some((dir) => needed.startsWith(dir + path.sep))).toBe(false);
    const usual = ['/tmp', '/var/tmp', '/dev/shm', '/run'].filter((dir) => fs.existsSync(dir) && !needed.startsWith(fs.realpathSync(dir)));
    for (const dir of usual) expect(view.covered.some((c) => fs.realpathSync(dir) === c || fs.realpathSync(dir).startsWith(c + path.sep)), dir).toBe(true);
    // Outermost only: no covered folder inside another.
    for (const dir of view.covered) expect(view.covered.filter((other) => dir.startsWith(other + path.sep))).toEqual([]);
  });

  it('masks a listening socket no covered folder holds', async () => {
    const holder = folder('sockets', 0o755);
    const file = path.join(holder, 'service.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(file, resolve));
    try {
      expect(socketPaths()).toContain(file);
      // Its folder holds what the child needs, so it cannot be covered: the socket itself is masked.
      const view = childView([], [path.join(holder, 'needed.js'), root]);
      expect(view.masked).toContain(file);
    } finally {
      server.close();
    }
  });
});

describe('the working folder', () => {
  it('empty, and no one but root may write it; made again when anything is found in it', () => {
    const dir = emptyFolder(root);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o555);
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'left.txt'), 'x');
    expect(emptyFolder(root)).toBe(dir);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o555);
  });
});
