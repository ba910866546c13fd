/**
 * Not an attack: what actions/upload-artifact@v4 then actions/download-artifact@v4 do to the files
 * they carry between jobs, done here, so that the course workflow's self-tests hand submissions
 * over as GitHub would. Upload searches its `path` as @actions/glob does with the action's defaults:
 * symbolic links are followed (a link to a file is stored as a regular file holding its target's
 * bytes, a link to a folder as a copy of it; a link to nothing fails the upload), hidden files and
 * folders are left out unless `include-hidden-files`, empty folders are not stored, and a path
 * holding `" : < > | * ?`, CR or LF fails the whole upload. Download writes regular files only,
 * with the default mode.
 */
import fs from 'node:fs';
import path from 'node:path';

/** An artifact as stored: relative path → bytes. */
export type Artifact = Map<string, Buffer>;

export interface UploadOptions {
  /** One file or folder, relative to `cwd` (the workflow's `path`). */
  path: string;
  'include-hidden-files'?: boolean;
  'if-no-files-found'?: 'warn' | 'error' | 'ignore';
}

/** The upload's own errors, as the action fails the step with them. */
export class UploadError extends Error {
  override name = 'UploadError';
}

const INVALID = /[":<>|*?\r\n]/;

/** What upload-artifact stores for `options.path` under `cwd`. */
export function uploadArtifact(cwd: string, options: UploadOptions): Artifact {
  const start = path.resolve(cwd, options.path);
  const hidden = !options['include-hidden-files'];
  const artifact: Artifact = new Map();
  const add = (relative: string, file: string) => {
    if (INVALID.test(relative)) throw new UploadError(`The path for one of the files in artifact is not valid: ${relative}. Contains the following character: ${INVALID.exec(relative)![0]}`);
    artifact.set(relative, fs.readFileSync(file));
  };
  const walk = (file: string, relative: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file); // follows links, as followSymbolicLinks: true does
    } catch {
      throw new UploadError(`No information found for the path: ${file}`);
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file).sort()) {
        if (hidden && name.startsWith('.')) continue;
        walk(path.join(file, name), relative ? `${relative}/${name}` : name);
      }
    } else if (stat.isFile()) add(relative, file);
  };
  if (!fs.existsSync(start)) {
    if (options['if-no-files-found'] === 'error') throw new UploadError(`No files were found with the provided path: ${options.path}. No artifacts will be uploaded.`);
    return artifact;
  }
  // A single file is stored under its own name; a folder's files relative to it.
  if (fs.statSync(start).isFile()) add(path.basename(start), start);
  else walk(start, '');
  if (artifact.size === 0 && options['if-no-files-found'] === 'error') throw new UploadError(`No files were found with the provided path: ${options.path}. No artifacts will be uploaded.`);
  return artifact;
}

/** What download-artifact writes into `dir` (created): every stored file, as a regular file. */
export function downloadArtifact(artifact: Artifact, dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [relative, bytes] of artifact) {
    const file = path.join(dir, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
  }
}
