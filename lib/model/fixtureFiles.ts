/**
 * Writing and checking an assignment's fixtures folder, for its generator (`npm run fixtures`):
 * the generator builds every file in memory (BuiltFile), and writing and `--check` both start from
 * that one build, so `--check` compares exactly what a regeneration would write.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeNpy } from '../npy';
import { displayPath } from '../paths';
import type { Tensor } from '../tensor';
import { MANIFEST_NAME, sha256, type FileEntry, type Manifest } from './manifest';

/** A file to write, relative to the fixtures folder, with its bytes. */
export interface BuiltFile {
  name: string;
  bytes: Uint8Array;
}

/** A tensor as the .npy file `name` (relative to the fixtures folder), and its manifest entry. */
export function npyFile(name: string, tensor: Tensor, seed: number | null, recipe: string): { file: BuiltFile; entry: FileEntry } {
  const bytes = encodeNpy(tensor);
  return { file: { name, bytes }, entry: { shape: [...tensor.shape], dtype: tensor.dtype, seed, recipe, sha256: sha256(bytes) } };
}

/** The manifest as its file, in the layout every generator writes. */
export function manifestFile(manifest: Manifest): BuiltFile {
  return { name: MANIFEST_NAME, bytes: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) };
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** Writes the build into `dir`, removing fixture files no case uses any more. */
export function writeFixtures(dir: string, files: BuiltFile[]): void {
  const wanted = new Set(files.map((f) => f.name));
  for (const stale of listFiles(dir).filter((name) => !wanted.has(name))) fs.rmSync(path.join(dir, stale));
  for (const file of files) {
    const target = path.join(dir, file.name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.tmp`, file.bytes);
    fs.renameSync(`${target}.tmp`, target);
  }
}

/** Problems between the build and `dir`, one line each; empty when byte for byte identical. */
export function checkFixtures(dir: string, files: BuiltFile[]): string[] {
  const problems: string[] = [];
  const wanted = new Set(files.map((f) => f.name));
  for (const file of files) {
    const target = path.join(dir, file.name);
    if (!fs.existsSync(target)) problems.push(`${displayPath(target, path.dirname(dir))}: missing`);
    else if (!Buffer.from(file.bytes).equals(fs.readFileSync(target))) {
      problems.push(`${displayPath(target, path.dirname(dir))}: differs from what the generator makes`);
    }
  }
  for (const extra of listFiles(dir).filter((name) => !wanted.has(name))) {
    problems.push(`${displayPath(path.join(dir, extra), path.dirname(dir))}: not made by the generator`);
  }
  return problems;
}
