import fs from 'node:fs';
import path from 'node:path';

/** Writes through a temporary file in the same folder and a rename: readers never see half a file. */
export function writeFileAtomic(file: string, contents: string | Uint8Array): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(temp, contents);
  fs.renameSync(temp, file);
}
