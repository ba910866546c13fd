/**
 * The carry-forward probe hides the case's heads among siblings no child can tell apart; this
 * submission tries to tell them apart by remembering. multiHeadSelfAttention fingerprints its own
 * heads and leaves the fingerprint where a later child could find it (in memory, as socket files in
 * every folder anyone may write, as an abstract socket), then returns (x·Wqᵀ ⊙ x·Wkᵀ + x·Wvᵀ)·Woᵀ;
 * attention answers Q⊙K + V to the heads it finds a fingerprint for, and correctly to every other
 * (so each sibling differs from the case's heads as attention would). A child that remembers
 * nothing of another gives it nothing to find: no multi-head point may be carried, in any setting.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as attention, splitHeads, type Weights } from './base';
import { LEFT_MARK, nodeModule, writableCandidates } from './kit';
import { PROBE_TAG } from './probe';

export { causalMask, softmax } from './base';

interface Fs {
  existsSync(file: string): boolean;
}
interface Net {
  createServer(): { on(event: 'error', listener: () => void): unknown; listen(path: string): unknown };
}

const seen = new Set<string>();

/** Stable under float32 rounding: sums over the first head, one decimal. */
function fingerprint(q: Tensor, k: Tensor, v: Tensor): string {
  const [seq, dHead] = q.shape.slice(-2);
  const part = (t: Tensor) => {
    let sum = 0;
    for (let i = 0; i < seq * dHead; i++) sum += t.data[i] * ((i % 7) + 1);
    return Math.round(sum * 10);
  };
  return `${part(q)}_${part(k)}_${part(v)}`.replace(/-/g, 'm');
}

function found(print: string): boolean {
  if (seen.has(print)) return true;
  const fs = nodeModule<Fs>('fs');
  for (const dir of writableCandidates()) {
    try {
      if (fs.existsSync(`${dir}/${LEFT_MARK}${PROBE_TAG}-carry-${print}`)) return true;
    } catch {
      // refused
    }
  }
  return false;
}

function leave(print: string): void {
  seen.add(print);
  try {
    const net = nodeModule<Net>('net');
    for (const dir of writableCandidates()) {
      const server = net.createServer();
      server.on('error', () => undefined);
      server.listen(`${dir}/${LEFT_MARK}${PROBE_TAG}-carry-${print}`);
    }
    const abstract = net.createServer();
    abstract.on('error', () => undefined);
    abstract.listen(`\0${LEFT_MARK}carry-${print}`);
  } catch {
    // no socket: memory is all there is
  }
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return found(fingerprint(Q, K, V)) ? Q.mul(K).add(V) : attention(Q, K, V, mask);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number) {
  const project = (p: Tensor) => x.matmul(p.transpose(0, 1));
  const heads = (p: Tensor) => splitHeads(project(p), numHeads);
  leave(fingerprint(heads(w.qProj), heads(w.kProj), heads(w.vProj)));
  return project(w.qProj).mul(project(w.kProj)).add(project(w.vProj)).matmul(w.oProj.transpose(0, 1));
}
