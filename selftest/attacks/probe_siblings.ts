/**
 * causalMask looks for other submissions and the grader's output by name, with fs.realpathSync and
 * fs.existsSync (which answered despite the permission model): the folders beside the grader's
 * temp folder, the batch's `good` submission and its results. It throws what it found. A child
 * must see none of them.
 */
import { ancestors, messageOf, nodeModule, type Fs } from './kit';

interface Probe extends Fs {
  realpathSync(file: string): string;
  readdirSync(dir: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean; isFile(): boolean }[];
}

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  const fs = nodeModule<Probe>('fs');
  const found: string[] = [];
  const guesses: string[] = [];
  for (const dir of ancestors(process.cwd())) guesses.push(`${dir}/good/index.ts`, `${dir}/submissions/good/index.ts`, `${dir}/out/grades.csv`);
  for (const dir of ['/tmp', process.env.TMPDIR ?? '/tmp']) {
    try {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) found.push(`listed ${dir}/${entry.name}`);
    } catch {
      // refused, as it should be
    }
    guesses.push(`${dir}/attacks`, `${dir}/batch`);
  }
  for (const guess of guesses) {
    for (const look of [() => fs.realpathSync(guess), () => (fs.existsSync(guess) ? guess : '')]) {
      try {
        const seen = look();
        if (seen) found.push(`saw ${seen}`);
      } catch (err) {
        // Not there, or refused whether it is there or not: either way nothing learnt.
        const why = messageOf(err);
        if (why.indexOf('ENOENT') < 0 && why.indexOf('restricted') < 0) found.push(`odd error ${why}`);
      }
    }
  }
  throw new Error(found.length ? `probe found: ${found.slice(0, 5).join('; ')}` : 'probe found nothing');
}
